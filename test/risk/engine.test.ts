import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { useMoneyHarness, payWithCard, openSession, completeWithCard, type MoneyHarness } from '../helpers/money';
import { Receiver, testTls } from '../helpers/receiver';
import { dialectName } from '../helpers/db';
import { eur } from '../helpers/amounts';
import { operatorContext } from '../../src/services/access/operators';
import { evaluateRisk } from '../../src/services/risk/engine';
import { riskSubjectFromInput } from '../../src/services/risk/dry-run';
import { Dispatcher } from '../../src/services/webhooks/dispatcher';

// Issue 8, "What it must show" 2 and 3: the engine on the money path, end to end.

const VISA = '4242424242424242';
const MASTERCARD = '5555555555554444';

const m = useMoneyHarness();
let tenantReceiver: Receiver;
let tenantDispatcher: Dispatcher;
let tenantSecret: string;
let tenant: ReturnType<MoneyHarness['as']>;

beforeAll(async () => {
  tenant = m.as(m.sandbox.tenantKey.secretKey);
  tenantReceiver = await new Receiver().start();
  tenantDispatcher = new Dispatcher(m.rt, { transport: { allowCidrs: ['127.0.0.1/32', '::1/128'], caFile: testTls().caFile } });
  const endpoint = await tenant.post('/v1/admin/webhook-endpoints', { url: tenantReceiver.url(), events: ['payment.*', 'fraud.alert'] });
  expect(endpoint.status).toBe(201);
  tenantSecret = endpoint.body.data.secret;
});
afterAll(async () => {
  await tenantReceiver.close();
});

/** Events the tenant endpoint received (signature checked), optionally of one payment. */
function tenantEvents(paymentId?: string) {
  const webhook = new Webhook(tenantSecret);
  return tenantReceiver.received
    .map((r) => {
      const expected = webhook.sign(r.headers['webhook-id'], new Date(Number(r.headers['webhook-timestamp']) * 1000), r.raw);
      expect(r.headers['webhook-signature'].split(' ')).toContain(expected);
      return JSON.parse(r.raw).events[0] as { type: string; data: Record<string, unknown> };
    })
    .filter((e) => !paymentId || e.data.id === paymentId || e.data.paymentId === paymentId);
}

async function settleAll(): Promise<void> {
  await m.settle();
  while ((await tenantDispatcher.runOnce()) > 0);
}

async function enabledPlan(ruleIds: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const plan = await tenant.post('/v1/admin/antifraud-plans', { name: `plan ${ruleIds.length}`, ruleIds, enabled: true, ...extra });
  expect(plan.status).toBe(201);
  return plan.body.data.id;
}

async function rule(body: Record<string, unknown>): Promise<string> {
  const created = await tenant.post('/v1/admin/scoring-rules', { priority: 100, scoreImpact: 0, ...body });
  expect(created.status).toBe(201);
  return created.body.data.id;
}

const disable = async (planId: string) => expect((await tenant.post(`/v1/admin/antifraud-plans/${planId}/disable`)).status).toBe(200);

async function attemptsOf(paymentId: string): Promise<number> {
  return m.rt.db.models.PaymentAttempt.count({ where: { paymentId } });
}

async function sandboxOperationsOf(paymentId: string): Promise<number> {
  const attempts = await m.rt.db.models.PaymentAttempt.findAll({ where: { paymentId } });
  return m.rt.db.models.SandboxOperation.count({ where: { reference: attempts.map((a) => a.get('id') as string) } });
}

