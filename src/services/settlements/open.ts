import type { CallerContext } from '../../domain/context';
import { scoped } from '../../db/scoped';
import { MERCHANT_ACCOUNTS, type LedgerAccount } from '../../db/models/ledger';

// A settlement statement is opened by its merchant's first ledger movement of the UTC day in a currency: ledger.post
// calls openStatements with the lines it writes. One INSERT … ON CONFLICT DO NOTHING per posting, deferred with the
// posting's entries (src/db/statements.ts defer): on Postgres no statement more than the entries' own, on SQLite one
// more in the same trip (test/perf/hot-path.test.ts counts them).

const DAY_MS = 86_400_000;

/** 00:00 UTC of the day of `at`. */
export function dayStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** 00:00 UTC of the day after the day of `at`. */
export function dayEnd(at: Date): Date {
  return new Date(dayStart(at).getTime() + DAY_MS);
}

export async function openStatements(
  writer: CallerContext,
  posting: { tenantId: string; livemode: boolean },
  lines: { account: LedgerAccount; ownerId: string; currency: string; amountMinor: number }[],
  at: Date,
): Promise<void> {
  const keys = new Map<string, { merchantId: string; currency: string }>();
  for (const line of lines) {
    if (line.amountMinor === 0 || !MERCHANT_ACCOUNTS.includes(line.account)) continue;
    keys.set(`${line.ownerId}.${line.currency}`, { merchantId: line.ownerId, currency: line.currency });
  }
  if (!keys.size) return;
  const periodStart = dayStart(at);
  const periodEnd = dayEnd(at);
  await scoped(writer, writer.db.models.SettlementStatement).ensureLater(
    [...keys.values()].map(({ merchantId, currency }) => ({
      tenantId: posting.tenantId,
      livemode: posting.livemode,
      merchantId,
      currency,
      periodStart,
      periodEnd,
      status: 'open' as const,
    })),
  );
}
