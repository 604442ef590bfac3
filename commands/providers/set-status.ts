import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import type { ProviderIntegration, ProviderStatus } from '../../src/services/processing/providers';
import { providerIdOf, setProviderStatus } from '../../src/services/processing/providers';
import { atPlatform } from '../../src/cli/context';

export default class ProvidersSetStatus extends BaseCommand<typeof ProvidersSetStatus> {
  static override summary = "Set a provider integration's status: available, maintenance or deprecated (audited).";
  static override examples = [
    '<%= config.bin %> providers set-status 7d3f… maintenance',
    '<%= config.bin %> providers set-status 7d3f… available --json',
  ];
  static override scopeOf = atPlatform();
  static override args = {
    id: Args.string({ description: 'Provider integration id or code (stripe, adyen …)', required: true }),
    status: Args.string({ description: 'New status', required: true, options: ['available', 'maintenance', 'deprecated'] }),
  };

  async run(): Promise<ProviderIntegration> {
    const ctx = await this.scope();
    const provider = await setProviderStatus(ctx, providerIdOf(this.args.id), this.args.status as ProviderStatus);
    this.log(`Provider ${provider.code} (${provider.id}) is now ${provider.status}.`);
    return provider;
  }
}
