import { dialectName } from '../helpers/db';
import { useMoneyHarness, payWithCard } from '../helpers/money';
import { Receiver } from '../helpers/receiver';
import { saveMethod, withdrawalSettings } from '../helpers/withdrawals';
import { fundMerchant } from '../helpers/funding';
import { operations } from '../../src/api';
import { buildOpenApiDocument } from '../../src/http/openapi';
import { RESOURCES } from '../../src/api/views';
import type { RecordKindName as ResourceKind } from '../../src/domain/record-kinds';
import type { Level } from '../../src/domain/context';
import { AUDIT_TARGETS } from '../../src/services/audit/targets';
import { eventCatalog, eventResource } from '../../src/services/webhooks/catalog';

/**
 * Field visibility is declared once, on the schemas (issue 21, item 6): the event data of every event type that carries
 * a record is rendered through that record's schema, so a merchant endpoint receives exactly the fields of the merchant's
 * API answer for the record, and a tenant endpoint those of the tenant's answer. Records made through the API, events
 * delivered to a merchant and a tenant endpoint, each compared with the API answer of its record at the same level.
 */

type Event = { id: string; type: string; data: Record<string, unknown> };

/** What the two values differ in, field by field: keys present on one side only, at every depth where both are objects or lists. */
function fieldDifferences(event: unknown, answer: unknown, path = ''): string[] {
  if (Array.isArray(event) && Array.isArray(answer)) {
    return event.slice(0, answer.length).flatMap((item, i) => fieldDifferences(item, answer[i], `${path}[${i}]`));
  }
  const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(event) || !isObject(answer)) return [];
  const keys = new Set([...Object.keys(event), ...Object.keys(answer)]);
  return [...keys].flatMap((key) => {
    const at = path ? `${path}.${key}` : key;
    if (!(key in event)) return [`${at}: only in the API answer`];
    if (!(key in answer)) return [`${at}: only in the event`];
    return fieldDifferences(event[key], answer[key], at);
  });
}

/** The single-record GET of the kind a caller of the level may call: its path with {id}. */
function readPath(kind: ResourceKind, level: Level): string {
  const code = { merchant: 'M', tenant: 'T', platform: 'P' }[level];
  const op = operations.find(
    (o) =>
      o.method === 'get' &&
      o.kind === 'single' &&
      o.response === RESOURCES[kind] &&
      o.path.endsWith('/{id}') &&
      o.levels.includes(code as never),
  );
  if (!op) throw new Error(`no GET of a ${kind} for ${level} callers`);
  return op.path;
}

const m = useMoneyHarness();
let tenantReceiver: Receiver;

beforeAll(async () => {
  tenantReceiver = await new Receiver().start();
  const created = await m
    .as(m.sandbox.tenantKey.secretKey)
    .post('/v1/admin/webhook-endpoints', { url: tenantReceiver.url(), events: ['*'] });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await tenantReceiver.close();
});

