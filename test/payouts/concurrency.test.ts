import { useApiHarness } from '../helpers/api';
import { expectLedgerInvariant } from '../helpers/ledger';
import { dialectName, onPostgres } from '../helpers/db';
import { merchantBalance, saveMethod, withdrawalSettings } from '../helpers/withdrawals';
import { fundMerchant } from '../helpers/funding';
import { closeRuntime, openRuntime, type Runtime } from '../../src/runtime';
import { payoutsJob } from '../../src/jobs/payouts';
import type { PayoutRunResult } from '../../src/services/payouts/run';

/**
 * Once per period across every process: runtimes on the same database (each its own pool, as two `serve` processes)
 * run the payouts job at the same moment; one payout is made per merchant and currency, and the ledger moves once.
 * Real concurrency on Postgres (row locks, the unique key): four runtimes; on SQLite three (one writer: `serve` and two
 * `jobs run` beside it), whose writers the database serializes: runtimes of one process share the file's write lock
 * (src/db/database.ts), so no writer waits in SQLite's busy handler until SQLITE_BUSY.
 */

jest.setTimeout(120_000);

let others: Runtime[];

const h = useApiHarness({ start: '2026-03-02T08:00:00.000Z' });
beforeAll(async () => {
  others = await Promise.all(
    (onPostgres ? [1, 2, 3] : [1, 2]).map(() => openRuntime(h.rt.config, { migrate: false, clock: h.clock, logger: h.rt.logger })),
  );
  await withdrawalSettings(h, { withdrawalCoolingPeriodHours: 0 });
  const method = await saveMethod(h);
  await h.as(h.sandbox.merchantKey.secretKey).put('/v1/payout-schedule', { interval: 'daily', withdrawalMethodId: method.id }).expect(200);
});
h.beforeClose(async () => {
  await expectLedgerInvariant(h.rt);
  for (const rt of others) await closeRuntime(rt);
});

test(`${onPostgres ? 'four' : 'three'} processes running the job at once make one payout per period (${dialectName})`, async () => {
  for (let day = 0; day < 3; day++) {
    await fundMerchant(h, 10_000 + day);
    const results = (await Promise.all([h.rt, ...others, h.rt].map((rt) => payoutsJob.runNow(rt)))) as PayoutRunResult[];
    const created = results.flatMap((r) => r.created);
    expect(created).toHaveLength(1);
    expect(created[0].amount.valueMinor).toBe(10_000 + day - 25);
    // every payout sent once and paid once
    expect(results.flatMap((r) => r.paid)).toEqual([created[0].id]);
    expect(await merchantBalance(h)).toMatchObject({ available: 0, payable: 0 });
    const entries = await h.rt.db.models.LedgerEntry.count({ where: { sourceId: created[0].id } });
    expect(entries).toBe(5); // payout: 2 lines; payout_paid: payable, clearing, the tenant's fee
    h.clock.advance(86_400_000);
  }
  const payouts = await h.rt.db.models.Payout.count();
  expect(payouts).toBe(3);
  const events = await h.rt.db.models.Event.count({ where: { type: 'payout.created' } });
  expect(events).toBe(3);
});
