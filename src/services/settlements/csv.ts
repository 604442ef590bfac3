import type { CallerContext } from '../../domain/context';
import { majorDecimal, type Money } from '../../domain/money';
import { toCsv, UTF8_BOM } from '../../util/csv';
import { TOTAL_NAMES, statementWithLines, type Balances, type FeeParts } from './statements';

// A statement as a CSV file for spreadsheets (GET /v1/settlements/{id}/download, `payplane settlements download`):
// one table, a header row, then a record per line, then the opening and closing balances and the totals, told apart by
// the first column. Amounts are plain decimals in major units (the currency's own decimals, never through floating
// point), the currency in a column of its own; instants are ISO 8601 in UTC. The fee's parts are columns for tenant
// and platform callers only (a merchant sees the total fee, as in the API). The file starts with a UTF-8 byte order
// mark: Excel, the spreadsheet a merchant's finance team most likely opens it in, reads a UTF-8 file without one in
// the system's legacy code page and garbles non-ASCII descriptions; LibreOffice, Numbers, Google Sheets and RFC 4180
// parsers (csv-parse with bom: true, Python's utf-8-sig) take it as it is meant.

const FEE_PARTS: (keyof FeeParts)[] = ['providerFee', 'tenantFee', 'platformFee', 'partnerCommission'];
const PART_COLUMNS: Record<keyof FeeParts, string> = {
  providerFee: 'provider_fee',
  tenantFee: 'tenant_fee',
  platformFee: 'platform_fee',
  partnerCommission: 'partner_commission',
};
const BALANCES: (keyof Balances)[] = ['pending', 'available', 'reserved', 'payable'];

const amount = (m: Money | null | undefined) => (m ? majorDecimal(m) : '');

export async function statementCsv(ctx: CallerContext, id: string): Promise<{ filename: string; bytes: Buffer }> {
  const { statement: st, lines } = await statementWithLines(ctx, id);
  // as the schemas' tenantOnly fee breakdown: tenant and platform callers
  const parts = ctx.level !== 'merchant';
  const header = [
    'record',
    'occurred_at',
    'type',
    'source_type',
    'source_id',
    'balance_type',
    'description',
    'currency',
    'amount',
    'fee',
    'net',
    ...(parts ? FEE_PARTS.map((p) => PART_COLUMNS[p]) : []),
    'line_id',
  ];
  const row = (values: Partial<Record<string, string | number | null>>) => header.map((column) => values[column] ?? '');
  const records: Array<Array<string | number | null>> = [header];
  for (const line of lines) {
    records.push(
      row({
        record: 'line',
        occurred_at: line.occurredAt,
        type: line.type,
        source_type: line.sourceType,
        source_id: line.sourceId,
        balance_type: line.balanceType,
        description: line.description,
        currency: line.net.currency,
        amount: amount(line.amount),
        fee: amount(line.fee),
        net: amount(line.net),
        line_id: line.id,
        ...(parts
          ? Object.fromEntries(FEE_PARTS.map((p) => [PART_COLUMNS[p], line.feeBreakdown ? amount(line.feeBreakdown[p]) : '']))
          : {}),
      }),
    );
  }
  for (const [record, balances, at] of [
    ['opening_balance', st.openingBalance, st.periodStart],
    ['closing_balance', st.closingBalance, st.periodEnd],
  ] as const) {
    for (const b of BALANCES)
      records.push(row({ record, occurred_at: at, balance_type: b, currency: st.currency, net: amount(balances[b]) }));
  }
  for (const name of TOTAL_NAMES) {
    const value = st.totals[name];
    records.push(
      row({
        record: 'total',
        occurred_at: st.periodEnd,
        type: name,
        currency: st.currency,
        net: amount(value),
        ...(parts && name === 'fees' ? Object.fromEntries(FEE_PARTS.map((p) => [PART_COLUMNS[p], amount(st.totals.feeBreakdown[p])])) : {}),
      }),
    );
  }
  const day = st.periodStart.slice(0, 10);
  return {
    filename: `settlement-${day}-${st.currency}-${st.merchantId}.csv`,
    bytes: Buffer.from(UTF8_BOM + toCsv(records), 'utf8'),
  };
}
