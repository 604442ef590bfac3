import { useApiHarness } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { insertPayments, paymentRow } from '../../bench/risk-fixture';
import { COUNT_EXACT_UP_TO } from '../../src/db/scoped';

// totalCount stays cheap at large row counts (issue 9): exact and current up to COUNT_EXACT_UP_TO records (a count
// that stops there), beyond that an exact count this process refreshes at most every 30 s.

const h = useApiHarness();

const page = async (query: string) => {
  const res = await h.as(h.sandbox.merchantKey.secretKey).get(`/v1/payments?${query}`);
  expect(res.status).toBe(200);
  return res.body as { data: Array<{ id: string }>; pagination: { totalCount: number; hasMore: boolean; nextCursor: string | null } };
};

const rows = (count: number, status: 'captured' | 'failed', from: number) =>
  Array.from({ length: count }, (_, i) =>
    paymentRow({ tenantId: h.sandbox.tenantId, merchantId: h.sandbox.merchantId, createdAt: new Date(from + i * 1000), status }),
  );

describe(`list totalCount (${dialectName})`, () => {
  test('exact and current up to the bound, exact past it, and pages unaffected', async () => {
    const start = Date.parse('2026-01-01T00:00:00Z');
    await insertPayments(h.rt.db, rows(3, 'failed', start));
    expect((await page('status=failed')).pagination.totalCount).toBe(3);
    await insertPayments(h.rt.db, rows(2, 'failed', start + 10_000));
    // small lists: the count is current at once
    expect((await page('status=failed')).pagination.totalCount).toBe(5);

    await insertPayments(h.rt.db, rows(COUNT_EXACT_UP_TO + 5, 'captured', start + 100_000));
    const large = await page('status=captured&limit=20');
    expect(large.pagination.totalCount).toBe(COUNT_EXACT_UP_TO + 5);
    expect(large.data).toHaveLength(20);
    expect(large.pagination.hasMore).toBe(true);
    const all = await page('limit=20');
    expect(all.pagination.totalCount).toBe(COUNT_EXACT_UP_TO + 10);
    const next = await page(`limit=20&cursor=${all.pagination.nextCursor}`);
    expect(next.data[0].id).toBe(all.pagination.nextCursor);
    expect(next.pagination.totalCount).toBe(COUNT_EXACT_UP_TO + 10);

    // a list known to be beyond the bound is not walked to the bound again while its count is kept: no count at all
    const counts: string[] = [];
    const hook = (_options: unknown, query: { sql?: string }) => {
      if (/count\(\*\)/i.test(String(query.sql))) counts.push(String(query.sql));
    };
    h.rt.db.sequelize.addHook('beforeQuery', 'list-count', hook as never);
    try {
      const again = await page('status=captured&limit=20');
      expect(again.pagination.totalCount).toBe(COUNT_EXACT_UP_TO + 5);
      expect(counts).toEqual([]);
      // a small list is still counted, and current
      expect((await page('status=failed')).pagination.totalCount).toBe(5);
      expect(counts).toHaveLength(1);
    } finally {
      h.rt.db.sequelize.removeHook('beforeQuery', 'list-count');
    }
  });
});
