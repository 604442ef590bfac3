import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as statements from '../../services/settlements/statements';
import { statementCsv } from '../../services/settlements/csv';
import { ListSettlementLinesQuery, ListSettlementsQuery, STATEMENT_RULE, SettlementLineSchema, SettlementStatementSchema } from './schemas';

const tag = 'Settlements';
const VIEW = 'payouts:settlements:view';
const BASE = '/v1/settlements';
const NOT_VISIBLE = "404 when absent or not visible to the caller (another tenant's or merchant's).";

/** Settlement statements (settlement.finalized). */
export const settlementOperations: Operation[] = [
  defineOperation({
    id: 'listSettlements',
    method: 'get',
    path: BASE,
    levels: ['M', 'T', 'P'],
    permission: VIEW,
    tag,
    summary: 'List settlement statements',
    description: `${STATEMENT_RULE} Newest first by default, in the caller's mode. Filters: merchantId, currency, status, periodFrom and periodTo (days, UTC, both included).`,
    kind: 'list',
    query: ListSettlementsQuery,
    response: SettlementStatementSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) =>
      statements.listSettlements(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getSettlement',
    method: 'get',
    path: `${BASE}/{id}`,
    levels: ['M', 'T', 'P'],
    permission: VIEW,
    tag,
    summary: 'Get a settlement statement, with its totals and opening and closing balances',
    description: `${STATEMENT_RULE} ${NOT_VISIBLE}`,
    kind: 'single',
    params: idParams,
    response: SettlementStatementSchema,
    handler: (ctx, { params }) => statements.getSettlement(ctx, params.id),
  }),
  defineOperation({
    id: 'listSettlementLines',
    method: 'get',
    path: `${BASE}/{id}/lines`,
    levels: ['M', 'T', 'P'],
    permission: VIEW,
    tag,
    summary: 'The lines of a settlement statement',
    description: `Every movement of the merchant's balances in the statement's currency and day, from the ledger's entries, in the order they happened: a posting's fee is a line of its own (fee, dispute_fee, withdrawal_fee; its parts in feeBreakdown for tenant and platform callers, merchants see the total fee). Cursor pagination. ${NOT_VISIBLE}`,
    kind: 'list',
    params: idParams,
    query: ListSettlementLinesQuery,
    response: SettlementLineSchema,
    handler: (ctx, { params, query }) => statements.listSettlementLines(ctx, params.id, query),
  }),
  defineOperation({
    id: 'downloadSettlement',
    method: 'get',
    path: `${BASE}/{id}/download`,
    levels: ['M', 'T', 'P'],
    permission: VIEW,
    tag,
    summary: 'The settlement statement as CSV',
    description: `RFC 4180 CSV (text/csv, UTF-8 with a byte order mark for spreadsheets, CRLF records): a header row, a record per line (record = line), then the opening and closing balances (opening_balance, closing_balance) and the totals (total). Amounts are plain decimals in major units, the currency in its own column; instants ISO 8601 UTC; a text field a spreadsheet would read as a formula starts with an apostrophe. The fee's parts are columns for tenant and platform callers only. ${NOT_VISIBLE}`,
    kind: 'file',
    fileTypes: ['text/csv'],
    params: idParams,
    response: SettlementStatementSchema,
    handler: async (ctx, { params }) => {
      const file = await statementCsv(ctx, params.id);
      return { contentType: 'text/csv; charset=utf-8; header=present', filename: file.filename, bytes: file.bytes };
    },
  }),
];
