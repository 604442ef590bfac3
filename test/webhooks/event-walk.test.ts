import crypto from 'node:crypto';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { dialectName } from '../helpers/db';
import { useMoneyHarness, payWithCard } from '../helpers/money';
import { Receiver } from '../helpers/receiver';
import { TEST_IBAN, saveMethod, withdrawalSettings } from '../helpers/withdrawals';
import { eventCatalog, eventResource } from '../../src/services/webhooks/catalog';
import { releaseDue } from '../../src/services/ledger/releases';
import { finalizeDue } from '../../src/services/settlements/statements';
import { runPayouts } from '../../src/services/payouts/run';
import { expireDueDisputes } from '../../src/services/disputes/disputes';
import { SANDBOX_FAILING_IBAN } from '../../src/connectors/sandbox-payout';

/**
 * Every event type of the catalog (fixtures/events.json), raised through real operations (the API, the sandbox
 * acquirer's answers, the jobs), delivered by the dispatcher and checked with the Standard Webhooks library
 * (issue 23, item 6): a type the platform lists but nothing raises fails here, and so does a sample.
 *
 * Each step names the types it raises; the walk fails when the steps do not cover the catalog exactly, so a new
 * type needs a real producer and a step here. Merchant-level types are checked at the merchant's endpoint,
 * tenant-level ones at the tenant's; each event whose group has a record (payment, refund, …) names a record the
 * API then shows.
 */

// captured funds are available at once (the release job still moves them), so that withdrawals can be paid
const m = useMoneyHarness({ config: { holdingPeriodHours: 0 } });
let tenantReceiver: Receiver;
let tenantSecret: string;
const extra: Receiver[] = [];

const VISA = '4242424242424242';
const DECLINED = '4000000000000002';
const THREE_DS = '4000002760003184';
const REFUND_FAILS = '4000000000005126';
const DISPUTED = '4000000000000259';
const AVAILABLE_AT_ONCE = '4000000000000077';

beforeAll(async () => {
  tenantReceiver = await new Receiver().start();
  const endpoint = await m.as(tenantKey()).post('/v1/admin/webhook-endpoints', { url: tenantReceiver.url(), events: ['*'] });
  expect(endpoint.status).toBe(201);
  tenantSecret = endpoint.body.data.secret;
}, 60_000);

afterAll(async () => {
  await Promise.all([tenantReceiver?.close(), ...extra.map((r) => r.close())]);
});

const tenantKey = () => m.sandbox.tenantKey.secretKey;
const merchantKey = () => m.sandbox.merchantKey.secretKey;
const tenant = () => m.as(tenantKey());
const merchant = () => m.as(merchantKey());

async function ok(res: Promise<request.Response> | request.Response, status = 200): Promise<request.Response> {
  const r = await res;
  if (r.status !== status) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return r;
}

async function receiver(reply: Receiver['reply']): Promise<Receiver> {
  const r = await new Receiver().start();
  r.reply = reply;
  extra.push(r);
  return r;
}

interface Delivered {
  type: string;
  data: Record<string, unknown>;
  endpoint: 'merchant' | 'tenant';
}

/** What an endpoint received, each delivery checked against its Standard Webhooks signature. */
function verified(r: Receiver, secret: string, endpoint: Delivered['endpoint']): Delivered[] {
  const webhook = new Webhook(secret);
  return r.received.map((got) => {
    // the library's own signature over the delivery's id, timestamp and raw body (the harness's clock is not the
    // wall clock, so verify()'s five-minute window is checked against the delivery's own timestamp)
    const expected = webhook.sign(got.headers['webhook-id'], new Date(Number(got.headers['webhook-timestamp']) * 1000), got.raw);
    expect(got.headers['webhook-signature'].split(' ')).toContain(expected);
    const body = JSON.parse(got.raw) as { events: Array<{ type: string; data: Record<string, unknown> }> };
    expect(body.events).toHaveLength(1);
    return { type: body.events[0].type, data: body.events[0].data, endpoint };
  });
}

const all = () => [...verified(m.receiver, m.endpoint.secret, 'merchant'), ...verified(tenantReceiver, tenantSecret, 'tenant')];

/** A step of the walk: what it raises and how. */
interface Step {
  raises: string[];
  run(): Promise<void>;
}

let fingerprint = '';

