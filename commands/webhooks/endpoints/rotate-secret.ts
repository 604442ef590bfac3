import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { chalk } from '../../../src/cli/output';
import type { EndpointWithSecret } from '../../../src/services/webhooks/endpoints';
import { rotateEndpointSecret } from '../../../src/services/webhooks/endpoints';
import { recordArg, recordOwnerFlags } from '../../../src/cli/context';

export default class WebhooksEndpointsRotateSecret extends BaseCommand<typeof WebhooksEndpointsRotateSecret> {
  static override summary = 'Issue a new signing secret; the old one keeps verifying for the grace period.';
  static override description =
    'During the grace period every delivery carries two signatures (old and new secret), so receivers can switch without dropping events. A rotation during a grace period ends the older secret at once.';
  static override examples = [
    '<%= config.bin %> webhooks endpoints rotate-secret 9a4e…',
    '<%= config.bin %> webhooks endpoints rotate-secret 9a4e… --grace-hours 0 --json',
  ];
  static override args = { id: recordArg('webhookEndpoint', { description: 'Webhook endpoint id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    'grace-hours': Flags.integer({ description: 'Hours the previous secret stays valid (0 to 720)', default: 24, min: 0, max: 720 }),
  };

  async run(): Promise<EndpointWithSecret> {
    const ctx = await this.scope();
    const endpoint = await rotateEndpointSecret(ctx, this.args.id, { graceHours: this.flags['grace-hours'] });
    this.log(
      endpoint.previousSecretExpiresAt
        ? `New secret for ${endpoint.id}; the previous one stays valid until ${endpoint.previousSecretExpiresAt}.`
        : `New secret for ${endpoint.id}; the previous one no longer verifies.`,
    );
    this.log(`\n${chalk.bold('Signing secret')} (shown once, store it now):\n${endpoint.secret}`);
    return endpoint;
  }
}
