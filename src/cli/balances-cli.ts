import { Flags } from '@oclif/core';
import { lazy } from './base-command';
import { renderTable } from './output';
import { sharedFlags } from './flags';
import { NotFoundError, ValidationError } from '../domain/errors';
import type { Runtime } from '../runtime';
import type { CallerContext } from '../domain/context';
import type { Page } from '../db/scoped';
import type { Balance, BalanceTransaction } from '../services/ledger';
import { formatMinor } from '../domain/money';

/** The ledger's services as the balances commands reach them: loaded on first use, so help and version stay fast. */
export const balanceServices = {
  ledger: () => lazy<typeof import('../services/ledger')>('../services/ledger'),
  schemas: () => lazy<typeof import('../api/ledger/schemas')>('../api/ledger/schemas'),
  scope: () => lazy<typeof import('./scope')>('./scope'),
};

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
  return balanceServices.scope().tenantOrPlatformContext(rt, tenantId, live);
}

export function renderBalances(rows: Balance[]): string {
  if (rows.length === 0) return 'No balances.';
  return renderTable(rows, [
    { header: 'Merchant', get: (b) => b.merchantId },
    { header: 'Currency', get: (b) => b.currency },
    { header: 'Pending', get: (b) => formatMinor(b.pending) },
    { header: 'Available', get: (b) => formatMinor(b.available) },
    { header: 'Reserved', get: (b) => formatMinor(b.reserved) },
    { header: 'Payable', get: (b) => formatMinor(b.payable) },
  ]);
}

export function renderBalanceTransactions(rows: BalanceTransaction[]): string {
  if (rows.length === 0) return 'No balance transactions.';
  return renderTable(rows, [
    { header: 'Created', get: (t) => t.createdAt },
    { header: 'Merchant', get: (t) => t.merchantId },
    { header: 'Balance', get: (t) => t.balanceType },
    { header: 'Amount', get: (t) => formatMinor(t.amount) },
    { header: 'Type', get: (t) => t.type },
    { header: 'Source', get: (t) => t.sourceId },
    { header: 'Description', get: (t) => t.description },
  ]);
}

export function balancesFooter(page: Page<unknown>): string {
  return `${page.data.length} of ${page.pagination.totalCount}${page.pagination.nextCursor ? ` (next: --cursor ${page.pagination.nextCursor})` : ''}`;
}
