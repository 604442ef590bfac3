import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import type { RiskDryRun } from '../../src/services/risk/dry-run';
import { dryRunRisk } from '../../src/services/risk/dry-run';
import { namingFlags, riskScopeFlags } from '../../src/cli/risk/input';
import { paymentFields, paymentInput, renderDryRun } from '../../src/cli/risk/dry-run';
import { asOperatorOfTenantOrPlatform, withScope } from '../../src/cli/context';

export default class RiskEvaluate extends BaseCommand<typeof RiskEvaluate> {
  static override summary =
    "Dry run: the risk engine's decision for a hypothetical payment (score, thresholds, matched rules, reason). Nothing is written.";
  static override description = [
    'The payment is a JSON object (a file path or inline JSON): merchantId, amount {currency, valueMinor}, and optionally channelId, card',
    '({number} — summarized as a checkout does, so its fingerprint is the one a real payment gets — or {fingerprint, bin, brand, country}),',
    'customerInfo {email, ipAddress, customerReference}, threeDSResult, at (ISO 8601; default now). --merchant replaces merchantId.',
    'The engine reads the same plans, rules, lists, configuration and recent payments as a checkout: the same input gives the same decision.',
  ].join(' ');
  static override examples = [
    '<%= config.bin %> risk evaluate --payment-json payment.json',
    '<%= config.bin %> risk evaluate --merchant 9f8e… --payment-json \'{"amount":{"currency":"EUR","valueMinor":2500},"card":{"number":"4242424242424242"}}\' --json',
    '<%= config.bin %> risk evaluate --payment-json payment.json --tenant 6f1c… --live',
  ];
  static override flags = {
    'payment-json': Flags.string({ description: 'The hypothetical payment: a JSON file path or inline JSON' }),
    merchant: Flags.string({ description: "Merchant id (replaces the payment's merchantId)" }),
    tenant: withScope(
      Flags.string({
        description: "Act as this tenant's operator (404 when the merchant is another tenant's); default: the merchant's tenant",
      }),
      asOperatorOfTenantOrPlatform,
    ),
    live: riskScopeFlags.live,
  };

  async run(): Promise<RiskDryRun> {
    const json = await this.required(this.flags['payment-json'], 'payment-json', 'Payment JSON (a file path or inline JSON)');
    const input = paymentInput(json, this.flags.merchant);
    // without --tenant the platform: the engine names the subject's tenant in every query, the platform's view of the
    // merchant is enough
    const ctx = await this.scope();
    const run = await namingFlags(paymentFields(this.flags.merchant), () => dryRunRisk(ctx, input));
    this.log(renderDryRun(run));
    return run;
  }
}
