import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import { validateInput } from '../../src/cli/validate';
import { amountFlagPair, minorOf } from '../../src/cli/amounts';
import { readAsTenantFlag } from '../../src/cli/context';
import { ValidationError } from '../../src/domain/errors';
import type { PayoutSchedule } from '../../src/services/payouts/schedule';
import { getPayoutSchedule, setPayoutSchedule } from '../../src/services/payouts/schedule';
import { PAYOUT_RULE, SetPayoutScheduleBody } from '../../src/api/payouts/schemas';
import { intervalFlag, renderPayoutSchedule, weeklyAnchorFlag } from '../../src/cli/payouts';

export default class PayoutScheduleSet extends BaseCommand<typeof PayoutScheduleSet> {
  static override summary = "Set a merchant's payout schedule: manual, daily or weekly, to one of its active withdrawal methods.";
  static override description = `${PAYOUT_RULE} --minimum (major units of --currency; --minimum-minor: minor units) sets the least payout in that currency and keeps the other currencies' minimums; --clear-minimums drops them all first. Changing the interval or anchor starts the schedule anew: its first period due starts that day (UTC) or later.`;
  static override examples = [
    '<%= config.bin %> payout-schedule set --tenant 6f1c… --merchant 0b9e… --interval daily --withdrawal-method 0190c3d4-…',
    '<%= config.bin %> payout-schedule set --tenant 6f1c… --merchant 0b9e… --interval weekly --weekly-anchor friday --withdrawal-method 0190c3d4-… --minimum 100.00 --currency EUR',
    '<%= config.bin %> payout-schedule set --tenant 6f1c… --merchant 0b9e… --interval manual --json',
  ];
  static override flags = {
    tenant: readAsTenantFlag('The tenant of the merchant (omit to act as the platform)'),
    merchant: Flags.string({ description: 'The merchant' }),
    interval: intervalFlag,
    'weekly-anchor': weeklyAnchorFlag,
    'withdrawal-method': Flags.string({
      description: "Daily and weekly: the merchant's active withdrawal method payouts go to (default: the current one)",
    }),
    ...amountFlagPair('minimum', 'The least payout', '--currency'),
    currency: Flags.string({ description: 'The currency of --minimum (ISO 4217, e.g. EUR)' }),
    'clear-minimums': Flags.boolean({ description: 'Drop every minimum before setting --minimum', default: false }),
    live: sharedFlags.live,
  };

  async run(): Promise<PayoutSchedule> {
    const merchantId = await this.required(this.flags.merchant, 'merchant', 'Merchant id');
    const interval = await this.required(this.flags.interval, 'interval', 'Interval (manual, daily or weekly)');
    const currency = this.flags.currency?.toUpperCase();
    const minimum = minorOf(this.flags, 'minimum', { currency, currencyFlag: '--currency', zero: true });
    if (minimum !== undefined && currency === undefined)
      throw ValidationError.field('--currency', 'is required with --minimum-minor: the currency of the minimum');
    if (minimum === undefined && currency !== undefined)
      throw ValidationError.field('--minimum', 'is required with --currency: the least payout in that currency');
    const anchor = this.flags['weekly-anchor'];
    if (interval === 'weekly' && !anchor)
      throw ValidationError.field('--weekly-anchor', 'is required for a weekly schedule: the weekday (UTC) its periods start');
    if (interval !== 'weekly' && anchor)
      throw ValidationError.field('--weekly-anchor', `is for weekly schedules only (--interval is ${interval})`);
    const ctx = await this.scope();
    await validateInput(ctx, SetPayoutScheduleBody, { merchantId, interval }, { merchantId: 'merchant' });
    const current = await getPayoutSchedule(ctx, merchantId);
    const kept = this.flags['clear-minimums'] ? [] : current.minimumAmounts.filter((m) => m.currency !== currency);
    const minimumAmounts = minimum === undefined ? kept : [...kept, { currency: currency!, valueMinor: minimum }];
    const methodId = this.flags['withdrawal-method'] ?? (interval === 'manual' ? undefined : (current.withdrawalMethodId ?? undefined));
    if (interval !== 'manual' && !methodId)
      throw ValidationError.field(
        '--withdrawal-method',
        `is required for a ${interval} schedule: the merchant's active withdrawal method payouts go to`,
      );
    const input = await validateInput(
      ctx,
      SetPayoutScheduleBody,
      {
        merchantId,
        interval,
        weeklyAnchor: anchor,
        withdrawalMethodId: methodId,
        minimumAmounts,
      },
      { merchantId: 'merchant', weeklyAnchor: 'weekly-anchor', withdrawalMethodId: 'withdrawal-method', minimumAmounts: 'minimum' },
    );
    const schedule = await setPayoutSchedule(ctx, input);
    this.log(renderPayoutSchedule(schedule));
    return schedule;
  }
}
