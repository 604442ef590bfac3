import { QueryTypes } from 'sequelize';
import { ManualClock } from '../../src/domain/clock';
import { inTransaction } from '../../src/domain/context';
import type { PaymentRow } from '../../src/db/models/payments';
import type { RiskAggregation } from '../../src/db/models/risk';
import { operatorContext } from '../../src/services/access/operators';
import { createCompanyRecord, createMerchantRecord } from '../../src/services/organization/records';
import { aggregateValue, evaluateRisk } from '../../src/services/risk/engine';
import { createSandbox } from '../../src/services/sandbox/provision';
import { createTenant } from '../../src/services/tenants/tenants';
import { createTestRuntime, dialectName, onPostgres, type TestRuntime } from '../helpers/db';
import {
  createRiskFixture,
  insertPayments,
  paymentRow,
  recordQueries,
  riskSubject,
  SUBJECT_CARD,
  SUBJECT_EMAIL,
  type RiskFixture,
} from '../../bench/risk-fixture';

// Issue 8: "Risk evaluation of one payment costs bounded queries". The speed is measured by bench/risk-evaluation.ts;
// here (not timed) the number of SQL statements one evaluation issues does not change when the table grows, the
// aggregations are one count or sum each through a payments_risk_* index, and their values are right: the tenant's
// payments of the mode sharing the identifier within the period, whatever their status, plus the payment evaluated.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NOW = new Date('2026-03-01T12:00:00.000Z');
const at = (msAgo: number) => new Date(NOW.getTime() - msAgo);

const CARD_10M: RiskAggregation = {
  metric: 'count',
  period: { value: 10, unit: 'minute' },
  scope: ['tenant'],
  identifier: 'card_fingerprint',
  currency: null,
};
const EMAIL_SUM_1D: RiskAggregation = {
  metric: 'sum',
  period: { value: 1, unit: 'day' },
  scope: ['tenant'],
  identifier: 'email',
  currency: null,
};

let t: TestRuntime;
let f: RiskFixture;
let other: { tenantId: string; merchantId: string };
let filler = 0;

/** Payments of other customers: their own cards, emails and ips, spread over the last day. */
function otherCustomers(count: number): PaymentRow[] {
  return Array.from({ length: count }, () => {
    const i = filler++;
    return paymentRow({
      tenantId: f.tenantId,
      merchantId: f.merchantId,
      createdAt: at(((i * 7919) % 1440) * MINUTE),
      amountMinor: 1000 + (i % 50) * 100,
      cardFingerprint: `fp_other_${Math.floor(i / 3)}`,
      customerEmail: `other${Math.floor(i / 4)}@example.com`,
      customerIp: `10.0.${(i >> 8) & 255}.${i & 255}`,
    });
  });
}

beforeAll(async () => {
  t = await createTestRuntime({ clock: new ManualClock(NOW.toISOString()) });
  const sandbox = await createSandbox(t.rt);
  f = await createRiskFixture(t.rt, sandbox.tenantId, sandbox.merchantId);
  const platform = operatorContext(t.rt, { level: 'platform', tenantId: null, livemode: false });
  const tenant = await createTenant(platform, { name: 'Other tenant', livemode: false });
  const operator = operatorContext(t.rt, { level: 'tenant', tenantId: tenant.id, livemode: false });
  const company = await createCompanyRecord(operator, { name: 'Other Co', country: 'FR', livemode: false });
  const merchant = await createMerchantRecord(operator, { companyId: company.id, name: 'Other merchant' });
  other = { tenantId: tenant.id, merchantId: merchant.id };

  const mine = { tenantId: f.tenantId, merchantId: f.merchantId };
  const shared: PaymentRow[] = [
    // the card: 3 in the last 10 minutes (one failed: counted whatever its status)
    paymentRow({ ...mine, createdAt: at(1 * MINUTE), cardFingerprint: SUBJECT_CARD }),
    paymentRow({ ...mine, createdAt: at(4 * MINUTE), cardFingerprint: SUBJECT_CARD, status: 'failed' }),
    paymentRow({ ...mine, createdAt: at(9 * MINUTE), cardFingerprint: SUBJECT_CARD }),
    // not counted: older than the window, the other mode, another tenant, a deleted row
    paymentRow({ ...mine, createdAt: at(11 * MINUTE), cardFingerprint: SUBJECT_CARD }),
    paymentRow({ ...mine, createdAt: at(2 * HOUR), cardFingerprint: SUBJECT_CARD }),
    paymentRow({ ...mine, livemode: true, createdAt: at(2 * MINUTE), cardFingerprint: SUBJECT_CARD }),
    paymentRow({ ...other, createdAt: at(2 * MINUTE), cardFingerprint: SUBJECT_CARD }),
    paymentRow({ ...mine, createdAt: at(3 * MINUTE), cardFingerprint: SUBJECT_CARD, deletedAt: at(MINUTE) }),
    // the email: 10,000 + 20,000 EUR in the last day; not summed: USD, older than a day, the other mode, another tenant
    paymentRow({ ...mine, createdAt: at(3 * HOUR), customerEmail: SUBJECT_EMAIL, amountMinor: 10_000 }),
    paymentRow({ ...mine, createdAt: at(23 * HOUR), customerEmail: SUBJECT_EMAIL, amountMinor: 20_000, status: 'failed' }),
    paymentRow({ ...mine, createdAt: at(5 * HOUR), customerEmail: SUBJECT_EMAIL, amountMinor: 5_000, currency: 'USD' }),
    paymentRow({ ...mine, createdAt: at(25 * HOUR), customerEmail: SUBJECT_EMAIL, amountMinor: 40_000 }),
    paymentRow({ ...mine, livemode: true, createdAt: at(HOUR), customerEmail: SUBJECT_EMAIL, amountMinor: 40_000 }),
    paymentRow({ ...other, createdAt: at(HOUR), customerEmail: SUBJECT_EMAIL, amountMinor: 40_000 }),
  ];
  await insertPayments(t.rt.db, [...shared, ...otherCustomers(200 - shared.length)]);
});
afterAll(() => t.close());

