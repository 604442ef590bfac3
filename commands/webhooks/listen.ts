import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { chalk } from '../../src/cli/output';
import { ValidationError } from '../../src/domain/errors';
import type { ReceivedDelivery } from '../../src/listener/listener';
import type { WebhookEndpoint } from '../../src/services/webhooks/endpoints';
import { currentSigningSecrets } from '../../src/services/webhooks/endpoints';
import { LocalListener, closeListenerEndpoint, ensureListenerCertificate, openListenerEndpoint } from '../../src/listener/listener';
import { announceListener, withdrawListener } from '../../src/listener/registry';
import { atEndpointLevelOrSandbox, withScope } from '../../src/cli/context';
import { endpointScopeFlags, modeName } from '../../src/cli/webhooks';

export interface ListenResult {
  endpoint: WebhookEndpoint;
  secret: string;
  forwardTo: string | null;
  deliveries: ReceivedDelivery[];
  stoppedBy: string;
}

export default class WebhooksListen extends BaseCommand<typeof WebhooksListen> {
  static override summary = "Receive webhooks on this machine: verify each delivery's signature, print it, forward it to your app.";
  static override description = `Registers a webhook endpoint at https://localhost:<port>/ (the sandbox's merchant by default: .payplane/sandbox.json; or --tenant [--merchant], --platform), prints its signing secret (whsec_…, the same on every run at that level and port) and listens on 127.0.0.1 with a certificate of its own, kept under <home>/webhook-listener/, where it also announces itself while it runs. A dispatcher (serve, webhooks dispatch) sharing that home delivers this endpoint's events to it although it is a loopback address, pinning that certificate (no other endpoint may reach a loopback address, and no other loopback service is ever sent a delivery). Every delivery's signature is verified with the Standard Webhooks library and printed; with --forward-to each verified delivery is posted as received (body and webhook-* headers) to your app, whose status is the answer (so a failing app sees the retries). Ctrl-C disables the endpoint (deliveries do not queue while nobody listens); the next run enables it again with the same secret.`;
  static override examples = [
    '<%= config.bin %> webhooks listen',
    '<%= config.bin %> webhooks listen --event payment.* --event refund.* --forward-to http://localhost:3000/webhooks',
    '<%= config.bin %> webhooks listen --tenant 6f1c… --port 4300',
  ];
  static override flags = {
    ...endpointScopeFlags,
    tenant: withScope(endpointScopeFlags.tenant, atEndpointLevelOrSandbox),
    event: Flags.string({ description: 'Event type, wildcard (payment.*) or * (repeatable)', multiple: true, default: ['*'] }),
    port: Flags.integer({ description: 'Port of 127.0.0.1 to listen on', default: 4243, min: 1, max: 65535 }),
    'forward-to': Flags.string({ description: 'Post each verified delivery to this http(s) URL of your app (its status is the answer)' }),
  };

  async run(): Promise<ListenResult> {
    // Ctrl-C at any moment from here on ends the run through the cleanup below, never half-way
    const stopped = this.untilStopped();
    const forwardTo = this.flags['forward-to'] ? checkForwardUrl(this.flags['forward-to']) : null;
    const rt = await this.runtime();
    const ctx = await this.scope();
    const certificate = await ensureListenerCertificate(rt.config.home, rt.clock.now());
    const deliveries: ReceivedDelivery[] = [];
    let endpointId: string | undefined;
    let shownSecret: string | undefined;
    const receiver = new LocalListener({
      port: this.flags.port,
      certificate,
      // read for each delivery: a rotation while listening is followed, and shown
      secrets: async () => {
        if (!endpointId) return [];
        const secrets = await currentSigningSecrets(ctx, endpointId);
        if (secrets[0] !== shownSecret) {
          shownSecret = secrets[0];
          this.log(`Signing secret is now ${shownSecret} (rotated)`);
        }
        return secrets;
      },
      forwardTo: forwardTo ?? undefined,
      onDelivery: (delivery) => {
        deliveries.push(delivery);
        this.log(describe(delivery));
      },
    });
    // the receiver first (a port in use stops here, before anything is registered), then its endpoint
    await receiver.start();
    try {
      const opened = await openListenerEndpoint(ctx, { port: this.flags.port, events: this.flags.event });
      const { endpoint } = opened;
      endpointId = endpoint.id;
      shownSecret = opened.secrets[0];
      // from now on the dispatchers of this home deliver this endpoint's events here
      announceListener(rt.config.home, { endpointId: endpoint.id, port: this.flags.port, pid: process.pid, cert: certificate.cert });
      try {
        const level =
          endpoint.level === 'merchant'
            ? `merchant ${endpoint.merchantId}`
            : endpoint.level === 'tenant'
              ? `tenant ${endpoint.tenantId}`
              : 'platform';
        // one write: whoever waits for "Ready." reads the signing secret with it
        this.log(
          [
            `${chalk.bold('Ready.')} Listening for ${modeName(endpoint.livemode)} webhooks of ${level} at ${chalk.cyan(endpoint.url)} (endpoint ${endpoint.id}, events ${endpoint.events.join(', ')})`,
            `Signing secret: ${shownSecret}`,
            ...(forwardTo ? [`Forwarding verified deliveries to ${chalk.cyan(forwardTo)}`] : []),
            'Ctrl-C to stop.',
          ].join('\n'),
        );
        const stoppedBy = await stopped;
        const closed = await closeListenerEndpoint(ctx, endpoint.id);
        this.log(`${stoppedBy}: endpoint ${endpoint.id} disabled; ${deliveries.length} deliveries received.`);
        return { endpoint: closed, secret: shownSecret!, forwardTo, deliveries, stoppedBy };
      } finally {
        withdrawListener(rt.config.home, endpoint.id);
      }
    } finally {
      await receiver.stop();
    }
  }
}

function checkForwardUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw ValidationError.field('--forward-to', 'must be a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw ValidationError.field('--forward-to', 'must be an http or https URL');
  return url.toString();
}

/** One line a delivery: time, events, verification, answer. */
function describe(delivery: ReceivedDelivery): string {
  const time = delivery.at.toISOString().slice(11, 19);
  const events = delivery.events.length > 0 ? delivery.events.map((e) => `${chalk.bold(e.type)} ${e.id}`).join(', ') : '(no events)';
  const check = delivery.verified ? chalk.green('signature verified') : chalk.red(`signature NOT verified: ${delivery.error}`);
  const forwarded = delivery.forwarded ? `  → app ${delivery.forwarded.status ?? delivery.forwarded.error}` : '';
  return `${time}  ${events}  ${check}  [${delivery.status}]${forwarded}`;
}
