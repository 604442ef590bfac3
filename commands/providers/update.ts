import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import type { ProviderIntegration } from '../../src/services/processing/providers';
import { providerIdOf, updateProvider } from '../../src/services/processing/providers';
import { atPlatform } from '../../src/cli/context';
import { renderProvider } from '../../src/cli/processing';

export default class ProvidersUpdate extends BaseCommand<typeof ProvidersUpdate> {
  static override summary = "Set the base URL a provider integration's connector calls (a regional host, a proxy); audited.";
  static override description =
    'https only. A loopback or private address (or a name that resolves to one) is refused unless PAYPLANE_CONNECTOR_ALLOW_CIDRS ' +
    "lists its range. --reset goes back to the catalog's base URL.";
  static override examples = [
    '<%= config.bin %> providers update adyen --base-url https://checkout-test.adyen.com',
    '<%= config.bin %> providers update stripe --base-url https://stripe-proxy.internal.example --json',
    '<%= config.bin %> providers update stripe --reset',
  ];
  static override scopeOf = atPlatform();
  static override args = { provider: Args.string({ description: 'Provider integration code (stripe, adyen …) or id', required: true }) };
  static override flags = {
    'base-url': Flags.string({ description: 'The https base URL its connector calls', exclusive: ['reset'] }),
    reset: Flags.boolean({ description: "Go back to the catalog's base URL", exclusive: ['base-url'] }),
  };

  async run(): Promise<ProviderIntegration> {
    const id = providerIdOf(this.args.provider);
    const connectorBaseUrl = this.flags.reset
      ? null
      : await this.required(this.flags['base-url'], 'base-url', 'Connector base URL (https)');
    const ctx = await this.scope();
    const provider = await updateProvider(ctx, id, { connectorBaseUrl }, { field: '--base-url' });
    this.log(renderProvider(provider));
    return provider;
  }
}
