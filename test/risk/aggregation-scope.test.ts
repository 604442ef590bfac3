import crypto from 'node:crypto';
import { useMoneyHarness, payWithCard, type MoneyHarness } from '../helpers/money';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { evaluateRisk } from '../../src/services/risk/engine';
import { riskSubjectFromInput } from '../../src/services/risk/dry-run';

// Issue 20 item 5: the specification's observed aggregation scope, terminal: the aggregation counts the payments
// routed to the payment's own terminal.

const VISA = '4242424242424242';
const m = useMoneyHarness();
let tenant: ReturnType<MoneyHarness['as']>;

beforeAll(async () => {
  tenant = m.as(m.sandbox.tenantKey.secretKey);
});

describe(`aggregation scope terminal (${dialectName})`, () => {
  test('a rule "a second payment of one card on one terminal within a day" counts payments routed to the same terminal', async () => {
    const rule = await tenant.post('/v1/admin/scoring-rules', {
      name: 'Card per terminal',
      signal: 'block',
      scoreImpact: 0,
      priority: 1,
      conditions: [
        {
          field: 'amount',
          operator: 'gte',
          value: '2',
          aggregation: { metric: 'count', scope: ['terminal'], identifier: 'card_fingerprint' },
          statisticWindow: '1d',
        },
      ],
    });
    expect(rule.status).toBe(201);
    expect(rule.body.data.conditions[0].aggregation).toMatchObject({ scope: ['terminal'], period: { value: 1, unit: 'day' } });
    expect((await tenant.get(`/v1/admin/scoring-rules/${rule.body.data.id}`)).body.data.conditions[0].aggregation.scope).toEqual([
      'terminal',
    ]);
    const plan = await tenant.post('/v1/admin/antifraud-plans', { name: 'Per terminal', ruleIds: [rule.body.data.id], enabled: true });
    expect(plan.status).toBe(201);

    const first = await payWithCard(m, VISA);
    expect(first.payment.status).toBe('captured');
    const terminalId = first.payment.terminalId as string;
    expect(terminalId).toEqual(expect.any(String));

    // the same card on the same terminal: counted (2), declined
    const second = await payWithCard(m, VISA);
    expect(second.payment).toMatchObject({ status: 'failed', errorCode: 'RISK_DECLINED' });

    // the engine counts by terminal: on another terminal the card's payments are not counted
    const ctx = operatorContext(m.rt, { level: 'tenant', tenantId: m.sandbox.tenantId, livemode: false });
    const input = { merchantId: m.sandbox.merchantId, amount: { currency: 'EUR', valueMinor: 10_000 }, card: { number: VISA } };
    expect((await evaluateRisk(ctx, await riskSubjectFromInput(ctx, { ...input, terminalId }))).decision).toBe('decline');
    expect((await evaluateRisk(ctx, await riskSubjectFromInput(ctx, { ...input, terminalId: crypto.randomUUID() }))).decision).toBe(
      'allow',
    );
    expect((await tenant.post(`/v1/admin/antifraud-plans/${plan.body.data.id}/disable`)).status).toBe(200);
  });
});
