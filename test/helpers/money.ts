import { Webhook } from 'standardwebhooks';
import { createApiHarness, type ApiHarness } from './api';
import { Receiver, testTls, type Received } from './receiver';
import { Dispatcher } from '../../src/services/webhooks/dispatcher';
import { runDueSandboxOperations } from '../../src/jobs/sandbox-acquirer';
import type { AppConfig } from '../../src/config';

/** A harness for the money path: sandbox acquirer answering at once, a merchant endpoint on a local HTTPS receiver. */
export interface MoneyHarness extends ApiHarness {
  dispatcher: Dispatcher;
  receiver: Receiver;
  endpoint: { id: string; secret: string };
  /** runs due sandbox-acquirer answers and webhook deliveries until nothing is left */
  settle(): Promise<void>;
  /** events the merchant endpoint received, each verified against its signature */
  events(): Received['body']['events'];
  close(): Promise<void>;
}

export async function createMoneyHarness(options: { config?: Partial<AppConfig> } = {}): Promise<MoneyHarness> {
  const h = await createApiHarness({ config: { sandboxDelayMs: 0, ...options.config } });
  const receiver = await new Receiver().start();
  const dispatcher = new Dispatcher(h.rt, { transport: { allowCidrs: ['127.0.0.1/32', '::1/128'], caFile: testTls().caFile } });
  const created = await h.as(h.sandbox.merchantKey.secretKey).post('/v1/webhooks/endpoints', { url: receiver.url(), events: ['*'] });
  if (created.status !== 201) throw new Error(`endpoint: ${created.status} ${JSON.stringify(created.body)}`);
  const endpoint = { id: created.body.data.id as string, secret: created.body.data.secret as string };
  const settle = async () => {
    for (let round = 0; round < 100; round++) {
      const answered = await runDueSandboxOperations(h.rt);
      const delivered = await dispatcher.runOnce();
      if (answered + delivered === 0) return;
    }
    throw new Error('the money path did not settle in 100 rounds');
  };
  const webhook = new Webhook(endpoint.secret);
  // the signature is checked against its own timestamp (the harness's clock is not the wall clock)
  const events = () =>
    receiver.received.map((r) => {
      const expected = webhook.sign(r.headers['webhook-id'], new Date(Number(r.headers['webhook-timestamp']) * 1000), r.raw);
      if (!r.headers['webhook-signature'].split(' ').includes(expected)) throw new Error(`delivery ${r.headers['webhook-id']}: bad signature`);
      return (JSON.parse(r.raw) as Received['body']).events[0];
    });
  const close = async () => {
    await receiver.close();
    await h.close();
  };
  return { ...h, dispatcher, receiver, endpoint, settle, events, close };
}

export interface PayOptions {
  amount?: number;
  currency?: string;
  captureMethod?: 'automatic' | 'manual';
  cvc?: string;
  /** a tenant key pays for the sandbox merchant instead of the merchant key */
  asTenant?: boolean;
  settle?: boolean;
}

/** Creates a checkout session and completes it with a card; settles the asynchronous answers unless told not to. */
export async function payWithCard(m: MoneyHarness, number: string, options: PayOptions = {}) {
  const caller = m.as(options.asTenant ? m.sandbox.tenantKey.secretKey : m.sandbox.merchantKey.secretKey);
  const session = await caller.post('/v1/checkout-sessions', {
    amount: { currency: options.currency ?? 'EUR', valueMinor: options.amount ?? 10_000 },
    captureMethod: options.captureMethod ?? 'automatic',
    successUrl: 'https://shop.example/ok',
    cancelUrl: 'https://shop.example/cancel',
    ...(options.asTenant ? { merchantId: m.sandbox.merchantId } : {}),
  });
  if (session.status !== 201) throw new Error(`session: ${session.status} ${JSON.stringify(session.body)}`);
  const completed = await caller.post(`/v1/checkout-sessions/${session.body.data.id}/complete`, {
    paymentMethod: { type: 'card', card: { number, expMonth: 12, expYear: 2030, cvc: options.cvc ?? '123', holderName: 'Ada Lovelace' } },
  });
  if (completed.status !== 200) throw new Error(`complete: ${completed.status} ${JSON.stringify(completed.body)}`);
  if (options.settle !== false) await m.settle();
  const paymentId = completed.body.data.paymentId as string;
  const payment = await m.as(m.sandbox.tenantKey.secretKey).get(`/v1/payments/${paymentId}`);
  return { session: completed.body.data, sessionId: session.body.data.id as string, clientSecret: session.body.data.clientSecret as string, paymentId, payment: payment.body.data };
}
