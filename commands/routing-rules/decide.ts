import { Flags } from '@oclif/core';
import { amountFlagsIn, requiredAmount } from '../../src/cli/payments';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import { validateWith } from '../../src/cli/validate';
import type { RoutingDecision } from '../../src/services/routing/decide';
import { mulberry32 } from '../../src/util/random';
import { decideRoute } from '../../src/services/routing/decide';
import { limitUsage } from '../../src/services/limits/usage';
import { DecideInput, renderDecision } from '../../src/cli/routing';
import { atPlatform } from '../../src/cli/context';

export default class RoutingRulesDecide extends BaseCommand<typeof RoutingRulesDecide> {
  static override summary = 'Dry run: print the routing decision the engine makes for a hypothetical payment.';
  static override description =
    "Evaluates the merchant's tenant's active rules (or the default order) and checks every candidate terminal, with the reasons of each exclusion. Terminal limits count the payments already made. Nothing is written.";
  static override examples = [
    '<%= config.bin %> routing-rules decide --merchant 0b9e… --amount 100.00 --currency EUR --brand visa',
    '<%= config.bin %> routing-rules decide --merchant 0b9e… --amount 100.00 --currency EUR --brand mastercard --country DE --seed 42 --json',
  ];
  static override scopeOf = atPlatform('live-flag');
  static override flags = {
    merchant: Flags.string({ description: 'Merchant id' }),
    ...amountFlagsIn('--currency'),
    currency: Flags.string({ description: 'ISO 4217 currency' }),
    method: Flags.string({ description: 'Payment method (default card)', default: 'card' }),
    brand: Flags.string({ description: 'Card brand (visa, mastercard, …)' }),
    country: Flags.string({ description: 'Card country (ISO alpha-2)' }),
    channel: Flags.string({ description: 'Channel id' }),
    at: Flags.string({ description: 'When (ISO 8601; default now)' }),
    seed: Flags.integer({ description: 'Seed of the random pick of a split (default: random)' }),
    live: sharedFlags.live,
  };

  async run(): Promise<RoutingDecision> {
    const merchantId = await this.required(this.flags.merchant, 'merchant', 'Merchant id');
    const currency = await this.required(this.flags.currency, 'currency', 'Currency (e.g. EUR)');
    const amount = (await requiredAmount(this.flags, currency, (value, flag, question) => this.required(value, flag, question))).valueMinor;
    const input = validateWith(DecideInput, {
      merchant: merchantId,
      amount: { currency, valueMinor: amount },
      method: this.flags.method,
      brand: this.flags.brand,
      country: this.flags.country,
      channel: this.flags.channel,
      at: this.flags.at,
    });
    const rt = await this.runtime();
    const ctx = await this.scope();
    const decision = await decideRoute(
      ctx,
      {
        merchantId: input.merchant,
        channelId: input.channel ?? null,
        amount: input.amount,
        paymentMethod: input.method,
        brand: input.brand ?? null,
        cardCountry: input.country ?? null,
        transactionType: 'payment',
        at: input.at ? new Date(input.at) : rt.clock.now(),
      },
      { usage: (limit, at) => limitUsage(ctx, limit, at), random: this.flags.seed === undefined ? undefined : mulberry32(this.flags.seed) },
    );
    this.log(renderDecision(decision));
    return decision;
  }
}
