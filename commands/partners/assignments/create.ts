import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { validateInput } from '../../../src/cli/validate';
import { CreateAssignmentBody } from '../../../src/api/partners/schemas';
import type { PartnerAssignment } from '../../../src/services/partners';
import { createAssignment } from '../../../src/services/partners';
import { commissionFlagNames, commissionFlags, commissionInput, renderAssignment } from '../../../src/cli/partners';
import { atPlatform } from '../../../src/cli/context';

export default class PartnerAssignmentsCreate extends BaseCommand<typeof PartnerAssignmentsCreate> {
  static override summary = 'Assign a partner to a merchant with a commission (a rate in millionths plus an optional fixed amount).';
  static override description =
    'One active assignment per partner and merchant: suspend the active one before assigning anew. --fixed-amount is in major units of --fixed-currency (--fixed-amount 0.10 --fixed-currency EUR), --fixed-amount-minor in minor units (10).';
  static override examples = [
    '<%= config.bin %> partners assignments create --partner 6f1c… --merchant 0b9e… --commission-rate 15000',
    '<%= config.bin %> partners assignments create --partner 6f1c… --merchant 0b9e… --commission-rate 5000 --fixed-amount 0.10 --fixed-currency EUR --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    partner: Flags.string({ description: 'Partner id' }),
    merchant: Flags.string({ description: 'Merchant id' }),
    ...commissionFlags,
  };

  async run(): Promise<PartnerAssignment> {
    const partnerId = await this.required(this.flags.partner, 'partner', 'Partner id');
    const merchantId = await this.required(this.flags.merchant, 'merchant', 'Merchant id');
    const commissionRate =
      this.flags['commission-rate'] ??
      Number(await this.required(undefined, 'commission-rate', 'Commission rate in millionths (10000 = 1%)'));
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      CreateAssignmentBody,
      { ...commissionInput(this.flags), commissionRate, partnerId, merchantId },
      { ...commissionFlagNames, partnerId: 'partner', merchantId: 'merchant' },
    );
    const assignment = await createAssignment(ctx, input);
    this.log(renderAssignment(assignment));
    return assignment;
  }
}
