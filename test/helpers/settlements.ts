import type { CallerContext } from '../../src/domain/context';
import { balancesOf } from '../../src/services/ledger/balances';
import {
  listSettlementLines,
  listSettlements,
  type SettlementLine,
  type SettlementStatement,
} from '../../src/services/settlements/statements';

const TYPES = ['pending', 'available', 'reserved', 'payable'] as const;

async function everyPage<T>(
  page: (cursor: string | undefined) => Promise<{ data: T[]; pagination: { nextCursor: string | null } }>,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const p = await page(cursor);
    out.push(...p.data);
    if (!p.pagination.nextCursor) return out;
    cursor = p.pagination.nextCursor;
  }
}

/**
 * The settlement identities over every statement `ctx` sees: per merchant and currency, in day order, opening + the
 * lines = closing per balance type, a day's opening is the day before's closing (0 for the first), the totals' net is
 * the lines' net, and the last closing is the merchant's ledger balance. Returns how many statements it checked.
 */
export async function expectSettlementIdentities(ctx: CallerContext): Promise<number> {
  const statements = await everyPage<SettlementStatement>((cursor) => listSettlements(ctx, {}, { cursor, limit: 100, sortOrder: 'asc' }));
  const groups = new Map<string, SettlementStatement[]>();
  for (const st of statements) {
    const key = `${st.merchantId}|${st.currency}`;
    groups.set(key, [...(groups.get(key) ?? []), st]);
  }
  const problems: string[] = [];
  for (const [key, list] of groups) {
    list.sort((a, b) => a.periodStart.localeCompare(b.periodStart));
    let previous: SettlementStatement | null = null;
    for (const st of list) {
      const lines = await everyPage<SettlementLine>((cursor) => listSettlementLines(ctx, st.id, { cursor, limit: 100, sortOrder: 'asc' }));
      if (lines.length !== st.lineCount) problems.push(`${key} ${st.periodStart}: ${lines.length} lines, lineCount ${st.lineCount}`);
      const net = lines.reduce((sum, l) => sum + l.net.valueMinor, 0);
      if (net !== st.totals.net.valueMinor)
        problems.push(`${key} ${st.periodStart}: lines net ${net}, totals.net ${st.totals.net.valueMinor}`);
      for (const type of TYPES) {
        const moved = lines.filter((l) => l.balanceType === type).reduce((sum, l) => sum + l.net.valueMinor, 0);
        if (st.openingBalance[type].valueMinor + moved !== st.closingBalance[type].valueMinor)
          problems.push(`${key} ${st.periodStart} ${type}: opening + lines ≠ closing`);
        const before = previous ? previous.closingBalance[type].valueMinor : 0;
        if (st.openingBalance[type].valueMinor !== before)
          problems.push(
            `${key} ${st.periodStart} ${type}: opening ${st.openingBalance[type].valueMinor}, the day before closed at ${before}`,
          );
      }
      previous = st;
    }
    const [merchantId, currency] = key.split('|');
    const [balance] = await balancesOf(ctx, { merchantId, currency });
    for (const type of TYPES) {
      if ((balance?.[type].valueMinor ?? 0) !== previous!.closingBalance[type].valueMinor)
        problems.push(`${key} ${type}: last closing ${previous!.closingBalance[type].valueMinor}, balance ${balance?.[type].valueMinor}`);
    }
  }
  if (problems.length) throw new Error(`settlement identities broken:\n${problems.slice(0, 20).join('\n')}`);
  return statements.length;
}
