import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import type { ProviderIntegration } from '../../src/services/processing/providers';
import { getProvider, providerIdOf } from '../../src/services/processing/providers';
import { atPlatform } from '../../src/cli/context';
import { renderProvider } from '../../src/cli/processing';

export default class ProvidersGet extends BaseCommand<typeof ProvidersGet> {
  static override summary = 'Show a provider integration: capabilities, features, 3DS and the credentials a terminal needs.';
  static override examples = ['<%= config.bin %> providers get 7d3f…', '<%= config.bin %> providers get 7d3f… --json'];
  static override scopeOf = atPlatform();
  static override args = { id: Args.string({ description: 'Provider integration id or code (stripe, adyen …)', required: true }) };

  async run(): Promise<ProviderIntegration> {
    const ctx = await this.scope();
    const provider = await getProvider(ctx, providerIdOf(this.args.id));
    this.log(renderProvider(provider));
    return provider;
  }
}
