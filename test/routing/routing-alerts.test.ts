import { useMoneyHarness, payWithCard } from '../helpers/money';
import { Receiver } from '../helpers/receiver';
import { dialectName, onPostgres } from '../helpers/db';
import { QueryTypes } from 'sequelize';
import { createEndpoint } from '../../src/services/webhooks/endpoints';
import { DECLINE_COUNT_SQL, ROUTING_ALERT_WINDOW_MS, claimCause } from '../../src/services/routing/alerts';
import { processingContext } from '../../src/domain/authority';
import { operatorContext } from '../../src/services/access/operators';
import { inTransaction } from '../../src/domain/context';

// Issue 23, part 5: routing.alert (tenant-level) when a payment finds no eligible terminal, and when a terminal's
// declines in the last 15 minutes pass half of at least 20 answered attempts; at most once per cause per 15 minutes.

const APPROVED = '4242424242424242';
const DECLINED = '4000000000000002';
const MINUTE = 60_000;

const m = useMoneyHarness();
let tenantReceiver: Receiver;
beforeAll(async () => {
  tenantReceiver = await new Receiver().start();
  // a tenant endpoint (the API takes endpoints of the caller's level: a tenant's are made by its users or the operator)
  await createEndpoint(operatorContext(m.rt, { level: 'tenant', tenantId: m.sandbox.tenantId, livemode: false }), {
    url: tenantReceiver.url(),
    events: ['routing.alert'],
  });
}, 60_000);
afterAll(async () => {
  await tenantReceiver?.close();
});

/** the routing.alert events the tenant endpoint received since `mark` */
const alertsSince = (mark: number) =>
  tenantReceiver.received
    .slice(mark)
    .map((r) => r.body.events[0])
    .filter((e) => e.type === 'routing.alert');
const stored = async () => (await m.rt.db.models.Event.findAll({ where: { type: 'routing.alert' }, raw: true })).length;

async function pay(cards: string[]): Promise<void> {
  for (const card of cards) await payWithCard(m, card);
}
const times = (n: number, card: string) => Array.from({ length: n }, () => card);

