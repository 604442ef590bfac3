import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { CallerContext } from '../../src/domain/context';
import type { ListParams } from '../../src/db/scoped';
import { ADDED, SUPERSEDED } from '../../src/db/migrations/0018_list_indexes';
import { operatorContext } from '../../src/services/access/operators';
import { listApiKeys } from '../../src/services/api-keys/keys';
import { listAuditEntries } from '../../src/services/audit/entries';
import { listSessions } from '../../src/services/checkout/sessions';
import { listBalanceTransactions } from '../../src/services/ledger/balance-transactions';
import { listMerchants } from '../../src/services/organization/merchants';
import { listPayments } from '../../src/services/payments/payments';
import { recoverStalledCalls } from '../../src/services/payments/recovery';
import { listRefunds } from '../../src/services/payments/refunds';
import { listDeliveries } from '../../src/services/webhooks/deliveries';
import { listWithdrawals } from '../../src/services/withdrawals';
import { recordQueries } from '../../bench/risk-fixture';
import { dialectName, onPostgres } from '../helpers/db';
import { copyRows, createListHarness, type ListHarness } from './list-fixture';

// Issue 9: "indexes for every list filter and the cursor order". Thousands of rows in the big tables, over four
// tenants of four merchants, both modes, several statuses and currencies; statistics gathered (ANALYZE, both
// databases). Each list runs through its service function as a merchant, a tenant and (where the operation allows)
// a platform caller, with and without its filters; the SQL it sent is captured and explained:
// - the page query reaches the table through an index whose condition holds the list's equality columns (scope and
//   filters), never by a scan of the table;
// - the rows come in the index's (createdAt, id) order: no sort (SQLite: no "USE TEMP B-TREE"; Postgres: no Sort
//   node). Postgres plans by cost, and with a few thousand rows a sort of a few dozen matches can be estimated
//   cheaper than the ordered index it would use at scale: there the order is checked with `SET LOCAL
//   enable_sort = off` in the EXPLAIN's own transaction, which leaves a Sort in the plan only when no index can
//   give the order; the scan check uses the plan as chosen.
// Filters naming one record's few rows (a payment's refunds, a session's payments, a source's ledger entries, an
// audit target) only need the index of that column: sorting their handful of rows is fine.

let h: ListHarness;
let A: string;
let mA: string[];
const N = 3000;
const BASE = Date.parse('2026-02-20T00:00:00.000Z');
// pairs of rows share a createdAt, so the id breaks ties as in real bursts
const at = (i: number) => new Date(BASE - Math.floor(i / 2) * 1000);
const BIG = new Set([
  'payments',
  'refunds',
  'checkout_sessions',
  'webhook_deliveries',
  'ledger_entries',
  'withdrawals',
  'audit_entries',
  'payment_attempts',
]);

