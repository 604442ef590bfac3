import { inTransaction, type CallerContext } from '../../../domain/context';
import { ConflictError, NotFoundError, ValidationError, type FieldIssue } from '../../../domain/errors';
import { scoped, type ListParams, type Page } from '../../../db/scoped';
import type { TerminalRestrictionRow, TerminalRow } from '../../../db/models';
import { auditRecord, auditedRecord, auditedUpdate, givenFields } from '../../audit/changes';
import { disableOnly, transition } from '../../status';
import { mapPage, presentRow, type Presented } from '../../present';
import { writable } from './record';

/** A terminal's restrictions: an action (block, …) on a payment method, brand or transaction type. */

const RESTRICTION_FIELDS = [
  'id',
  'terminalId',
  'action',
  'paymentMethod',
  'brand',
  'transactionType',
  'status',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof TerminalRestrictionRow)[];
export type TerminalRestriction = Presented<Pick<TerminalRestrictionRow, (typeof RESTRICTION_FIELDS)[number]>>;

export function toRestriction(row: TerminalRestrictionRow): TerminalRestriction {
  return presentRow(row, RESTRICTION_FIELDS);
}

const RESTRICTION = auditedRecord<TerminalRestrictionRow>({
  model: (ctx) => ctx.db.models.TerminalRestriction,
  targetType: 'terminal_restriction',
  owner: (row) => ({ tenantId: row.tenantId }),
  render: toRestriction,
});

const RESTRICTION_STATUS = disableOnly(RESTRICTION, 'terminal_restriction.disabled', 'restriction', 'restrictions');

export interface RestrictionInput {
  action?: TerminalRestrictionRow['action'];
  paymentMethod?: string | null;
  brand?: string | null;
  transactionType?: TerminalRestrictionRow['transactionType'];
}

function checkRestriction(row: TerminalRow, input: RestrictionInput): void {
  const issues: FieldIssue[] = [];
  if (input.paymentMethod && !row.supportedPaymentMethodTypes.includes(input.paymentMethod)) {
    issues.push({
      path: 'body.paymentMethod',
      message: `must be one of the terminal's supportedPaymentMethodTypes (${row.supportedPaymentMethodTypes.join(', ')})`,
    });
  }
  if (input.brand && !row.supportedBrands.includes(input.brand)) {
    issues.push({
      path: 'body.brand',
      message: `must be one of the terminal's supportedBrands (${row.supportedBrands.join(', ') || 'none'})`,
    });
  }
  if (issues.length) throw new ValidationError(`Invalid restriction: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
}

export async function createRestriction(
  ctx: CallerContext,
  terminalId: string,
  input: RestrictionInput & { action: TerminalRestrictionRow['action'] },
): Promise<TerminalRestriction> {
  return inTransaction(ctx, async (tx) => {
    const terminal = await scoped(tx, tx.db.models.Terminal).get(terminalId, { lock: true });
    writable(terminal);
    checkRestriction(terminal, input);
    const row = await scoped(tx, tx.db.models.TerminalRestriction).create({
      tenantId: terminal.tenantId,
      terminalId,
      action: input.action,
      paymentMethod: input.paymentMethod ?? null,
      brand: input.brand ?? null,
      transactionType: input.transactionType ?? (terminal.direction === 'payout' ? 'payout' : 'payment'),
      status: 'active',
    });
    const restriction = toRestriction(row);
    await auditRecord(tx, RESTRICTION, row, 'terminal_restriction.created', { after: restriction });
    return restriction;
  });
}

export async function listRestrictions(
  ctx: CallerContext,
  terminalId: string,
  filters: { status?: TerminalRestrictionRow['status'] },
  page: ListParams,
): Promise<Page<TerminalRestriction>> {
  await scoped(ctx, ctx.db.models.Terminal).get(terminalId);
  const where: Record<string, unknown> = { terminalId };
  if (filters.status) where.status = filters.status;
  return mapPage(await scoped(ctx, ctx.db.models.TerminalRestriction).list(where, page), toRestriction);
}

/** One restriction of a terminal (404 when there is none with that id on that terminal). */
export async function getRestriction(ctx: CallerContext, terminalId: string, restrictionId: string): Promise<TerminalRestriction> {
  await scoped(ctx, ctx.db.models.Terminal).get(terminalId);
  const row = await scoped(ctx, ctx.db.models.TerminalRestriction).find(restrictionId);
  if (!row || row.terminalId !== terminalId) throw new NotFoundError('restriction', restrictionId);
  return toRestriction(row);
}

async function restrictionOf(
  ctx: CallerContext,
  terminalId: string,
  restrictionId: string,
): Promise<{ terminal: TerminalRow; row: TerminalRestrictionRow }> {
  const terminal = await scoped(ctx, ctx.db.models.Terminal).get(terminalId, { lock: true });
  const row = await scoped(ctx, ctx.db.models.TerminalRestriction).find(restrictionId, { lock: true });
  if (!row || row.terminalId !== terminalId) throw new NotFoundError('restriction', restrictionId);
  return { terminal, row };
}

/** Changes the given fields of an active restriction (409 when disabled). */
export async function updateRestriction(
  ctx: CallerContext,
  terminalId: string,
  restrictionId: string,
  input: RestrictionInput,
): Promise<TerminalRestriction> {
  return inTransaction(ctx, async (tx) => {
    const { terminal, row } = await restrictionOf(tx, terminalId, restrictionId);
    writable(terminal);
    if (row.status !== 'active')
      throw new ConflictError('INVALID_STATE_TRANSITION', 'A disabled restriction cannot be changed.', {
        hint: 'Create a new restriction.',
      });
    checkRestriction(terminal, input);
    const changes = givenFields(input, ['action', 'paymentMethod', 'brand', 'transactionType']);
    const refused = () => new ConflictError('INVALID_STATE_TRANSITION', 'A disabled restriction cannot be changed.');
    return toRestriction(
      await auditedUpdate(tx, RESTRICTION, row, changes, { action: 'terminal_restriction.updated', expect: { status: 'active' }, refused }),
    );
  });
}

/** active -> disabled; 409 when already disabled. */
export async function disableRestriction(ctx: CallerContext, terminalId: string, restrictionId: string): Promise<TerminalRestriction> {
  return inTransaction(ctx, async (tx) => {
    const { row } = await restrictionOf(tx, terminalId, restrictionId);
    return toRestriction(await transition(tx, RESTRICTION_STATUS, row, 'disable'));
  });
}
