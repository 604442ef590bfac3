import { Flags } from '@oclif/core';
import { amountFlagsIn, requiredAmount } from '../../src/cli/payments';
import { BaseCommand } from '../../src/cli/base-command';
import { validateWith } from '../../src/cli/validate';
import type { FeeBreakdown } from '../../src/services/fees/engine';
import { resolveFees } from '../../src/services/fees/schedules';
import { asQuotingTenant, withScope } from '../../src/cli/context';
import { QuoteInput, renderBreakdown } from '../../src/cli/fees';

export default class FeesQuote extends BaseCommand<typeof FeesQuote> {
  static override summary = 'Print the fee breakdown of a hypothetical transaction, as the fee engine computes it.';
  static override description =
    'Resolves the schedules assigned at each level (terminal, merchant, channel, partner, tenant, platform) in effect at --at and runs the fee engine. --amount is in major units of --currency (100.00 EUR; --amount-minor 10000 in minor units); the breakdown shows formatted amounts.';
  static override examples = [
    '<%= config.bin %> fees quote --tenant 6f1c… --merchant 0b9e… --amount 100.00 --currency EUR --method card',
    '<%= config.bin %> fees quote --tenant 6f1c… --merchant 0b9e… --amount 100.00 --currency EUR --method card --type refund --at 2026-04-01T00:00:00Z --json',
  ];
  static override flags = {
    tenant: withScope(Flags.string({ description: 'Tenant the merchant belongs to (omit to act as the platform)' }), asQuotingTenant),
    merchant: Flags.string({ description: 'Merchant id' }),
    ...amountFlagsIn('--currency'),
    currency: Flags.string({ description: 'ISO 4217 currency' }),
    method: Flags.string({ description: 'Payment method (default card)', default: 'card' }),
    type: Flags.string({
      description: 'Transaction type',
      options: ['payment', 'refund', 'payout', 'withdrawal', 'dispute', 'chargeback'],
      default: 'payment',
    }),
    outcome: Flags.string({ description: 'Transaction outcome', options: ['successful', 'failed'], default: 'successful' }),
    terminal: Flags.string({ description: 'Terminal id' }),
    channel: Flags.string({ description: 'Channel id' }),
    partner: Flags.string({ description: "Partner id (default: the merchant's active partner assignment)" }),
    at: Flags.string({ description: 'When (ISO 8601; default now)' }),
  };

  async run(): Promise<FeeBreakdown> {
    const merchantId = await this.required(this.flags.merchant, 'merchant', 'Merchant id');
    const currency = await this.required(this.flags.currency, 'currency', 'Currency (e.g. EUR)');
    const amount = (await requiredAmount(this.flags, currency, (value, flag, question) => this.required(value, flag, question))).valueMinor;
    const input = validateWith(QuoteInput, {
      tenant: this.flags.tenant,
      merchant: merchantId,
      amount: { currency, valueMinor: amount },
      method: this.flags.method,
      type: this.flags.type,
      outcome: this.flags.outcome,
      terminal: this.flags.terminal,
      channel: this.flags.channel,
      partner: this.flags.partner,
      at: this.flags.at,
    });
    const rt = await this.runtime();
    const ctx = await this.scope();
    const breakdown = await resolveFees(ctx, {
      type: input.type,
      outcome: input.outcome,
      amount: input.amount,
      method: input.method,
      merchantId: input.merchant,
      terminalId: input.terminal,
      channelId: input.channel,
      partnerId: input.partner,
      at: input.at ? new Date(input.at) : rt.clock.now(),
    });
    this.log(renderBreakdown(breakdown));
    return breakdown;
  }
}
