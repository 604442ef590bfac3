import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { validateWith } from '../../../src/cli/validate';
import { UpdateRestrictionBody } from '../../../src/api/processing/schemas';
import type { TerminalRestriction } from '../../../src/services/processing/terminals/restrictions';
import { updateRestriction } from '../../../src/services/processing/terminals/restrictions';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';
import { renderRestrictions, restrictionFlags } from '../../../src/cli/processing';
import { nullable } from '../../../src/cli/flags';

export default class RestrictionsUpdate extends BaseCommand<typeof RestrictionsUpdate> {
  static override summary = 'Update an active terminal restriction.';
  static override examples = ['<%= config.bin %> terminals restrictions update 6f1c… 9a8b… --action allow --brand null'];
  static override scopeOf = atPlatform();
  static override args = {
    id: ownedArg('terminal', { description: 'Terminal id', required: true }),
    restriction: ownedArg('restriction', { description: 'Restriction id', required: true }),
  };
  static override flags = {
    ...ownerFlags('terminal'),
    action: Flags.string({ description: 'allow or deny', options: ['allow', 'deny'] }),
    ...restrictionFlags,
  };

  async run(): Promise<TerminalRestriction> {
    const input = validateWith(
      UpdateRestrictionBody,
      {
        action: this.flags.action,
        paymentMethod: nullable(this.flags['payment-method']),
        brand: nullable(this.flags.brand),
        transactionType: this.flags['transaction-type'],
      },
      { paymentMethod: 'payment-method', transactionType: 'transaction-type' },
    );
    const ctx = await this.scope();
    const restriction = await updateRestriction(ctx, this.args.id, this.args.restriction, input);
    this.log(renderRestrictions([restriction]));
    return restriction;
  }
}
