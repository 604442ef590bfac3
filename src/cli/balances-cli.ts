import { Flags } from '@oclif/core';
import { renderTable } from './output';
import { sharedFlags } from './flags';
import { NotFoundError, ValidationError } from '../domain/errors';
import type { Runtime } from '../runtime';
import type { CallerContext } from '../domain/context';
import type { Page } from '../db/scoped';
import type { Balance, BalanceTransaction } from '../services/ledger';
import { formatMinor } from '../domain/money';
import { tenantOrPlatformContext } from './scope';


export const balanceScopeFlags = {
  tenant: Flags.string({ description: 'Only this tenant\'s merchants (omit to see every tenant, as the platform)' }),
  merchant: Flags.string({ description: 'Only this merchant' }),
  currency: Flags.string({ description: 'Only this currency (ISO 4217, e.g. EUR)' }),
  live: sharedFlags.live,
  limit: sharedFlags.limit,
  cursor: sharedFlags.cursor,
};

/** A tenant's operator when --tenant is given (404 when no such tenant), else the platform; in sandbox mode unless --live. */
export async function balancesCtx(rt: Runtime, tenantId: string | undefined, live: boolean): Promise<CallerContext> {
  if (tenantId !== undefined) {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(tenantId)) throw ValidationError.field('--tenant', 'must be a tenant id (uuid)');
    if (!(await rt.db.models.Tenant.findOne({ where: { id: tenantId, deletedAt: null } }))) throw new NotFoundError('tenant', tenantId);
  }
  return tenantOrPlatformContext(rt, tenantId, live);
}

/** An amount in minor units written in its currency's major unit: 9835 EUR → "98.35 EUR", -5 JPY → "-5 JPY". */
/** An amount as operators read it: `98.35 EUR`, `-12.34 EUR`, `5000 JPY`. */
export function formatMoney(money: { currency: string; valueMinor: number }): string {
  return formatMinor(money);
}

export function renderBalances(rows: Balance[]): string {
  if (rows.length === 0) return 'No balances.';
  return renderTable(rows, [
    { header: 'Merchant', get: (b) => b.merchantId },
    { header: 'Currency', get: (b) => b.currency },
    { header: 'Pending', get: (b) => formatMoney(b.pending) },
    { header: 'Available', get: (b) => formatMoney(b.available) },
    { header: 'Reserved', get: (b) => formatMoney(b.reserved) },
    { header: 'Payable', get: (b) => formatMoney(b.payable) },
  ]);
}

export function renderBalanceTransactions(rows: BalanceTransaction[]): string {
  if (rows.length === 0) return 'No balance transactions.';
  return renderTable(rows, [
    { header: 'Created', get: (t) => t.createdAt },
    { header: 'Merchant', get: (t) => t.merchantId },
    { header: 'Balance', get: (t) => t.balanceType },
    { header: 'Amount', get: (t) => formatMoney(t.amount) },
    { header: 'Type', get: (t) => t.type },
    { header: 'Source', get: (t) => t.sourceId },
    { header: 'Description', get: (t) => t.description },
  ]);
}

export function balancesFooter(page: Page<unknown>): string {
  return `${page.data.length} of ${page.pagination.totalCount}${page.pagination.nextCursor ? ` (next: --cursor ${page.pagination.nextCursor})` : ''}`;
}
