import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { validateInput } from '../../src/cli/validate';
import { CreateTerminalBody } from '../../src/api/processing/schemas';
import type { Terminal } from '../../src/services/processing/terminals/record';
import { createTerminal } from '../../src/services/processing/terminals/terminals';
import { askMissingCredentials, credentialFlags, credentialsGiven, renderTerminal } from '../../src/cli/processing';
import { providerCatalog, providerIdOf } from '../../src/services/processing/providers';
import { atPlatform } from '../../src/cli/context';

export default class TerminalsCreate extends BaseCommand<typeof TerminalsCreate> {
  static override summary =
    'Create a terminal of a tenant at a provider integration; the credentials are stored encrypted and never shown.';
  static override examples = [
    '<%= config.bin %> terminals create --tenant 6f1c… --provider 7d3f… --name "EU cards" --currency EUR --currency USD --credentials-file creds.json',
    '<%= config.bin %> terminals create --tenant 6f1c… --provider 7d3f… --name Payouts --currency EUR --credential accountId=acc-1 --credential signingKey=… --json',
    '<%= config.bin %> terminals create --tenant 6f1c… --provider stripe --name "Stripe EU" --currency EUR --livemode',
  ];
  static override description =
    "On a terminal, each credential of the provider's credentialSchema not given by --credentials-file or --credential is asked " +
    'for (secret ones without echo); in a script they must all be given.';
  static override scopeOf = atPlatform();
  static override flags = {
    tenant: Flags.string({ description: 'Tenant id the terminal belongs to', required: true }),
    provider: Flags.string({ description: 'Provider integration code (stripe, adyen …) or id (payplane providers list)' }),
    livemode: Flags.boolean({
      description:
        "A live terminal: the acquirer's live environment, with live credentials (default: a sandbox terminal, test credentials)",
      default: false,
    }),
    name: Flags.string({ description: 'Display name' }),
    currency: Flags.string({ description: 'Supported currency (repeatable; at least one)', multiple: true }),
    brand: Flags.string({ description: 'Supported card brand (repeatable; default: every brand of the provider)', multiple: true }),
    method: Flags.string({
      description: 'Supported payment method type (repeatable; default: every method of the provider)',
      multiple: true,
    }),
    direction: Flags.string({ description: 'payin or payout (default: from the provider)', options: ['payin', 'payout'] }),
    mcc: Flags.string({ description: 'Merchant category code (4 digits)' }),
    descriptor: Flags.string({ description: 'Statement descriptor' }),
    'cost-schedule': Flags.string({ description: 'Provider cost schedule id' }),
    ...credentialFlags,
  };

  async run(): Promise<Terminal> {
    const provider = await this.required(this.flags.provider, 'provider', 'Provider integration (code or id)');
    const providerIntegrationId = providerIdOf(provider);
    const name = await this.required(this.flags.name, 'name', 'Terminal name');
    const supportedCurrencies = this.flags.currency ?? [await this.required(undefined, 'currency', 'Currency (e.g. EUR)')];
    const schema = providerCatalog().find((p) => p.id === providerIntegrationId)!.credentialSchema;
    const credentials = await askMissingCredentials(schema, credentialsGiven(this.flags), {
      interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY) && !this.jsonEnabled(),
    });
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      CreateTerminalBody,
      {
        tenantId: this.flags.tenant,
        providerIntegrationId,
        name,
        credentials,
        supportedCurrencies,
        supportedBrands: this.flags.brand,
        supportedPaymentMethodTypes: this.flags.method,
        direction: this.flags.direction,
        mcc: this.flags.mcc,
        descriptor: this.flags.descriptor,
        providerCostScheduleId: this.flags['cost-schedule'],
        livemode: this.flags.livemode,
      },
      {
        tenantId: 'tenant',
        providerIntegrationId: 'provider',
        supportedCurrencies: 'currency',
        supportedBrands: 'brand',
        supportedPaymentMethodTypes: 'method',
        providerCostScheduleId: 'cost-schedule',
      },
    );
    const terminal = await createTerminal(ctx, input);
    this.log(renderTerminal(terminal));
    return terminal;
  }
}
