import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { Dispatcher } from '../../src/services/webhooks/dispatcher';
import { transportOptionsFromEnv } from '../../src/services/webhooks/transport';

export interface DispatchResult {
  workerId: string;
  stoppedBy: string;
}

export default class WebhooksDispatch extends BaseCommand<typeof WebhooksDispatch> {
  static override summary = 'Run a webhook dispatcher without the HTTP API.';
  static override description =
    'Delivers the outbox: claims due deliveries (several dispatchers and serve processes can share one Postgres; none sends an attempt another has claimed), signs and sends them, and schedules retries. Stops on SIGTERM or SIGINT after the attempts in flight. Env: PAYPLANE_WEBHOOK_ALLOW_CIDRS, PAYPLANE_WEBHOOK_CA_FILE, PAYPLANE_DISPATCH_LEASE_MS, PAYPLANE_DISPATCH_CONCURRENCY.';
  static override examples = [
    '<%= config.bin %> webhooks dispatch',
    'DATABASE_URL=postgres://127.0.0.1/payplane <%= config.bin %> webhooks dispatch --concurrency 32',
  ];
  static override flags = {
    concurrency: Flags.integer({ description: 'Deliveries sent at once', min: 1, max: 256 }),
  };

  async run(): Promise<DispatchResult> {
    const rt = await this.runtime();
    const dispatcher = new Dispatcher(rt, {
      concurrency: this.flags.concurrency,
      transport: transportOptionsFromEnv(process.env, rt.config.home),
    });
    dispatcher.start();
    this.log(`dispatcher ${dispatcher.workerId} running (database: ${rt.db.dialect}) · Ctrl-C to stop`);
    const signal = await this.untilStopped();
    this.log(`${signal}: finishing attempts in flight…`);
    await dispatcher.stop();
    return { workerId: dispatcher.workerId, stoppedBy: signal };
  }
}
