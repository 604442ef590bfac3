import { useMoneyHarness, openSession, completeWithCard, type MoneyHarness } from '../helpers/money';
import { dialectName, onPostgres } from '../helpers/db';
import { eur } from '../helpers/amounts';
import { operatorContext } from '../../src/services/access/operators';
import { inTransaction } from '../../src/domain/context';
import { evaluateRisk } from '../../src/services/risk/engine';
import { riskSubjectFromInput } from '../../src/services/risk/dry-run';

// Issue 20 item 4: a velocity rule holds when one card's payments are sent at once, on both databases; payments of
// other cards are neither declined nor held behind them.
//
// The clock ticks (one millisecond per reading), as a wall clock does while requests wait for one another: a moment
// read before a payment waited for the lock of its card (or for SQLite's write lock) is older than the payment that
// committed meanwhile, and a window ending at that moment leaves it out. A standing clock hid that race.

const VISA = '4242424242424242';
const MASTERCARD = '5555555555554444';
const PARALLEL = 10;

const m = useMoneyHarness();
let tenant: ReturnType<MoneyHarness['as']>;

beforeAll(async () => {
  tenant = m.as(m.sandbox.tenantKey.secretKey);
  const read = m.clock.now.bind(m.clock);
  m.clock.now = () => {
    m.clock.advance(1);
    return read();
  };
  // "the sum of one card's payments in the last hour above 15.00 declines"
  const rule = await tenant.post('/v1/admin/scoring-rules', {
    name: 'Card sum per hour',
    signal: 'block',
    scoreImpact: 0,
    priority: 100,
    conditions: [
      {
        field: 'amount',
        operator: 'gt',
        value: '1500',
        aggregation: { metric: 'sum', identifier: 'card_fingerprint', period: { value: 1, unit: 'hour' } },
      },
    ],
  });
  expect(rule.status).toBe(201);
  const plan = await tenant.post('/v1/admin/antifraud-plans', { name: 'Velocity', ruleIds: [rule.body.data.id], enabled: true });
  expect(plan.status).toBe(201);
});

/** A Luhn-valid Visa number of its own for index i (the sandbox declines it as unsupported: only risk matters here). */
function distinctCard(i: number): string {
  const body = `4111${String(100_000_000 + i).padStart(11, '0')}`;
  let sum = 0;
  for (let k = 0; k < body.length; k++) {
    let d = Number(body[body.length - 1 - k]);
    if (k % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

const session = async (): Promise<string> => (await openSession(m, { amount: eur(1_000) })).id;
const complete = async (sessionId: string, number: string): Promise<string> => (await completeWithCard(m, sessionId, number)).paymentId;

async function outcomes(paymentIds: string[]): Promise<{ declined: number; passed: number; decisions: string[] }> {
  await m.settle();
  const payments = await Promise.all(paymentIds.map(async (id) => (await tenant.get(`/v1/payments/${id}`)).body.data));
  const declined = payments.filter((p) => p.errorCode === 'RISK_DECLINED').length;
  return { declined, passed: payments.length - declined, decisions: payments.map((p) => p.riskDecision.decision) };
}

describe(`velocity rules under concurrency (${dialectName})`, () => {
  test('sent one after another: the first payment of a card passes, the next ones are declined', async () => {
    m.clock.advance(2 * 3_600_000);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await complete(await session(), MASTERCARD));
    const { declined, passed } = await outcomes(ids);
    expect({ passed, declined }).toEqual({ passed: 1, declined: 2 });
  });

  test(`${PARALLEL} payments of one card sent at once: exactly as many pass as one after another (one)`, async () => {
    m.clock.advance(2 * 3_600_000);
    const sessions = await Promise.all(Array.from({ length: PARALLEL }, () => session()));
    const ids = await Promise.all(sessions.map((s) => complete(s, VISA)));
    const { declined, passed } = await outcomes(ids);
    expect({ passed, declined }).toEqual({ passed: 1, declined: PARALLEL - 1 });
    const captured = await m.rt.db.models.Payment.count({ where: { id: ids, status: 'captured' } });
    expect(captured).toBe(1);
  });

  test(`${PARALLEL} payments of ${PARALLEL} distinct cards sent at once all pass the rule`, async () => {
    m.clock.advance(2 * 3_600_000);
    const sessions = await Promise.all(Array.from({ length: PARALLEL }, () => session()));
    const ids = await Promise.all(sessions.map((s, i) => complete(s, distinctCard(i))));
    const { declined, decisions } = await outcomes(ids);
    expect(declined).toBe(0);
    expect(decisions).toEqual(Array(PARALLEL).fill('allow'));
  });

  (onPostgres ? test : test.skip)(
    'Postgres: a card held by an open evaluation holds only that card: another card pays meanwhile',
    async () => {
      m.clock.advance(2 * 3_600_000);
      const ctx = operatorContext(m.rt, { level: 'tenant', tenantId: m.sandbox.tenantId, livemode: false });
      const subject = await riskSubjectFromInput(ctx, {
        merchantId: m.sandbox.merchantId,
        amount: { currency: 'EUR', valueMinor: 1_000 },
        card: { number: VISA },
      });
      const [heldSession, otherSession] = await Promise.all([session(), session()]);
      let heldDone = false;
      // this transaction evaluates a payment of VISA and keeps its card's lock until released; the test's own requests and
      // queries run outside it (each request or job holds one connection: the connection guard watches the flow)
      let evaluated!: () => void;
      const ready = new Promise<void>((resolve) => (evaluated = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const holding = inTransaction(ctx, async (tx) => {
        expect((await evaluateRisk(tx, subject)).decision).toBe('allow');
        evaluated();
        await released;
      });
      await ready;
      const held = complete(heldSession, VISA).then((id) => {
        heldDone = true;
        return id;
      });
      try {
        // the payment of VISA waits for the lock of its card ...
        let waiting = 0;
        for (let i = 0; i < 200 && waiting === 0; i++) {
          const [rows] = await m.rt.db.sequelize.query(
            "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
          );
          waiting = (rows as { n: number }[])[0].n;
          if (!waiting) await new Promise((resolve) => setTimeout(resolve, 25));
        }
        expect(waiting).toBe(1);
        // ... while a payment of another card goes through
        const other = await complete(otherSession, MASTERCARD);
        expect((await outcomes([other])).passed).toBe(1);
        expect(heldDone).toBe(false);
      } finally {
        release();
        await holding;
      }
      const heldId = await held;
      // the evaluation above wrote no payment: the held one is the card's first of the hour
      expect((await outcomes([heldId])).passed).toBe(1);
    },
  );
});
