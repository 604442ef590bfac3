import { Webhook } from 'standardwebhooks';
import { createApiHarness, type ApiHarness } from './api';
import { Receiver, testTls, type Received } from './receiver';
import { about } from './events';
import { money } from './amounts';
import { expectLedgerInvariant } from './ledger';
import { Dispatcher } from '../../src/services/webhooks/dispatcher';
import { runDueSandboxOperations } from '../../src/services/sandbox/acquirer';
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
  /**
   * After settling, the events the endpoint received about the records `ids` (the record, or naming it as its
   * payment), in the order they were raised (event ids are time-ordered UUID v7; deliveries may arrive in any order).
   */
  eventsAbout(...ids: string[]): Promise<Received['body']['events']>;
  /** the types of eventsAbout(...ids), in the order they were raised */
  eventTypesAbout(...ids: string[]): Promise<string[]>;
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
      if (!r.headers['webhook-signature'].split(' ').includes(expected))
        throw new Error(`delivery ${r.headers['webhook-id']}: bad signature`);
      return (JSON.parse(r.raw) as Received['body']).events[0];
    });
  const eventsAbout = async (...ids: string[]) => {
    await settle();
    const isAbout = about(...ids);
    return events()
      .filter((e) => isAbout(e.data))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  };
  const eventTypesAbout = async (...ids: string[]) => (await eventsAbout(...ids)).map((e) => e.type);
  const close = async () => {
    await receiver.close();
    await h.close();
  };
  return { ...h, dispatcher, receiver, endpoint, settle, events, eventsAbout, eventTypesAbout, close };
}

export interface MoneyHarnessOptions {
  config?: Partial<AppConfig>;
  /** check the ledger invariant (test/helpers/ledger.ts) after each test, or once after all of them */
  ledger?: 'afterEach' | 'afterAll';
}

/**
 * Registers the money harness a test file shares: made before all (the returned object is filled then), closed after
 * all, the ledger invariant checked as `options.ledger` says (before the close).
 */
export function useMoneyHarness(options: MoneyHarnessOptions = {}): MoneyHarness {
  const m = {} as MoneyHarness;
  beforeAll(async () => {
    Object.assign(m, await createMoneyHarness({ config: options.config }));
  });
  if (options.ledger === 'afterEach') afterEach(() => expectLedgerInvariant(m.rt));
  afterAll(async () => {
    try {
      if (options.ledger === 'afterAll' && m.rt) await expectLedgerInvariant(m.rt);
    } finally {
      await m.close?.();
    }
  });
  return m;
}

/** What POST /v1/checkout-sessions answers: the fields the tests read, the rest as the API has it. */
export interface OpenedSession {
  id: string;
  clientSecret: string;
  url: string;
  [field: string]: any;
}

/**
 * Opens a checkout session with `body` (its amount included), by the sandbox merchant unless `key` is another caller's
 * (a tenant's names body.merchantId). Fails unless the API answers 201.
 */
export async function openSession(h: ApiHarness, body: object = {}, key = h.sandbox.merchantKey.secretKey): Promise<OpenedSession> {
  const res = await h.as(key).post('/v1/checkout-sessions', body);
  if (res.status !== 201) throw new Error(`session: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** A card as the tests pay with it: `number`, expiring 12/2030, CVC 123 (unless `more` says otherwise). */
export const testCard = (number: string, more: object = {}) => ({ number, expMonth: 12, expYear: 2030, cvc: '123', ...more });

/**
 * Completes the session `sessionId` with a card (a card object, or a number for testCard) as `key` (the sandbox
 * merchant's by default; a session's client secret pays as the customer). Fails unless the API answers 200.
 */
export async function completeWithCard(h: ApiHarness, sessionId: string, card: string | object, key = h.sandbox.merchantKey.secretKey) {
  const res = await h.as(key).post(`/v1/checkout-sessions/${sessionId}/complete`, {
    paymentMethod: { type: 'card', card: typeof card === 'string' ? testCard(card) : card },
  });
  if (res.status !== 200) throw new Error(`complete: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { paymentId: string; [field: string]: any };
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
  const key = options.asTenant ? m.sandbox.tenantKey.secretKey : m.sandbox.merchantKey.secretKey;
  const session = await openSession(
    m,
    {
      amount: money(options.currency ?? 'EUR', options.amount ?? 10_000),
      captureMethod: options.captureMethod ?? 'automatic',
      successUrl: 'https://shop.example/ok',
      cancelUrl: 'https://shop.example/cancel',
      ...(options.asTenant ? { merchantId: m.sandbox.merchantId } : {}),
    },
    key,
  );
  const completed = await completeWithCard(m, session.id, testCard(number, { cvc: options.cvc ?? '123', holderName: 'Ada Lovelace' }), key);
  if (options.settle !== false) await m.settle();
  const paymentId = completed.paymentId;
  const payment = await m.as(m.sandbox.tenantKey.secretKey).get(`/v1/payments/${paymentId}`);
  return { session: completed, sessionId: session.id, clientSecret: session.clientSecret, paymentId, payment: payment.body.data };
}