beforeAll(async () => {
  h = await createListHarness();
  A = h.m.sandbox.tenantId;
  mA = [h.m.sandbox.merchantId, randomUUID(), randomUUID(), randomUUID()];
  const db = h.m.rt.db;
  const t = h.templates;
  // four tenants (A, the sandbox tenant, and three others) of four merchants each; one row in five live
  const tenants = [A, randomUUID(), randomUUID(), randomUUID()];
  const merchantsOf = new Map(tenants.map((id) => [id, id === A ? mA : [randomUUID(), randomUUID(), randomUUID(), randomUUID()]]));
  const scope = (i: number) => {
    const tenantId = tenants[i % 4];
    return { tenantId, merchantId: merchantsOf.get(tenantId)![(i >> 2) % 4], livemode: i % 5 === 4, createdAt: at(i), updatedAt: at(i) };
  };
  const pick = <T>(list: readonly T[], i: number) => list[(i * 7 + (i >> 3)) % list.length];
  const currencies = ['EUR', 'USD', 'GBP'];
  await copyRows(db, 'Payment', t.payment, N, (i) => ({
    ...scope(i),
    status: pick(['captured', 'captured', 'captured', 'failed', 'requires_capture', 'refunded', 'voided', 'processing'], i),
    currency: pick(currencies, i),
    checkoutSessionId: randomUUID(),
  }));
  await copyRows(db, 'PaymentAttempt', t.attempt, N, (i) => ({
    ...scope(i),
    paymentId: randomUUID(),
    status: i % 100 === 0 ? 'pending' : 'succeeded',
    providerReference: i % 200 === 0 ? null : `ref_${i}`,
  }));
  await copyRows(db, 'CheckoutSession', t.session, N, (i) => ({
    ...scope(i),
    status: pick(['open', 'complete', 'complete', 'expired'], i),
    paymentId: i % 2 ? randomUUID() : null,
  }));
  await copyRows(db, 'Refund', t.refund, N, (i) => ({
    ...scope(i),
    paymentId: i < 40 ? h.paymentId : randomUUID(),
    status: pick(['succeeded', 'pending', 'failed'], i),
    providerReference: i % 100 === 0 ? null : `ref_${i}`,
  }));
  await copyRows(db, 'WebhookDelivery', t.delivery, N, (i) => ({
    ...scope(i),
    status: pick(['succeeded', 'succeeded', 'succeeded', 'failed', 'pending'], i),
    eventType: pick(['payment.captured', 'payment.failed', 'refund.succeeded', 'checkout.session.completed'], i),
    endpointId: i % 50 === 0 ? t.delivery.endpointId : randomUUID(),
  }));
  await copyRows(db, 'LedgerEntry', t.merchantEntry, N, (i) => ({
    ...scope(i),
    ownerId: scope(i).merchantId,
    currency: pick(currencies, i),
    sourceType: pick(['payment', 'payment', 'refund', 'release', 'withdrawal'], i),
    account: pick(['merchant_pending', 'merchant_available', 'merchant_reserve'], i),
    sourceId: randomUUID(),
  }));
  await copyRows(db, 'LedgerEntry', t.otherEntry, N, (i) => ({ ...scope(i), merchantId: null, sourceId: randomUUID() }));
  await copyRows(db, 'AuditEntry', t.audit, N, (i) => ({
    ...scope(i),
    action: pick(['payment.created', 'payment.captured', 'refund.created', 'merchant.updated'], i),
    targetId: randomUUID(),
    actorId: pick(['key_a', 'key_b', 'key_c', 'user_d'], i),
  }));
  await copyRows(db, 'Withdrawal', t.withdrawal, N, (i) => ({
    ...scope(i),
    status: pick(['pending', 'completed', 'completed', 'rejected', 'canceled'], i),
    currency: pick(currencies, i),
  }));
  await copyRows(db, 'ApiKey', t.apiKey, 300, (i) => ({ ...scope(i), status: pick(['active', 'revoked'], i) }));
  await copyRows(db, 'Merchant', t.merchant, 300, (i) => ({
    tenantId: scope(i).tenantId,
    createdAt: at(i),
    updatedAt: at(i),
    status: pick(['active', 'suspended'], i),
  }));
  await db.sequelize.query('ANALYZE');
}, 300_000);
afterAll(() => h.m.close());

/** The statements of `run` that read a page of `table` (its ORDER BY queries), each with its plan. */
async function pagePlans(
  run: () => Promise<unknown>,
  table: string,
  noSort: boolean,
): Promise<{ sql: string; chosen: string[]; ordered: string[] }[]> {
  const { sql } = await recordQueries(h.m.rt.db, run, { capture: true });
  const pages = sql
    .filter((s) => /^SELECT/i.test(s) && new RegExp(`FROM [\`"]${table}[\`"]`).test(s) && /ORDER BY/i.test(s))
    .map((s) => s.replace(/;\s*$/, ''));
  const out = [];
  for (const statement of pages) {
    const chosen = await explain(statement, false);
    out.push({ sql: statement, chosen, ordered: onPostgres && noSort ? await explain(statement, true) : chosen });
  }
  return out;
}