describe(`risk engine on the payment path (${dialectName})`, () => {
  test('a card fingerprint on a block list: the next payment fails RISK_DECLINED before any provider call; merchants never see the decision', async () => {
    const first = await payWithCard(m, VISA);
    expect(first.payment.status).toBe('captured');
    expect(first.payment.riskDecision).toMatchObject({ decision: 'allow', score: 0, matchedRules: [] });
    const fingerprint = first.payment.card.fingerprint as string;

    const group = await tenant.post('/v1/admin/list-groups', { name: 'Blocked cards', entryType: 'card_fingerprint' });
    expect(group.status).toBe(201);
    expect(
      (await tenant.post(`/v1/admin/list-groups/${group.body.data.id}/entries`, { value: fingerprint, note: 'chargeback fraud' })).status,
    ).toBe(201);
    const blockId = await rule({
      name: 'Blocked card',
      signal: 'block',
      scoreImpact: 100,
      conditions: [{ field: 'card_fingerprint', operator: 'in_list', value: group.body.data.id }],
    });
    const planId = await enabledPlan([blockId]);

    const blocked = await payWithCard(m, VISA);
    expect(blocked.payment).toMatchObject({
      status: 'failed',
      errorCode: 'RISK_DECLINED',
      approved: false,
      terminalId: null,
      providerReference: null,
    });
    expect(blocked.payment.riskDecision).toMatchObject({
      decision: 'decline',
      evaluatedDecision: 'decline',
      enforced: true,
      score: 100,
      planIds: [planId],
      matchedRules: [{ id: blockId, name: 'Blocked card', signal: 'block', scoreImpact: 100 }],
      reason: 'blocked by rule "Blocked card"',
    });
    // no attempt, so nothing reached the acquirer
    expect(await attemptsOf(blocked.paymentId)).toBe(0);
    expect(await sandboxOperationsOf(first.paymentId)).toBe(1);

    // another card still pays
    const other = await payWithCard(m, MASTERCARD);
    expect(other.payment.status).toBe('captured');

    // the merchant reads the payment and its events without the decision; the tenant with it, and gets a fraud alert
    const asMerchant = await m.as(m.sandbox.merchantKey.secretKey).get(`/v1/payments/${blocked.paymentId}`);
    expect(asMerchant.body.data.errorCode).toBe('RISK_DECLINED');
    expect(asMerchant.body.data).not.toHaveProperty('riskDecision');
    await settleAll();
    const merchantFailed = m.events().find((e) => e.type === 'payment.failed' && (e.data as { id: string }).id === blocked.paymentId)!;
    expect(merchantFailed).toBeDefined();
    expect(merchantFailed.data).not.toHaveProperty('riskDecision');
    expect(m.events().some((e) => e.type === 'fraud.alert')).toBe(false);
    const tenantFailed = tenantEvents(blocked.paymentId).find((e) => e.type === 'payment.failed')!;
    expect(tenantFailed.data.riskDecision).toMatchObject({ decision: 'decline', score: 100 });
    const alert = tenantEvents(blocked.paymentId).find((e) => e.type === 'fraud.alert')!;
    expect(alert.data).toMatchObject({
      kind: 'fraud',
      severity: 'high',
      paymentId: blocked.paymentId,
      riskScore: 100,
      decision: 'decline',
      enforced: true,
    });

    // removing the entry lets the card pay again
    const entries = await tenant.get(`/v1/admin/list-groups/${group.body.data.id}/entries`);
    expect((await tenant.delete(`/v1/admin/list-groups/${group.body.data.id}/entries/${entries.body.data[0].id}`)).status).toBe(200);
    expect((await payWithCard(m, VISA)).payment.status).toBe('captured');
    await disable(planId);
  });

  test('a velocity rule (more than 3 payments per card in 10 minutes) blocks the 4th; the window moves on', async () => {
    const velocity = await rule({
      name: 'Card velocity',
      signal: 'block',
      scoreImpact: 0,
      conditions: [
        {
          field: 'amount',
          operator: 'gt',
          value: '3',
          aggregation: { metric: 'count', identifier: 'card_fingerprint' },
          statisticWindow: '10m',
        },
      ],
    });
    const planId = await enabledPlan([velocity]);
    m.clock.advance(60 * 60_000); // earlier payments of the card fall outside the window
    for (let i = 1; i <= 3; i++) {
      const paid = await payWithCard(m, '4000000000000077');
      expect(paid.payment.status).toBe('captured');
      m.clock.advance(60_000);
    }
    const fourth = await payWithCard(m, '4000000000000077');
    expect(fourth.payment).toMatchObject({ status: 'failed', errorCode: 'RISK_DECLINED' });
    expect(fourth.payment.riskDecision.matchedRules).toEqual([expect.objectContaining({ id: velocity, name: 'Card velocity' })]);
    expect(await attemptsOf(fourth.paymentId)).toBe(0);
    // other cards are not counted with it
    expect((await payWithCard(m, MASTERCARD)).payment.status).toBe('captured');
    // 10 minutes after the first four (declined attempts count too), the card pays again
    m.clock.advance(10 * 60_000 + 1);
    expect((await payWithCard(m, '4000000000000077')).payment.status).toBe('captured');
    await disable(planId);
  });

  test('a challenge decision forces 3DS on a card that would otherwise not need it', async () => {
    const plain = await payWithCard(m, VISA, { amount: 4_000 });
    expect(plain.payment).toMatchObject({ status: 'captured', threeDSResult: null });

    const big = await rule({
      name: 'Large amount',
      signal: 'challenge',
      scoreImpact: 10,
      conditions: [{ field: 'amount', operator: 'gte', value: 50000 }],
    });
    const planId = await enabledPlan([big]);
    const challenged = await payWithCard(m, VISA, { amount: 60_000 });
    expect(challenged.payment.status).toBe('requires_action');
    expect(challenged.payment.riskDecision).toMatchObject({ decision: 'challenge', score: 10 });
    const url = challenged.payment.action.url as string;
    const done = await request(m.app).post(new URL(url, 'http://localhost').pathname).type('form').send({ action: 'complete' });
    expect([200, 303]).toContain(done.status);
    await m.settle();
    const after = await tenant.get(`/v1/payments/${challenged.paymentId}`);
    expect(after.body.data).toMatchObject({
      status: 'captured',
      threeDSResult: { status: 'authenticated', challenged: true, challengeFlow: 'challenge' },
    });

    // below the rule's amount: no challenge
    expect((await payWithCard(m, VISA, { amount: 4_000 })).payment).toMatchObject({ status: 'captured', threeDSResult: null });
    await disable(planId);
  });

  test('review holds an automatic-capture payment as requires_capture for a manual decision', async () => {
    const review = await rule({
      name: 'Odd amount',
      signal: 'review',
      scoreImpact: 5,
      conditions: [{ field: 'amount', operator: 'in', value: '7777,8888' }],
    });
    const planId = await enabledPlan([review]);
    const held = await payWithCard(m, VISA, { amount: 7_777 });
    expect(held.payment).toMatchObject({ status: 'requires_capture', captureMethod: 'automatic', riskDecision: { decision: 'review' } });
    // the review is the tenant's: the merchant cannot release the hold itself
    const byMerchant = await m.as(m.sandbox.merchantKey.secretKey).post(`/v1/payments/${held.paymentId}/capture`, {});
    expect(byMerchant.status).toBe(403);
    expect(byMerchant.body.code).toBe('RISK_REVIEW_PENDING');
    const captured = await tenant.post(`/v1/payments/${held.paymentId}/capture`, {});
    expect(captured.status).toBe(200);
    expect(captured.body.data.status).toBe('captured');
    await settleAll();
    expect(tenantEvents(held.paymentId).find((e) => e.type === 'fraud.alert')?.data).toMatchObject({
      severity: 'medium',
      decision: 'review',
    });
    await disable(planId);
  });

  test("scores add up against the thresholds; a plan's thresholds and monitor enforcement", async () => {
    const eur = await rule({ name: 'EUR', scoreImpact: 30, conditions: [{ field: 'currency', operator: 'eq', value: 'eur' }] });
    const visa = await rule({ name: 'Visa', scoreImpact: 30, conditions: [{ field: 'brand', operator: 'eq', value: 'VISA' }] });
    const planId = await enabledPlan([eur, visa]);
    // 60: at the default challenge threshold (50), below decline (100)
    expect((await payWithCard(m, VISA, { settle: false })).payment.riskDecision).toMatchObject({ decision: 'challenge', score: 60 });
    expect((await payWithCard(m, MASTERCARD)).payment.riskDecision).toMatchObject({ decision: 'allow', score: 30 });

    expect((await tenant.put('/v1/admin/risk-configuration', { challengeScore: 20, declineScore: 60 })).status).toBe(200);
    expect((await payWithCard(m, VISA)).payment).toMatchObject({
      status: 'failed',
      errorCode: 'RISK_DECLINED',
      riskDecision: { score: 60, reason: 'score 60 reached the decline threshold 60' },
    });

    // monitor: recorded, alerted, not enforced
    expect(
      (await tenant.put('/v1/admin/risk-configuration', { challengeScore: 20, declineScore: 60, enforcement: 'monitor' })).status,
    ).toBe(200);
    const monitored = await payWithCard(m, VISA);
    expect(monitored.payment).toMatchObject({
      status: 'captured',
      riskDecision: { decision: 'allow', evaluatedDecision: 'decline', enforced: false },
    });
    await settleAll();
    expect(tenantEvents(monitored.paymentId).find((e) => e.type === 'fraud.alert')?.data).toMatchObject({
      decision: 'decline',
      enforced: false,
    });

    // a plan's own thresholds: the strictest applies
    expect((await tenant.delete('/v1/admin/risk-configuration')).status).toBe(200);
    expect((await tenant.patch(`/v1/admin/antifraud-plans/${planId}`, { thresholds: { decline: 50 } })).status).toBe(200);
    expect((await payWithCard(m, VISA)).payment).toMatchObject({
      status: 'failed',
      riskDecision: { thresholds: { decline: 50, challenge: 50 } },
    });
    await disable(planId);
  });

  test('a plan for another merchant does not apply; ip ranges and email domains match through lists', async () => {
    const own = await tenant.get(`/v1/admin/merchants/${m.sandbox.merchantId}`);
    const other = await tenant.post('/v1/admin/merchants', { companyId: own.body.data.companyId, name: 'Other shop' });
    expect(other.status).toBe(201);
    const ips = await tenant.post('/v1/admin/list-groups', { name: 'Bad networks', entryType: 'ip' });
    await tenant.post(`/v1/admin/list-groups/${ips.body.data.id}/entries`, { value: '203.0.113.9/24' });
    const domains = await tenant.post('/v1/admin/list-groups', { name: 'Disposable', entryType: 'email_domain' });
    await tenant.post(`/v1/admin/list-groups/${domains.body.data.id}/entries`, { value: 'Mailinator.TEST' });
    const ipRule = await rule({
      name: 'Bad network',
      signal: 'block',
      conditions: [{ field: 'ip', operator: 'in_list', value: ips.body.data.id }],
    });
    const mailRule = await rule({
      name: 'Disposable email',
      signal: 'review',
      conditions: [{ field: 'email_domain', operator: 'in_list', value: domains.body.data.id }],
    });
    const elsewhere = await enabledPlan([ipRule, mailRule], { merchantId: other.body.data.id });

    const pay = async (customerInfo: Record<string, string>) => {
      const session = await openSession(m, { amount: eur(2_500), customerInfo });
      const done = await completeWithCard(m, session.id, VISA);
      await m.settle();
      return (await tenant.get(`/v1/payments/${done.paymentId}`)).body.data;
    };
    // the customer paying with the session's secret cannot state the address (or reference) risk checks
    const session = await m
      .as(m.sandbox.merchantKey.secretKey)
      .post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 2_500 } });
    const stated = await request(m.app)
      .post(`/v1/checkout-sessions/${session.body.data.id}/complete`)
      .set('Authorization', `Bearer ${session.body.data.clientSecret}`)
      .send({
        paymentMethod: { type: 'card', card: { number: VISA, expMonth: 12, expYear: 2030, cvc: '123' } },
        customerInfo: { ipAddress: '198.51.100.1', customerReference: 'vip' },
      });
    expect(stated.status).toBe(403);
    expect(stated.body.code).toBe('CLIENT_SECRET_FIELD_NOT_ALLOWED');
    expect(stated.body.errors.map((e: { path: string }) => e.path)).toEqual([
      'body.customerInfo.ipAddress',
      'body.customerInfo.customerReference',
    ]);
    // the plan is the other merchant's: nothing matches here
    expect((await pay({ ipAddress: '203.0.113.77' })).status).toBe('captured');

    await disable(elsewhere);
    const here = await enabledPlan([ipRule, mailRule], { merchantId: m.sandbox.merchantId });
    expect((await pay({ ipAddress: '203.0.113.77' })).errorCode).toBe('RISK_DECLINED');
    expect((await pay({ ipAddress: '::ffff:203.0.113.200' })).errorCode).toBe('RISK_DECLINED');
    expect((await pay({ ipAddress: '198.51.100.1' })).status).toBe('captured');
    expect((await pay({ email: 'someone@mailinator.test' })).status).toBe('requires_capture');
    expect((await pay({ email: 'someone@example.com' })).status).toBe('captured');
    await disable(here);
  });

  test('payments of one card sent at once cannot pass a velocity rule together', async () => {
    const velocity = await rule({
      name: 'Burst',
      signal: 'block',
      conditions: [
        {
          field: 'amount',
          operator: 'gt',
          value: '3',
          aggregation: { metric: 'count', identifier: 'card_fingerprint', period: { value: 5, unit: 'minute' } },
        },
      ],
    });
    const planId = await enabledPlan([velocity]);
    m.clock.advance(60 * 60_000);
    const merchant = m.as(m.sandbox.merchantKey.secretKey);
    const sessions = await Promise.all(
      Array.from({ length: 8 }, () => merchant.post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 1_000 } })),
    );
    const completed = await Promise.all(
      sessions.map((s) =>
        merchant.post(`/v1/checkout-sessions/${s.body.data.id}/complete`, {
          paymentMethod: { type: 'card', card: { number: '4000000000003220', expMonth: 12, expYear: 2030, cvc: '123' } },
        }),
      ),
    );
    expect(completed.map((c) => c.status)).toEqual(Array(8).fill(200));
    await m.settle();
    const payments = await Promise.all(completed.map(async (c) => (await tenant.get(`/v1/payments/${c.body.data.paymentId}`)).body.data));
    expect(payments.filter((p) => p.errorCode === 'RISK_DECLINED')).toHaveLength(5);
    expect(payments.filter((p) => p.status === 'captured')).toHaveLength(3);
    await disable(planId);
  });

  test('the decision is deterministic: the engine answers the same for the same input, and as it did for the payment', async () => {
    const velocity = await rule({
      name: 'Email velocity',
      scoreImpact: 70,
      conditions: [
        {
          field: 'amount',
          operator: 'gte',
          value: '2',
          aggregation: { metric: 'count', identifier: 'card_fingerprint', period: { value: 1, unit: 'hour' } },
        },
      ],
    });
    const amountRule = await rule({ name: 'Large', scoreImpact: 40, conditions: [{ field: 'amount', operator: 'gt', value: '1000' }] });
    const planId = await enabledPlan([velocity, amountRule]);
    m.clock.advance(2 * 3_600_000);
    const ctx = operatorContext(m.rt, { level: 'tenant', tenantId: m.sandbox.tenantId, livemode: false });
    const input = { merchantId: m.sandbox.merchantId, amount: { currency: 'EUR', valueMinor: 10_000 }, card: { number: MASTERCARD } };
    const subject = await riskSubjectFromInput(ctx, input);
    const first = await evaluateRisk(ctx, subject);
    const second = await evaluateRisk(ctx, subject);
    expect(second).toEqual(first);
    expect(first).toMatchObject({ decision: 'allow', score: 40, matchedRules: [expect.objectContaining({ id: amountRule })] });
    const paid = await payWithCard(m, MASTERCARD, { settle: false });
    expect(paid.payment.riskDecision).toEqual(first);
    // the payment now counts: the same input scores the velocity rule too
    expect(await evaluateRisk(ctx, subject)).toMatchObject({ decision: 'decline', score: 110 });
    await disable(planId);
  });
});