describe(`field visibility: event data as the API answer of its record (${dialectName})`, () => {
  test('each kind of record has the schema its reading operations answer with; every event group names a kind or none', () => {
    for (const kind of Object.keys(RESOURCES) as ResourceKind[]) {
      const answers = AUDIT_TARGETS[kind].readBy.map((reader) => operations.find((o) => o.id === reader.operation)?.response);
      expect([kind, answers.includes(RESOURCES[kind])]).toEqual([kind, true]);
    }
    const carried = eventCatalog()
      .map((e) => eventResource(e.type))
      .filter((k) => k !== null);
    expect(carried.filter((k) => !(k in RESOURCES))).toEqual([]);
    expect(new Set(carried)).toEqual(
      new Set(['payment', 'refund', 'checkout_session', 'withdrawal', 'merchant', 'dispute', 'settlement_statement', 'payout']),
    );
  });

  test('the declaration is in /v1/openapi.json: x-payplane-visibility on each marked field, and its description says it', () => {
    const schemas = buildOpenApiDocument(operations, 'test').components?.schemas as Record<
      string,
      { properties: Record<string, Record<string, unknown>> }
    >;
    const marked = (name: string) =>
      Object.entries(schemas[name].properties)
        .filter(([, p]) => p['x-payplane-visibility'])
        .map(([k, p]) => [k, p['x-payplane-visibility']]);
    expect(Object.fromEntries(marked('Payment'))).toEqual({
      providerReference: 'tenant',
      providerStatus: 'tenant',
      // the acquirer's own decline code, and why a capture or cancel did not happen (issue 34)
      providerDeclineCode: 'tenant',
      lastOperationError: 'tenant',
      terminalId: 'tenant',
      providerIntegrationId: 'tenant',
      routingDecision: 'tenant',
      riskDecision: 'tenant',
      feeBreakdown: 'tenant',
    });
    expect(Object.fromEntries(marked('Withdrawal'))).toEqual({ feeBreakdown: 'tenant', providerReference: 'tenant' });
    expect(schemas.Refund.properties.providerReference).toMatchObject({
      'x-payplane-visibility': 'tenant',
      description: expect.stringMatching(/Tenant and platform callers only\.$/),
    });
    expect(schemas.Refund.properties.providerDeclineCode).toMatchObject({ 'x-payplane-visibility': 'tenant' });
  });

  test("merchant and tenant endpoints receive exactly the fields of the merchant's and the tenant's API answer, for every event type that carries a record", async () => {
    const merchant = m.as(m.sandbox.merchantKey.secretKey);
    const tenant = m.as(m.sandbox.tenantKey.secretKey);
    // payments, checkout sessions and refunds
    const { paymentId } = await payWithCard(m, '4242424242424242');
    const refund = await merchant
      .post(`/v1/payments/${paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 1_000 } })
      .set('Idempotency-Key', 'visibility-refund');
    expect(refund.status).toBe(201);
    // withdrawals
    await withdrawalSettings(m, { withdrawalCoolingPeriodHours: 0, withdrawalMakerChecker: false });
    const method = await saveMethod(m);
    await fundMerchant(m, 50_000);
    const withdrawal = await merchant
      .post('/v1/withdrawals', { amount: { currency: 'EUR', valueMinor: 5_000 }, withdrawalMethodId: method.id })
      .set('Idempotency-Key', 'visibility-withdrawal');
    expect(withdrawal.status).toBe(201);
    expect((await tenant.post(`/v1/withdrawals/${withdrawal.body.data.id}/approve`)).status).toBe(200);
    // a merchant (a tenant-level event)
    const companyId = (await tenant.get(`/v1/admin/merchants/${m.sandbox.merchantId}`)).body.data.companyId;
    expect((await tenant.post('/v1/admin/merchants', { companyId, name: 'Visibility shop' })).status).toBe(201);
    await m.settle();

    const received: Record<Level, Event[]> = {
      merchant: m.events() as Event[],
      tenant: tenantReceiver.received.map((r) => r.body.events[0] as Event),
      platform: [],
    };
    const compared: Record<string, Set<string>> = { merchant: new Set(), tenant: new Set() };
    for (const level of ['merchant', 'tenant'] as const) {
      const caller = level === 'merchant' ? merchant : tenant;
      for (const event of received[level]) {
        const kind = eventResource(event.type);
        if (!kind) continue;
        const answer = await caller.get(readPath(kind, level).replace('{id}', String(event.data.id)));
        expect([level, event.type, answer.status]).toEqual([level, event.type, 200]);
        // `object`, where an event carries it, names the record (withdrawal, checkout.session); the API answer is the record itself
        const { object: _name, ...data } = event.data;
        expect([level, event.type, fieldDifferences(data, answer.body.data)]).toEqual([level, event.type, []]);
        compared[level].add(event.type);
      }
    }
    // every event type of the flows was compared, at both levels (merchant.created is for tenant endpoints only)
    const flows = [
      'checkout.session.created',
      'checkout.session.completed',
      'payment.created',
      'payment.captured',
      'refund.created',
      'refund.succeeded',
      'withdrawal.created',
      'withdrawal.approved',
    ];
    expect([...compared.merchant].sort()).toEqual(expect.arrayContaining(flows));
    expect([...compared.merchant].filter((t) => t.startsWith('merchant.'))).toEqual([]);
    expect([...compared.tenant].sort()).toEqual(expect.arrayContaining([...flows, 'merchant.created']));

    // and the declaration does hide something: the tenantOnly fields of a payment reach tenant endpoints only
    const captured = (level: Level) => received[level].find((e) => e.type === 'payment.captured')!.data;
    expect(captured('tenant')).toMatchObject({
      feeBreakdown: expect.any(Object),
      routingDecision: expect.any(Object),
      providerReference: expect.any(String),
    });
    for (const field of [
      'feeBreakdown',
      'routingDecision',
      'riskDecision',
      'providerReference',
      'providerStatus',
      'terminalId',
      'providerIntegrationId',
    ]) {
      expect([field, field in captured('merchant')]).toEqual([field, false]);
    }
  });
});
