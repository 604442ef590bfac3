import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import { validateInput } from '../../src/cli/validate';
import { readAsTenantFlag } from '../../src/cli/context';
import type { PayoutSchedule } from '../../src/services/payouts/schedule';
import { getPayoutSchedule } from '../../src/services/payouts/schedule';
import { PayoutScheduleQuery } from '../../src/api/payouts/schemas';
import { renderPayoutSchedule } from '../../src/cli/payouts';

export default class PayoutScheduleGet extends BaseCommand<typeof PayoutScheduleGet> {
  static override summary = "Show a merchant's payout schedule (manual, the default, when it never set one).";
  static override description = 'As GET /v1/payout-schedule answers it, in sandbox (test) mode unless --live.';
  static override examples = [
    '<%= config.bin %> payout-schedule get --tenant 6f1c… --merchant 0b9e…',
    '<%= config.bin %> payout-schedule get --tenant 6f1c… --merchant 0b9e… --json',
  ];
  static override flags = {
    tenant: readAsTenantFlag('The tenant of the merchant (omit to act as the platform)'),
    merchant: Flags.string({ description: 'The merchant' }),
    live: sharedFlags.live,
  };

  async run(): Promise<PayoutSchedule> {
    const merchantId = await this.required(this.flags.merchant, 'merchant', 'Merchant id');
    const ctx = await this.scope();
    const input = await validateInput(ctx, PayoutScheduleQuery, { merchantId }, { merchantId: 'merchant' });
    const schedule = await getPayoutSchedule(ctx, input.merchantId);
    this.log(renderPayoutSchedule(schedule));
    return schedule;
  }
}
