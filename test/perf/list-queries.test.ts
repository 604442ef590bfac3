import { randomUUID } from 'node:crypto';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { recordQueries } from '../../bench/risk-fixture';
import { dialectName } from '../helpers/db';
import { copyRows, createListHarness, type ListHarness, type ModelName } from './list-fixture';

// Issue 9: "no N+1 reads". A list answers with the same number of SQL statements whatever the size of its page:
// presenting a record reads nothing per row. Each hot list is asked through the HTTP API (authentication, handler,
// presentation: the whole request) with limit=50, once holding 2 records and once holding 40, and the statements
// the database received are counted (bench/risk-fixture.ts's recordQueries). Authentication may read its key,
// tenant and merchant or find them cached: each count is the least of three requests, each after one more request
// of the same list.

let h: ListHarness;
/** a tenant of its own, whose lists hold only the copies made here */
let c: SandboxCredentials;
let paymentId: string;
let seq = 0;

beforeAll(async () => {
  h = await createListHarness();
  c = await createSandbox(h.m.rt, { name: 'Counted tenant' });
  // the set-up's own audit trail; the audit list is filled with copies below
  await h.m.rt.db.models.AuditEntry.destroy({ where: { tenantId: c.tenantId } });
  paymentId = randomUUID();
  await copyRows(h.m.rt.db, 'Payment', h.templates.payment, 1, () => ({ ...owned(), id: paymentId }));
}, 120_000);
afterAll(() => h.m.close());

/** The scope columns of a copy in the counted tenant's merchant (sandbox mode), at its own time. */
function owned(): Record<string, unknown> {
  const createdAt = new Date(Date.parse('2026-02-01T00:00:00.000Z') + ++seq * 1000);
  return { tenantId: c.tenantId, merchantId: c.merchantId, livemode: false, createdAt, updatedAt: createdAt };
}

interface Listed {
  count: number;
  rows: number;
  totalCount: number;
}

/** The statements one GET of `path` costs (the least of three), and the rows it answered. */
async function cost(key: string, path: string): Promise<Listed> {
  const caller = h.m.as(key);
  let best: Listed | null = null;
  for (let round = 0; round < 3; round++) {
    const warm = await caller.get(path);
    if (warm.status !== 200) throw new Error(`${path}: ${warm.status} ${JSON.stringify(warm.body)}`);
    const { result, count } = await recordQueries(h.m.rt.db, async () => caller.get(path));
    expect(result.status).toBe(200);
    if (!best || count < best.count) best = { count, rows: result.body.data.length, totalCount: result.body.pagination.totalCount };
  }
  return best!;
}

type Key = 'merchant' | 'tenant';

interface HotList {
  name: string;
  path: (key: Key) => string;
  model: ModelName;
  template: () => Record<string, unknown>;
  vary?: () => Record<string, unknown>;
  /** the callers that list it */
  keys: Key[];
}

const hot: HotList[] = [
  { name: 'payments', path: () => '/v1/payments', model: 'Payment', template: () => h.templates.payment, keys: ['merchant', 'tenant'] },
  {
    name: 'refunds of a payment',
    path: () => `/v1/payments/${paymentId}/refunds`,
    model: 'Refund',
    template: () => h.templates.refund,
    vary: () => ({ paymentId }),
    keys: ['merchant', 'tenant'],
  },
  {
    name: 'checkout sessions',
    path: () => '/v1/checkout-sessions',
    model: 'CheckoutSession',
    template: () => h.templates.session,
    keys: ['merchant', 'tenant'],
  },
  {
    name: 'webhook deliveries',
    path: (key) => (key === 'merchant' ? '/v1/webhooks/deliveries' : '/v1/admin/webhook-deliveries'),
    model: 'WebhookDelivery',
    template: () => h.templates.delivery,
    keys: ['merchant', 'tenant'],
  },
  {
    name: 'balance transactions',
    path: () => '/v1/balance-transactions',
    model: 'LedgerEntry',
    template: () => h.templates.merchantEntry,
    vary: () => ({ ownerId: c.merchantId, sourceId: randomUUID() }),
    keys: ['merchant', 'tenant'],
  },
  {
    name: 'withdrawals',
    path: () => '/v1/withdrawals',
    model: 'Withdrawal',
    template: () => h.templates.withdrawal,
    keys: ['merchant', 'tenant'],
  },
  {
    name: 'audit entries',
    path: () => '/v1/audit-entries',
    model: 'AuditEntry',
    template: () => h.templates.audit,
    keys: ['merchant', 'tenant'],
  },
  { name: 'API keys', path: () => '/v1/api-keys', model: 'ApiKey', template: () => h.templates.apiKey, keys: ['merchant', 'tenant'] },
  {
    name: 'merchants',
    path: () => '/v1/admin/merchants',
    model: 'Merchant',
    template: () => h.templates.merchant,
    vary: () => ({ merchantId: undefined }),
    keys: ['tenant'],
  },
];

describe(`a list costs the same statements for 2 and for 40 records (${dialectName})`, () => {
  test.each(hot.map((l) => [l.name, l] as const))('%s', async (_name, list) => {
    const secret = { merchant: c.merchantKey.secretKey, tenant: c.tenantKey.secretKey };
    const listed = (key: Key) => cost(secret[key], `${list.path(key)}?limit=50`);
    const copy = (count: number) => copyRows(h.m.rt.db, list.model, list.template(), count, () => strip({ ...owned(), ...list.vary?.() }));
    // as many copies as make 2 records for the first caller (API keys and merchants: the sandbox's own count)
    const first = await listed(list.keys[0]);
    expect(first.rows).toBeLessThanOrEqual(2);
    await copy(2 - first.rows);
    const small: Partial<Record<Key, Listed>> = {};
    for (const key of list.keys) small[key] = await listed(key);
    await copy(38);
    for (const key of list.keys) {
      const large = await listed(key);
      expect({ key, rows: large.rows - small[key]!.rows, all: large.rows === large.totalCount }).toEqual({ key, rows: 38, all: true });
      expect({ key, count: large.count }).toEqual({ key, count: small[key]!.count });
    }
    expect(small[list.keys[0]]!.rows).toBe(2);
  });
});

/** Drops the undefined values (a merchant copy has no merchantId column). */
function strip(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}