const STEPS: Step[] = [
  {
    raises: [
      'checkout.session.created',
      'checkout.session.completed',
      'payment.created',
      'payment.processing',
      'payment.succeeded',
      'payment.captured',
    ],
    async run() {
      const paid = await payWithCard(m, VISA);
      expect(paid.payment.status).toBe('captured');
      fingerprint = paid.payment.card.fingerprint;
    },
  },
  {
    // a refund right after the capture: the funds are still pending, so the available balance goes below zero
    raises: ['refund.created', 'refund.succeeded', 'balance.negative'],
    async run() {
      const paid = await payWithCard(m, VISA, { amount: 4_000 });
      await ok(merchant().post(`/v1/payments/${paid.paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 1_500 } }), 201);
      await m.settle();
    },
  },
  {
    raises: ['refund.failed'],
    async run() {
      const paid = await payWithCard(m, REFUND_FAILS);
      await ok(merchant().post(`/v1/payments/${paid.paymentId}/refunds`, {}), 201);
      await m.settle();
    },
  },
  {
    raises: ['payment.failed'],
    async run() {
      expect((await payWithCard(m, DECLINED)).payment.status).toBe('failed');
    },
  },
  {
    raises: ['payment.requires_action'],
    async run() {
      expect((await payWithCard(m, THREE_DS)).payment.status).toBe('requires_action');
    },
  },
  {
    raises: ['payment.requires_capture', 'payment.canceled'],
    async run() {
      const held = await payWithCard(m, VISA, { captureMethod: 'manual' });
      expect(held.payment.status).toBe('requires_capture');
      await ok(merchant().post(`/v1/payments/${held.paymentId}/cancel`, {}));
      await m.settle();
    },
  },
  {
    raises: ['checkout.session.expired'],
    async run() {
      const session = await ok(
        merchant().post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 900 }, successUrl: 'https://shop.example/ok' }),
        201,
      );
      await ok(merchant().post(`/v1/checkout-sessions/${session.body.data.id}/expire`, {}));
    },
  },
  {
    // a threshold just above the pending balance; the next capture crosses it
    raises: ['balance.threshold_reached'],
    async run() {
      const balances = await ok(merchant().get('/v1/balances'));
      const eur = (balances.body.data as Array<{ currency: string; pending: { valueMinor: number } }>).find((b) => b.currency === 'EUR');
      await ok(
        merchant().post('/v1/balance-thresholds', {
          balanceType: 'pending',
          direction: 'above',
          amount: { currency: 'EUR', valueMinor: (eur?.pending.valueMinor ?? 0) + 1 },
        }),
        201,
      );
      await payWithCard(m, VISA, { amount: 6_000 });
    },
  },
  {
    // the sandbox's fraud dispute card: captured, then disputed by the acquirer; evidence, submitted, won; another accepted
    raises: ['dispute.created', 'dispute.updated', 'dispute.won', 'dispute.lost'],
    async run() {
      const disputeOf = async () => {
        const paid = await payWithCard(m, DISPUTED);
        const list = await ok(merchant().get(`/v1/disputes?paymentId=${paid.paymentId}`));
        expect(list.body.data).toHaveLength(1);
        return list.body.data[0].id as string;
      };
      const won = await disputeOf();
      await ok(merchant().patch(`/v1/disputes/${won}`, { evidence: { productDescription: 'A walk in the park' } }));
      await ok(merchant().post(`/v1/disputes/${won}/submit`, { evidence: { uncategorizedText: 'winning_evidence' } }));
      await m.settle();
      expect((await ok(merchant().get(`/v1/disputes/${won}`))).body.data.status).toBe('won');
      await ok(merchant().post(`/v1/disputes/${await disputeOf()}/accept`, {}));
    },
  },
  {
    // the holding period is 0 hours here: the release job moves every captured payment's funds to available
    raises: ['balance.available'],
    async run() {
      m.clock.advance(60_000);
      expect(await releaseDue(m.rt)).toBeGreaterThan(0);
    },
  },
  {
    raises: [
      'withdrawal.created',
      'withdrawal.approved',
      'withdrawal.succeeded',
      'withdrawal.failed',
      'withdrawal.rejected',
      'withdrawal.canceled',
    ],
    async run() {
      await withdrawalSettings(m, { withdrawalCoolingPeriodHours: 0, withdrawalMakerChecker: false });
      const method = await saveMethod(m, 'Walk account', TEST_IBAN);
      expect(method.status).toBe('active');
      let n = 0;
      const request = async () =>
        (
          await ok(
            merchant()
              .post('/v1/withdrawals', { amount: { currency: 'EUR', valueMinor: 500 }, withdrawalMethodId: method.id })
              .set('Idempotency-Key', `walk-withdrawal-${n++}`),
            201,
          )
        ).body.data.id as string;
      const executed = async (id: string) => {
        await ok(tenant().post(`/v1/withdrawals/${id}/approve`, {}));
        await ok(tenant().post(`/v1/withdrawals/${id}/start-execution`, {}));
      };
      const paid = await request();
      await executed(paid);
      await ok(tenant().post(`/v1/withdrawals/${paid}/complete`, { providerReference: 'bank-walk-1' }));
      const bounced = await request();
      await executed(bounced);
      await ok(tenant().post(`/v1/withdrawals/${bounced}/fail`, { comment: 'The bank refused the transfer.' }));
      await ok(tenant().post(`/v1/withdrawals/${await request()}/reject`, { rejectionReason: 'Not this week.' }));
      await ok(merchant().post(`/v1/withdrawals/${await request()}/cancel`, {}));
    },
  },
  {
    // a daily payout schedule: today's run pays the available balance out; tomorrow's, to the sandbox's failing IBAN, fails
    raises: ['payout.created', 'payout.succeeded', 'payout.failed'],
    async run() {
      const good = await saveMethod(m, 'Payout account', TEST_IBAN);
      await ok(merchant().put('/v1/payout-schedule', { interval: 'daily', withdrawalMethodId: good.id }));
      const today = await runPayouts(m.rt, { tenantId: m.sandbox.tenantId, modes: [false] });
      expect([today.created.length, today.paid.length]).toEqual([1, 1]);
      const closed = await saveMethod(m, 'Closed account', SANDBOX_FAILING_IBAN);
      await ok(merchant().put('/v1/payout-schedule', { interval: 'daily', withdrawalMethodId: closed.id }));
      await payWithCard(m, AVAILABLE_AT_ONCE, { amount: 3_000 });
      m.clock.advance(24 * 3_600_000);
      const tomorrow = await runPayouts(m.rt, { tenantId: m.sandbox.tenantId, modes: [false] });
      expect([tomorrow.created.length, tomorrow.failed.length]).toEqual([1, 1]);
    },
  },
  {
    raises: ['merchant.created'],
    async run() {
      await ok(tenant().post('/v1/admin/merchants', { companyId: m.sandbox.companyId, name: 'Walk Merchant' }), 201);
    },
  },
  {
    raises: ['kyb.submitted'],
    async run() {
      const draft = await ok(
        merchant().post('/v1/kyb-submissions', {
          data: {
            legalName: 'Walk Trading GmbH',
            registrationNumber: 'HRB 4242',
            country: 'DE',
            incorporationDate: '2019-04-01',
            website: 'https://walk.example',
            registeredAddress: { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
            owners: [{ name: 'Ada Lovelace', ownershipPercent: 100, nationality: 'GB' }],
          },
        }),
        201,
      );
      const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), crypto.randomBytes(1_000)]);
      await ok(
        request(m.app)
          .post(`/v1/kyb-submissions/${draft.body.data.id}/documents?type=certificate_of_incorporation`)
          .set('Authorization', `Bearer ${merchantKey()}`)
          .set('Content-Type', 'application/pdf')
          .send(pdf),
        201,
      );
      await ok(merchant().post(`/v1/kyb-submissions/${draft.body.data.id}/submit`, {}));
    },
  },
  {
    // the first payment's card on a block list: the next payment with it is declined by the risk engine
    raises: ['fraud.alert'],
    async run() {
      const group = await ok(tenant().post('/v1/admin/list-groups', { name: 'Walk blocked cards', entryType: 'card_fingerprint' }), 201);
      await ok(tenant().post(`/v1/admin/list-groups/${group.body.data.id}/entries`, { value: fingerprint, note: 'walk' }), 201);
      const rule = await ok(
        tenant().post('/v1/admin/scoring-rules', {
          name: 'Walk block',
          signal: 'block',
          priority: 100,
          scoreImpact: 100,
          conditions: [{ field: 'card_fingerprint', operator: 'in_list', value: group.body.data.id }],
        }),
        201,
      );
      const plan = await ok(
        tenant().post('/v1/admin/antifraud-plans', { name: 'Walk plan', ruleIds: [rule.body.data.id], enabled: true }),
        201,
      );
      expect((await payWithCard(m, VISA)).payment.errorCode).toBe('RISK_DECLINED');
      await ok(tenant().post(`/v1/admin/antifraud-plans/${plan.body.data.id}/disable`, {}));
    },
  },
  {
    // a currency none of the sandbox terminals takes: no eligible terminal
    raises: ['routing.alert'],
    async run() {
      const session = await ok(
        merchant().post('/v1/checkout-sessions', { amount: { currency: 'GBP', valueMinor: 2_000 }, successUrl: 'https://shop.example/ok' }),
        201,
      );
      await merchant().post(`/v1/checkout-sessions/${session.body.data.id}/complete`, {
        paymentMethod: { type: 'card', card: { number: VISA, expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ada Lovelace' } },
      });
      await m.settle();
    },
  },
  {
    // an endpoint that fails its only attempt, and one whose receiver answers 410 Gone
    raises: ['webhook.delivery_failed', 'webhook.endpoint_disabled'],
    async run() {
      const failing = await receiver(() => ({ status: 500 }));
      const gone = await receiver(() => ({ status: 410 }));
      const once = await ok(merchant().post('/v1/webhooks/endpoints', { url: failing.url(), events: ['payment.captured'] }), 201);
      await ok(merchant().patch(`/v1/webhooks/endpoints/${once.body.data.id}`, { maxAttempts: 1 }));
      await ok(merchant().post('/v1/webhooks/endpoints', { url: gone.url(), events: ['payment.captured'] }), 201);
      await payWithCard(m, VISA);
      await m.settle();
      expect(failing.received).toHaveLength(1);
      expect(gone.received).toHaveLength(1);
    },
  },
  {
    // the day ends: the settlements job finalizes the day's statements
    raises: ['settlement.finalized'],
    async run() {
      m.clock.advance(25 * 3_600_000);
      expect(await finalizeDue(m.rt)).toBeGreaterThan(0);
    },
  },
  {
    // a dispute nobody answers: past its evidenceDueBy the dispute-deadlines job loses it here first, then the sandbox
    // acquirer's own decision at the deadline arrives for the closed dispute: kept on it, told to the tenant
    raises: ['dispute.late_decision'],
    async run() {
      const paid = await payWithCard(m, DISPUTED);
      const dispute = (await ok(merchant().get(`/v1/disputes?paymentId=${paid.paymentId}`))).body.data[0];
      m.clock.set(new Date(new Date(dispute.evidenceDueBy).getTime() + 1_000));
      expect(await expireDueDisputes(m.rt)).toBe(1);
      await m.settle();
      expect((await ok(tenant().get(`/v1/disputes/${dispute.id}`))).body.data).toMatchObject({
        status: 'lost',
        closedReason: 'evidence_deadline',
        acquirerOutcome: 'lost',
      });
    },
  },
];

/** The record behind an event's data, as the API shows it to the tenant (null: the group has no record of its own). */
const RECORD_PATH: Record<string, (id: string) => string> = {
  payment: (id) => `/v1/payments/${id}`,
  refund: (id) => `/v1/refunds/${id}`,
  checkout: (id) => `/v1/checkout-sessions/${id}`,
  withdrawal: (id) => `/v1/withdrawals/${id}`,
  merchant: (id) => `/v1/admin/merchants/${id}`,
  dispute: (id) => `/v1/disputes/${id}`,
  settlement: (id) => `/v1/settlements/${id}`,
  payout: (id) => `/v1/payouts/${id}`,
};

describe(`every event type of the catalog, raised by real operations (${dialectName})`, () => {
  test('the steps cover the catalog exactly', () => {
    const raised = STEPS.flatMap((s) => s.raises);
    expect(new Set(raised).size).toBe(raised.length);
    expect([...raised].sort()).toEqual(
      eventCatalog()
        .map((e) => e.type)
        .sort(),
    );
  });

  test('each step raises its types; every event is delivered, signed, to an endpoint of its level, and names a real record', async () => {
    const catalog = new Map(eventCatalog().map((e) => [e.type, e]));
    for (const step of STEPS) {
      const before = all().length;
      await step.run();
      await m.settle();
      const got = all()
        .slice(before)
        .map((e) => e.type);
      // each type the step names reached an endpoint (other types may come along: a payment raises several)
      expect([step.raises, step.raises.filter((t) => !got.includes(t))]).toEqual([step.raises, []]);
    }
    const delivered = all();
    for (const event of delivered) {
      const entry = catalog.get(event.type);
      expect([event.type, entry !== undefined]).toEqual([event.type, true]);
      // a real event: never a sample, and a tenant-level one never at a merchant's endpoint
      expect([event.type, event.data.sample ?? false]).toEqual([event.type, false]);
      if (entry!.level === 'tenant') expect([event.type, event.endpoint]).toEqual([event.type, 'tenant']);
    }
    // each merchant-level type also reached the merchant's own endpoint
    for (const entry of STEPS.flatMap((s) => s.raises).map((type) => catalog.get(type)!)) {
      if (entry.level !== 'merchant') continue;
      expect([entry.type, delivered.some((e) => e.type === entry.type && e.endpoint === 'merchant')]).toEqual([entry.type, true]);
    }
    // what a receiver orders a record's events by (deliveries may arrive in any order): each record's event carries
    // the record's updatedAt (its version as of the event) beside the event's own createdAt
    for (const event of delivered) {
      if (!eventResource(event.type)) continue;
      expect([event.type, typeof event.data.updatedAt]).toEqual([event.type, 'string']);
    }
    // the record each event names is one the API shows
    const checked = new Set<string>();
    for (const event of delivered) {
      const path = RECORD_PATH[event.type.split('.')[0]];
      if (!path || typeof event.data.id !== 'string' || checked.has(event.type)) continue;
      checked.add(event.type);
      const res = await tenant().get(path(event.data.id));
      expect([event.type, res.status, res.body.data?.id]).toEqual([event.type, 200, event.data.id]);
    }
  }, 180_000);
});