describe(`routing alerts (${dialectName})`, () => {
  test('no eligible terminal: one alert per merchant per 15 minutes, to the tenant endpoint only', async () => {
    const mark = tenantReceiver.received.length;
    const storedBefore = await stored();
    // the sandbox terminal takes EUR and USD: a GBP payment finds no eligible terminal
    const first = await payWithCard(m, APPROVED, { currency: 'GBP', amount: 1_234 });
    expect(first.payment).toMatchObject({ status: 'failed', errorCode: 'no_eligible_terminal' });
    let alerts = alertsSince(mark);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].data).toMatchObject({
      reason: 'no_eligible_terminal',
      merchantId: m.sandbox.merchantId,
      paymentId: first.paymentId,
      currency: 'GBP',
      amount: { currency: 'GBP', valueMinor: 1_234 },
      brand: 'visa',
      paymentMethod: 'card',
      terminalId: null,
      counts: { candidates: 1, excluded: { currency_not_supported: 1 } },
    });
    expect(alerts[0].data.candidates[0].reasons).toContain('currency_not_supported');
    // the merchant endpoint (subscribed to every event) is not a receiver of a tenant-level event
    expect(m.events().some((e) => e.type === 'routing.alert')).toBe(false);

    // again within 15 minutes: the payment fails the same, no second alert
    m.clock.advance(14 * MINUTE);
    const second = await payWithCard(m, APPROVED, { currency: 'GBP' });
    expect(second.payment).toMatchObject({ status: 'failed', errorCode: 'no_eligible_terminal' });
    expect(alertsSince(mark)).toHaveLength(1);
    // 15 minutes after the first: one more
    m.clock.advance(MINUTE);
    await payWithCard(m, APPROVED, { currency: 'GBP' });
    alerts = alertsSince(mark);
    expect(alerts).toHaveLength(2);
    expect(alerts[1].data).toMatchObject({ reason: 'no_eligible_terminal', currency: 'GBP' });
    expect(await stored()).toBe(storedBefore + 2);
  });

  test('bad input raises none: an invalid card is refused before routing', async () => {
    m.clock.advance(ROUTING_ALERT_WINDOW_MS + MINUTE);
    const before = await stored();
    const session = await m
      .as(m.sandbox.merchantKey.secretKey)
      .post('/v1/checkout-sessions', { amount: { currency: 'GBP', valueMinor: 100 } });
    expect(session.status).toBe(201);
    const bad = await m.as(m.sandbox.merchantKey.secretKey).post(`/v1/checkout-sessions/${session.body.data.id}/complete`, {
      paymentMethod: { type: 'card', card: { number: '4242424242424241', expMonth: 12, expYear: 2030, cvc: '123' } },
    });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
    await m.settle();
    expect(await stored()).toBe(before);
  });

  test('terminal declines: 19 attempts no alert; 20 with exactly 10 declines no alert; 20 with 11 one alert, then none within 15 minutes', async () => {
    const terminalId = (
      (await m.rt.db.models.Terminal.findOne({ where: { tenantId: m.sandbox.tenantId, direction: 'payin' }, raw: true })) as unknown as {
        id: string;
      }
    ).id;
    const declineAlerts = (mark: number) => alertsSince(mark).filter((e) => e.data.reason === 'terminal_declines');

    // a window of 19 answered attempts, 11 of them declined: not enough attempts
    m.clock.advance(ROUTING_ALERT_WINDOW_MS + MINUTE);
    let mark = tenantReceiver.received.length;
    await pay([...times(8, APPROVED), ...times(11, DECLINED)]);
    expect(declineAlerts(mark)).toEqual([]);

    // a new window: 20 attempts, exactly 10 declined (the last attempt a decline, so the count runs at 20)
    m.clock.advance(ROUTING_ALERT_WINDOW_MS + MINUTE);
    await pay([...times(10, APPROVED), ...times(10, DECLINED)]);
    expect(declineAlerts(mark)).toEqual([]);

    // a new window: 20 attempts, 11 declined: one alert with the counts, at the 20th
    m.clock.advance(ROUTING_ALERT_WINDOW_MS + MINUTE);
    mark = tenantReceiver.received.length;
    await pay([...times(9, APPROVED), ...times(10, DECLINED)]);
    expect(declineAlerts(mark)).toEqual([]);
    await pay([DECLINED]);
    const alerts = declineAlerts(mark);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].data).toMatchObject({
      reason: 'terminal_declines',
      terminalId,
      attempts: 20,
      declines: 11,
      windowMinutes: 15,
      counts: { attempts: 20, declines: 11 },
    });
    expect(alerts[0].data.merchantId).toBeUndefined();
    expect(m.events().some((e) => e.type === 'routing.alert')).toBe(false);

    // more declines within 15 minutes of the alert: none
    m.clock.advance(10 * MINUTE);
    await pay(times(3, DECLINED));
    expect(declineAlerts(mark)).toHaveLength(1);
  });

  test('the claim is atomic: of transactions claiming one cause at once, one raises it; again only after the window', async () => {
    const { db } = m.rt;
    const rows = (await db.models.RoutingAlert.findAll({ where: { tenantId: m.sandbox.tenantId }, raw: true })) as unknown as Array<{
      cause: string;
      livemode: boolean;
    }>;
    expect(rows.map((r) => r.cause.split(':')[0]).sort()).toEqual(['no_eligible_terminal', 'terminal_declines']);
    expect(rows.every((r) => !r.livemode)).toBe(true);

    const ctx = processingContext(m.rt, m.sandbox.tenantId, false);
    const claimAtOnce = () =>
      Promise.all(
        Array.from({ length: 5 }, () => inTransaction(ctx, (tx) => claimCause(tx, m.sandbox.tenantId, false, 'test:concurrent'))),
      );
    expect((await claimAtOnce()).filter(Boolean)).toHaveLength(1);
    m.clock.advance(ROUTING_ALERT_WINDOW_MS - 1);
    expect((await claimAtOnce()).filter(Boolean)).toHaveLength(0);
    m.clock.advance(1);
    expect((await claimAtOnce()).filter(Boolean)).toHaveLength(1);
    // the other mode is its own cause
    const live = processingContext(m.rt, m.sandbox.tenantId, true);
    expect(await inTransaction(live, (tx) => claimCause(tx, m.sandbox.tenantId, true, 'test:concurrent'))).toBe(true);
  });

  test('the count of a declined attempt reads the index payment_attempts_terminal_recent', async () => {
    const { sequelize } = m.rt.db;
    const literals = [
      `'${m.sandbox.tenantId}'`,
      onPostgres ? 'false' : '0',
      `'2026-03-01 12:00:00.000 +00:00'`,
      `'succeeded'`,
      `'declined'`,
      `'failed'`,
    ];
    let i = 0;
    const statement = DECLINE_COUNT_SQL.replace(/\?/g, () => literals[i++]);
    const plan = onPostgres
      ? await m.rt.db.transaction(async (transaction) => {
          // the tables are small here: the planner is told to avoid a sequential scan when an index can serve
          await sequelize.query('SET LOCAL enable_seqscan = off', { transaction });
          return (await sequelize.query<Record<string, string>>(`EXPLAIN ${statement}`, { type: QueryTypes.SELECT, transaction })).map(
            (r) => r['QUERY PLAN'],
          );
        })
      : (await sequelize.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${statement}`, { type: QueryTypes.SELECT })).map((r) => r.detail);
    expect(plan.join('\n')).toContain('payment_attempts_terminal_recent');
  });

  test('the count runs once for a declined attempt, and never for an approved one', async () => {
    const counts: string[] = [];
    const hook = (_options: unknown, query: { sql?: string }) => {
      if (/FROM payment_attempts\s+WHERE "terminalId"/.test(String(query.sql ?? ''))) counts.push(String(query.sql));
    };
    m.rt.db.sequelize.addHook('beforeQuery', 'decline-count', hook as never);
    try {
      await payWithCard(m, APPROVED);
      expect(counts).toHaveLength(0);
      await payWithCard(m, DECLINED);
      expect(counts).toHaveLength(1);
    } finally {
      m.rt.db.sequelize.removeHook('beforeQuery', 'decline-count');
    }
  });
});