describe(`risk evaluation cost (${dialectName})`, () => {
  test('a count per card over 10 minutes: the 3 payments of the card in the window plus the one evaluated', async () => {
    expect(await aggregateValue(f.ctx, CARD_10M, riskSubject(f), NOW)).toBe(4);
    // scoped to the tenant's own payments: the other tenant's payment of the card counts for it alone
    const otherCtx = operatorContext(t.rt, { level: 'tenant', tenantId: other.tenantId, livemode: false });
    expect(await aggregateValue(otherCtx, CARD_10M, riskSubject(other), NOW)).toBe(2);
    // a wider window reaches the older ones; a card never seen counts the payment alone
    expect(await aggregateValue(f.ctx, { ...CARD_10M, period: { value: 1, unit: 'day' } }, riskSubject(f), NOW)).toBe(6);
    const unseen = riskSubject(f, { card: { fingerprint: 'fp_never_seen', bin: '424242', brand: 'visa', country: 'DE' } });
    expect(await aggregateValue(f.ctx, CARD_10M, unseen, NOW)).toBe(1);
  });

  test('a sum per email over 1 day: the amounts of the currency in the window plus the amount evaluated', async () => {
    expect(await aggregateValue(f.ctx, EMAIL_SUM_1D, riskSubject(f), NOW)).toBe(10_000 + 20_000 + 2_500);
    expect(await aggregateValue(f.ctx, { ...EMAIL_SUM_1D, currency: 'USD' }, riskSubject(f), NOW)).toBe(5_000);
    // without an email there is nothing to share: the payment's own amount
    expect(await aggregateValue(f.ctx, EMAIL_SUM_1D, riskSubject(f, { email: null }), NOW)).toBe(2_500);
  });

  test('the same number of queries with 200 and with 2,200 past payments, and the same decision', async () => {
    const evaluate = () => recordQueries(t.rt.db, () => evaluateRisk(f.ctx, riskSubject(f), NOW));
    // as on the payment path: inside the payment's transaction
    const evaluateInTransaction = () => recordQueries(t.rt.db, () => inTransaction(f.ctx, (tx) => evaluateRisk(tx, riskSubject(f), NOW)));
    const small = await evaluate();
    // the first transaction reads the configuration; the next ones find it kept (db/statements' ConfigCache) while
    // no configuration changes: both measured below find it kept
    await evaluateInTransaction();
    const smallInTransaction = await evaluateInTransaction();
    expect(smallInTransaction.result).toEqual(small.result);
    // risky network (ip in the listed CIDR) 20 + card velocity (4 >= 4) 30 = 50: the challenge threshold
    expect(small.result).toMatchObject({ decision: 'challenge', score: 50, planIds: [f.planId] });
    expect(small.result.matchedRules.map((r) => r.id)).toEqual([f.ruleIds.riskyNetwork, f.ruleIds.cardVelocity]);
    // configuration, plans, rules, two list lookups (values, ip ranges), one statement per aggregation
    expect(small.count).toBeLessThanOrEqual(7);

    // 2,000 more: other customers, and the card and the email again outside their windows
    const mine = { tenantId: f.tenantId, merchantId: f.merchantId };
    await insertPayments(t.rt.db, [
      ...otherCustomers(1_600),
      ...Array.from({ length: 200 }, (_, i) =>
        paymentRow({ ...mine, createdAt: at(11 * MINUTE + i * MINUTE), cardFingerprint: SUBJECT_CARD }),
      ),
      ...Array.from({ length: 200 }, (_, i) =>
        paymentRow({ ...mine, createdAt: at(25 * HOUR + i * MINUTE), customerEmail: SUBJECT_EMAIL }),
      ),
    ]);
    expect(await t.rt.db.models.Payment.count({ where: { tenantId: f.tenantId, livemode: false, deletedAt: null } })).toBe(2_000 + 200 - 5);
    const large = await evaluate();
    expect(large.count).toBe(small.count);
    expect(large.result).toEqual(small.result);
    const largeInTransaction = await evaluateInTransaction();
    expect(largeInTransaction.count).toBe(smallInTransaction.count);
    expect(largeInTransaction.result).toEqual(small.result);
  });

  test('each aggregation is one count or sum of the payments table through a payments_risk_* index, never rows loaded', async () => {
    // Postgres plans from statistics autovacuum gathers in the background: gather them now (SQLite keeps none)
    if (onPostgres) await t.rt.db.sequelize.query('ANALYZE "payments"');
    const { sql } = await recordQueries(t.rt.db, () => evaluateRisk(f.ctx, riskSubject(f), NOW), { capture: true });
    const onPayments = sql.filter((s) => /FROM [`"]payments[`"]/i.test(s));
    expect(onPayments).toHaveLength(2);
    for (const statement of onPayments) {
      expect(statement).toMatch(/^SELECT (count\(\*\)|sum\([`"]amountMinor[`"]\)) AS [`"](count|sum)[`"] FROM/i);
      const text = statement.replace(/;\s*$/, '');
      const plan = onPostgres
        ? (await t.rt.db.sequelize.query<Record<string, string>>(`EXPLAIN ${text}`, { type: QueryTypes.SELECT })).map(
            (r) => r['QUERY PLAN'],
          )
        : (await t.rt.db.sequelize.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, { type: QueryTypes.SELECT })).map(
            (r) => r.detail,
          );
      expect(plan.join('\n')).toMatch(/payments_risk_(card|email)\b/);
    }
  });
});