async function explain(statement: string, noSort: boolean): Promise<string[]> {
  const sequelize = h.m.rt.db.sequelize;
  if (!onPostgres)
    return (await sequelize.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${statement}`, { type: QueryTypes.SELECT })).map((r) => r.detail);
  return h.m.rt.db.transaction(async (transaction) => {
    if (noSort) await sequelize.query('SET LOCAL enable_sort = off', { transaction });
    const rows = await sequelize.query<Record<string, string>>(`EXPLAIN ${statement}`, { type: QueryTypes.SELECT, transaction });
    return rows.map((r) => r['QUERY PLAN']);
  });
}

/** What is wrong with a page query's plans (empty when nothing). */
function problemsOf(table: string, eq: string[], ordered: boolean, plan: { chosen: string[]; ordered: string[] }): string[] {
  const problems: string[] = [];
  if (onPostgres) {
    if (BIG.has(table) && plan.chosen.some((l) => /Seq Scan/.test(l))) problems.push('a sequential scan of the table');
    if (plan.ordered.some((l) => /Seq Scan/.test(l))) problems.push('a sequential scan of the table (enable_sort off)');
    if (ordered && plan.ordered.some((l) => /\bSort\b/.test(l)))
      problems.push('a sort even with enable_sort off: no index gives the order');
    const conditions = plan.ordered.filter((l) => /Index Cond:/.test(l)).join(' ');
    for (const column of eq)
      if (!new RegExp(`[("]${column}"?\\)?(::\\w+)? = `).test(conditions)) problems.push(`${column} is not an index condition`);
  } else {
    if (plan.chosen.some((l) => /^SCAN /.test(l) && (eq.length > 0 || !/USING (COVERING )?INDEX/.test(l))))
      problems.push('a scan of the table');
    if (ordered && plan.chosen.some((l) => /TEMP B-TREE/.test(l))) problems.push('a sort (temp b-tree)');
    const search = plan.chosen.find((l) => /^(SEARCH|SCAN) \S+ USING (COVERING )?INDEX/.test(l));
    if (!search) problems.push('no index used');
    for (const column of eq) if (!search?.includes(`${column}=?`)) problems.push(`${column} is not an index condition`);
  }
  return problems;
}

const page: ListParams = { limit: 20, sortOrder: 'desc' };

interface PlanCase {
  name: string;
  table: string;
  run: (ctx: CallerContext) => Promise<unknown>;
  /** the columns the index condition must hold */
  eq: string[];
  /** false for a lookup of one record's few rows, which may be sorted */
  ordered: boolean;
  ctx: () => CallerContext;
}

type Level = 'merchant' | 'tenant' | 'platform';
const contextOf = (level: Level) => () =>
  operatorContext(
    h.m.rt,
    level === 'platform'
      ? { level, tenantId: null, livemode: false }
      : { level, tenantId: A, merchantId: level === 'merchant' ? mA[0] : null, livemode: false },
  );
/** the scope's equality columns at each level */
const SCOPE: Record<Level, string[]> = { merchant: ['merchantId', 'livemode'], tenant: ['tenantId', 'livemode'], platform: ['livemode'] };

const cases: PlanCase[] = [];
function add(
  name: string,
  table: string,
  levels: Level[],
  run: PlanCase['run'],
  filterEq: string[] = [],
  options: { ordered?: boolean; scoped?: boolean } = {},
): void {
  for (const level of levels) {
    // a merchantId filter (tenant or platform callers) narrows like a merchant key's scope
    const scope = filterEq.includes('merchantId') ? ['livemode'] : SCOPE[level];
    const eq = options.scoped === false ? filterEq : [...new Set([...scope, ...filterEq])];
    cases.push({ name: `${name} [${level}]`, table, run, eq, ordered: options.ordered ?? true, ctx: contextOf(level) });
  }
}
const M: Level[] = ['merchant'];
const T: Level[] = ['tenant'];
const MT: Level[] = ['merchant', 'tenant'];
const TP: Level[] = ['tenant', 'platform'];
const MTP: Level[] = ['merchant', 'tenant', 'platform'];
const selective = { ordered: false, scoped: false };
const firstCursor = (result: unknown) => (result as { pagination: { nextCursor: string } }).pagination.nextCursor;

// GET /v1/payments: status, merchantId, checkoutSessionId
add('payments', 'payments', MTP, (c) => listPayments(c, {}, page));
add('payments ?status', 'payments', MT, (c) => listPayments(c, { status: 'failed' }, page), ['status']);
add('payments ?status', 'payments', ['platform'], (c) => listPayments(c, { status: 'failed' }, page));
add('payments ?merchantId', 'payments', TP, (c) => listPayments(c, { merchantId: mA[1] }, page), ['merchantId']);
// a merchant key naming its own merchant: the column appears twice in the WHERE (filter and scope)
add('payments ?merchantId=own', 'payments', M, (c) => listPayments(c, { merchantId: mA[0], status: 'failed' }, page), [
  'merchantId',
  'status',
]);
add('payments ?merchantId&status', 'payments', T, (c) => listPayments(c, { merchantId: mA[1], status: 'failed' }, page), [
  'merchantId',
  'status',
]);
add(
  'payments ?checkoutSessionId',
  'payments',
  MT,
  (c) => listPayments(c, { checkoutSessionId: h.templates.payment.checkoutSessionId as string }, page),
  ['checkoutSessionId'],
  selective,
);
// the page after a cursor, and the page before it (prevCursor), both ways
add(
  'payments after a cursor',
  'payments',
  MT,
  async (c) =>
    listPayments(c, { status: 'captured' }, { ...page, cursor: firstCursor(await listPayments(c, { status: 'captured' }, page)) }),
  ['status'],
);
add('payments after a cursor, ascending', 'payments', MT, async (c) => {
  const asc: ListParams = { limit: 20, sortOrder: 'asc' };
  return listPayments(c, {}, { ...asc, cursor: firstCursor(await listPayments(c, {}, asc)) });
});
// GET /v1/payments/{id}/refunds
add('refunds of a payment', 'refunds', MTP, (c) => listRefunds(c, h.paymentId, page), ['paymentId'], selective);
// GET /v1/checkout-sessions: status, merchantId, paymentId, createdFrom/createdTo
add('checkout sessions', 'checkout_sessions', MT, (c) => listSessions(c, {}, page));
add('checkout sessions ?status', 'checkout_sessions', MT, (c) => listSessions(c, { status: 'open' }, page), ['status']);
add('checkout sessions ?merchantId', 'checkout_sessions', T, (c) => listSessions(c, { merchantId: mA[1] }, page), ['merchantId']);
add('checkout sessions ?merchantId=own', 'checkout_sessions', M, (c) => listSessions(c, { merchantId: mA[0], status: 'open' }, page), [
  'merchantId',
  'status',
]);
add('checkout sessions ?merchantId&status', 'checkout_sessions', T, (c) => listSessions(c, { merchantId: mA[1], status: 'open' }, page), [
  'merchantId',
  'status',
]);
add('checkout sessions ?createdFrom&createdTo', 'checkout_sessions', MT, (c) =>
  listSessions(c, { createdFrom: '2026-02-19T12:00:00.000Z', createdTo: '2026-02-19T18:00:00.000Z' }, page),
);
add(
  'checkout sessions ?paymentId',
  'checkout_sessions',
  MT,
  (c) => listSessions(c, { paymentId: h.templates.session.paymentId as string }, page),
  ['paymentId'],
  selective,
);
// GET /v1/webhooks/deliveries (merchant), /v1/admin/webhook-deliveries: endpoint_id, status, eventType
add('webhook deliveries', 'webhook_deliveries', MTP, (c) => listDeliveries(c, {}, page));
add('webhook deliveries ?status', 'webhook_deliveries', MT, (c) => listDeliveries(c, { status: 'failed' }, page), ['status']);
add('webhook deliveries ?eventType', 'webhook_deliveries', MT, (c) => listDeliveries(c, { eventType: 'refund.succeeded' }, page), [
  'eventType',
]);
add('webhook deliveries ?status', 'webhook_deliveries', ['platform'], (c) => listDeliveries(c, { status: 'failed' }, page));
add(
  'webhook deliveries ?endpoint_id',
  'webhook_deliveries',
  MT,
  (c) => listDeliveries(c, { endpointId: h.templates.delivery.endpointId as string }, page),
  ['endpointId'],
  { scoped: false },
);
// GET /v1/balance-transactions: merchantId, currency, type, balanceType, sourceId
add('balance transactions', 'ledger_entries', MT, (c) => listBalanceTransactions(c, {}, page));
add('balance transactions ?merchantId', 'ledger_entries', T, (c) => listBalanceTransactions(c, { merchantId: mA[1] }, page), [
  'merchantId',
]);
add(
  'balance transactions ?merchantId=own',
  'ledger_entries',
  M,
  (c) => listBalanceTransactions(c, { merchantId: mA[0], currency: 'USD' }, page),
  ['merchantId', 'currency'],
);
add('balance transactions ?currency', 'ledger_entries', MT, (c) => listBalanceTransactions(c, { currency: 'USD' }, page), ['currency']);
add('balance transactions ?type', 'ledger_entries', MT, (c) => listBalanceTransactions(c, { type: 'withdrawal' }, page), ['sourceType']);
add('balance transactions ?balanceType', 'ledger_entries', MT, (c) => listBalanceTransactions(c, { balanceType: 'reserved' }, page), [
  'account',
]);
add(
  'balance transactions ?sourceId',
  'ledger_entries',
  MT,
  (c) => listBalanceTransactions(c, { sourceId: h.paymentId }, page),
  ['sourceId'],
  selective,
);
// GET /v1/withdrawals: status, entityId, currency
add('withdrawals', 'withdrawals', MT, (c) => listWithdrawals(c, {}, page));
add('withdrawals ?status', 'withdrawals', MT, (c) => listWithdrawals(c, { status: 'pending' }, page), ['status']);
add('withdrawals ?entityId', 'withdrawals', T, (c) => listWithdrawals(c, { entityId: mA[1] }, page), ['merchantId']);
add('withdrawals ?entityId=own', 'withdrawals', M, (c) => listWithdrawals(c, { entityId: mA[0], status: 'pending' }, page), [
  'merchantId',
  'status',
]);
add('withdrawals ?currency', 'withdrawals', MT, (c) => listWithdrawals(c, { currency: 'USD' }, page), ['currency']);
// GET /v1/audit-entries: action, targetId, actorId
add('audit entries', 'audit_entries', MTP, (c) => listAuditEntries(c, {}, page));
add('audit entries ?action', 'audit_entries', MT, (c) => listAuditEntries(c, { action: 'refund.created' }, page), ['action']);
add('audit entries ?actorId', 'audit_entries', MT, (c) => listAuditEntries(c, { actorId: 'user_d' }, page), ['actorId']);
add('audit entries ?action', 'audit_entries', ['platform'], (c) => listAuditEntries(c, { action: 'refund.created' }, page));
add('audit entries ?targetId', 'audit_entries', MTP, (c) => listAuditEntries(c, { targetId: h.paymentId }, page), ['targetId'], selective);
// GET /v1/api-keys, /v1/admin/merchants (small tables)
add('API keys', 'api_keys', MT, (c) => listApiKeys(c, {}, page));
add('merchants', 'merchants', T, (c) => listMerchants(c, {}, page), ['tenantId'], { scoped: false });
add('merchants', 'merchants', ['platform'], (c) => listMerchants(c, {}, page), [], { scoped: false });

describe(`list pages are index ranges in (createdAt, id) order (${dialectName})`, () => {
  test.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const plans = await pagePlans(() => c.run(c.ctx()), c.table, c.ordered);
    expect(plans.length).toBeGreaterThan(0);
    const report = plans.map((p) => ({ problems: problemsOf(c.table, c.eq, c.ordered, p), plan: p.ordered.join('\n') }));
    expect(report.filter((r) => r.problems.length)).toEqual([]);
  });

  test('the stalled-call recovery finds unsent attempts and refunds, and late voids due, through partial indexes, oldest first', async () => {
    const { sql } = await recordQueries(h.m.rt.db, () => recoverStalledCalls(h.m.rt, { staleMs: 10 * 365 * 86_400_000 }), {
      capture: true,
    });
    const scans = sql.filter((s) => /FROM [`"](payment_attempts|refunds)[`"]/.test(s));
    expect(scans).toHaveLength(3);
    for (const statement of scans) {
      const plan = (await explain(statement.replace(/;\s*$/, ''), false)).join('\n');
      expect(plan).toMatch(/(payment_attempts|refunds)_unsent|payment_attempts_late_void/);
      expect(plan).not.toMatch(/Seq Scan|\bSort\b|TEMP B-TREE|^SCAN /m);
    }
  });
});

describe('migration 0018', () => {
  const indexes = async (): Promise<Set<string>> => {
    const sequelize = h.m.rt.db.sequelize;
    const rows = onPostgres
      ? await sequelize.query<{ name: string }>(`SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public'`, {
          type: QueryTypes.SELECT,
        })
      : await sequelize.query<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'index'`, { type: QueryTypes.SELECT });
    return new Set(rows.map((r) => r.name));
  };

  test('replaces the superseded indexes, and its revert puts them back', async () => {
    const added = ADDED.map((i) => i.name);
    const superseded = SUPERSEDED.map((i) => i.name);
    // every superseded index has a successor on the same table that starts with its columns (livemode aside)
    for (const old of SUPERSEDED) {
      const by = ADDED.find((i) => i.name === old.by)!;
      const leading = by.fields.filter((f) => f !== 'livemode' || old.fields.includes(f)).slice(0, old.fields.length);
      expect({ table: by.table, leading }).toEqual({ table: old.table, leading: old.fields });
    }
    const after = await indexes();
    expect(added.filter((n) => !after.has(n))).toEqual([]);
    expect(superseded.filter((n) => after.has(n))).toEqual([]);

    // down to before 0018 (the migrations after it go first)
    const rolledBack = await h.m.rt.db.rollback('0018_list_indexes');
    expect(rolledBack[rolledBack.length - 1]).toBe('0018_list_indexes');
    const before = await indexes();
    expect(added.filter((n) => before.has(n))).toEqual([]);
    expect(superseded.filter((n) => !before.has(n))).toEqual([]);

    expect(await h.m.rt.db.migrate()).toEqual([...rolledBack].reverse());
    expect(await indexes()).toEqual(after);
  });
});
