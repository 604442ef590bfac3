import { Op } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { BusinessRuleError, ConflictError, NotFoundError, PermissionError, ValidationError } from '../../domain/errors';
import { HOUR_MS } from '../../domain/clock';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { MerchantWithdrawalMethodRow, WithdrawalMethodStatus } from '../../db/models/withdrawal-methods';
import type { Runtime } from '../../runtime';
import { forEachDue, type DueOptions } from '../due-work';
import { auditRecord, auditedRecord, auditedUpdate, lockedRecord } from '../audit/changes';
import { refusedMove, statusMachine, transition, transitionIf } from '../status';
import { targetMerchant } from '../organization/merchant-target';
import { filterWhere, mapPage, presentRow, type Presented } from '../present';
import {
  maskDetails,
  methodTypeOf,
  validateDetails,
  withdrawalMethodTypes,
  type WithdrawalDetailSpec,
  type WithdrawalMethodType,
} from './types';

/**
 * Merchants' saved withdrawal methods. A new method, or a method given new details, cools: status `cooling` until
 * activatesAt = now + the tenant's cooling period (withdrawalCoolingPeriodHours, else the platform's
 * PAYPLANE_WITHDRAWAL_COOLING_HOURS, 24 by default; 0 makes it active at once), so a stolen credential cannot
 * redirect a payout at once. The cooling job (and a withdrawal that finds a method past its activatesAt) moves it to
 * `active`; operators suspend and reactivate. The full details are sealed at rest; every read, audit entry and log
 * shows the masked details only.
 */

const METHOD_FIELDS = [
  'id',
  'tenantId',
  'merchantId',
  'livemode',
  'methodType',
  'label',
  'status',
  'activatesAt',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof MerchantWithdrawalMethodRow)[];

export type WithdrawalMethod = Presented<Pick<MerchantWithdrawalMethodRow, (typeof METHOD_FIELDS)[number]>> & {
  details: Record<string, string>;
};

/** The record of the specification: details masked. */
export function toWithdrawalMethod(row: MerchantWithdrawalMethodRow): WithdrawalMethod {
  return { ...presentRow(row, METHOD_FIELDS), details: { ...row.detailsMasked } };
}

const RESOURCE = 'withdrawal method';
/** A method's entries show it masked, in its mode. */
const METHOD = auditedRecord<MerchantWithdrawalMethodRow>({
  model: (ctx) => ctx.db.models.MerchantWithdrawalMethod,
  targetType: 'withdrawal_method',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode }),
  render: toWithdrawalMethod,
});

// ------------------------------------------------------------------------------------------------ the catalog

export interface WithdrawalMethodTypeRecord {
  type: string;
  name: string;
  description: string;
  currencies: string[];
  requiredDetails: string[];
  details: WithdrawalDetailSpec[];
}

/** The catalog as GET /v1/withdrawal-method-types lists it: one page holding every type. */
export function listWithdrawalMethodTypes(): Page<WithdrawalMethodTypeRecord> {
  const data = withdrawalMethodTypes().map((t) => ({
    type: t.type,
    name: t.name,
    description: t.description,
    currencies: [...t.currencies],
    requiredDetails: t.details.filter((d) => d.required).map((d) => d.key),
    details: t.details.map((d) => ({ ...d })),
  }));
  return { data, pagination: { nextCursor: null, prevCursor: null, hasMore: false, totalCount: data.length } };
}

function typeForInput(key: string, field: string): WithdrawalMethodType {
  const type = methodTypeOf(key);
  if (!type) {
    throw ValidationError.field(
      field,
      `is not a withdrawal method type (known: ${withdrawalMethodTypes()
        .map((t) => t.type)
        .join(', ')})`,
      'UNKNOWN_WITHDRAWAL_METHOD_TYPE',
    );
  }
  return type;
}

/** The type of a saved method; a type since removed from the catalog cannot be used or changed. */
function typeOfRow(row: MerchantWithdrawalMethodRow): WithdrawalMethodType {
  const type = methodTypeOf(row.methodType);
  if (!type) {
    throw new BusinessRuleError('WITHDRAWAL_METHOD_TYPE_RETIRED', `The withdrawal method type ${row.methodType} is no longer offered.`, {
      hint: 'Save a new method of one of the types GET /v1/withdrawal-method-types lists.',
    });
  }
  return type;
}

// ------------------------------------------------------------------------------------------------ reads

export interface WithdrawalMethodFilters {
  merchantId?: string;
  methodType?: string;
  status?: WithdrawalMethodStatus;
}

export async function listWithdrawalMethods(
  ctx: CallerContext,
  filters: WithdrawalMethodFilters,
  page: ListParams,
): Promise<Page<WithdrawalMethod>> {
  const where: Record<string, unknown> = filterWhere(filters, ['merchantId', 'methodType', 'status']);
  return mapPage(await scoped(ctx, ctx.db.models.MerchantWithdrawalMethod).list(where, page), toWithdrawalMethod);
}

export async function getWithdrawalMethod(ctx: CallerContext, id: string): Promise<WithdrawalMethod> {
  return toWithdrawalMethod(await scoped(ctx, ctx.db.models.MerchantWithdrawalMethod).get(id));
}

// ------------------------------------------------------------------------------------------------ writes

/** Hours a method of the tenant cools before use: the tenant's setting, else the platform's default. */
export async function coolingHours(ctx: CallerContext, tenantId: string): Promise<number> {
  const tenant = await scoped(ctx, ctx.db.models.Tenant).get(tenantId);
  return tenant.withdrawalCoolingPeriodHours ?? ctx.config.withdrawalCoolingHours;
}

/** Whether a method whose details start cooling now cools (not with 0 hours: active at once), and its activatesAt. */
async function coolingFrom(ctx: CallerContext, tenantId: string, now: Date): Promise<{ cools: boolean; activatesAt: Date }> {
  const hours = await coolingHours(ctx, tenantId);
  return { cools: hours > 0, activatesAt: new Date(now.getTime() + hours * HOUR_MS) };
}

/** The status a method is saved in (cooling, or active at once with no cooling period) and its activatesAt. */
async function startCooling(
  ctx: CallerContext,
  tenantId: string,
  now: Date,
): Promise<{ status: WithdrawalMethodStatus; activatesAt: Date }> {
  const { cools, activatesAt } = await coolingFrom(ctx, tenantId, now);
  return { status: cools ? 'cooling' : 'active', activatesAt };
}

function sealDetails(ctx: CallerContext, type: WithdrawalMethodType, details: Record<string, string>) {
  return { detailsSealed: ctx.sealer.seal(JSON.stringify(details)), detailsMasked: maskDetails(type, details) };
}

function openDetails(ctx: CallerContext, row: MerchantWithdrawalMethodRow): Record<string, string> {
  return JSON.parse(ctx.sealer.open(row.detailsSealed)) as Record<string, string>;
}

function sameDetails(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && a[k] === b[k]);
}

const changedMeanwhile = () =>
  new ConflictError('WITHDRAWAL_METHOD_CHANGED', 'The withdrawal method changed while this request was processed.', {
    hint: 'Read it again and retry.',
  });

type MethodMove = 'cool' | 'renew' | 'suspend' | 'reactivate' | 'resume_cooling' | 'activate';

const refusedMethodMove = refusedMove<MerchantWithdrawalMethodRow>('withdrawal method');
const SUSPEND_HINT = 'suspend applies to cooling and active methods.';
const REACTIVATE_HINT = 'reactivate applies to suspended methods.';

/**
 * A method is saved cooling (active at once with no cooling period) and activated by the job once its activatesAt has
 * passed; new details cool it again; operators suspend it and reactivate it (back to cooling while its activatesAt is
 * still ahead: suspending never shortens cooling).
 */
const METHOD_STATUS = statusMachine({
  record: METHOD,
  moves: {
    activate: { from: ['cooling'], to: 'active', action: 'withdrawal_method.activated' },
    cool: { from: ['cooling', 'active'], to: 'cooling', action: 'withdrawal_method.updated' },
    renew: { from: ['cooling', 'active'], to: 'active', action: 'withdrawal_method.updated' },
    suspend: { from: ['cooling', 'active'], to: 'suspended', action: 'withdrawal_method.suspended', hint: SUSPEND_HINT },
    reactivate: { from: ['suspended'], to: 'active', action: 'withdrawal_method.reactivated', hint: REACTIVATE_HINT },
    resume_cooling: { from: ['suspended'], to: 'cooling', action: 'withdrawal_method.reactivated', hint: REACTIVATE_HINT },
  } satisfies Record<MethodMove, unknown>,
  // new details are refused on a suspended method before the move: only a concurrent change reaches the machine
  refused: (row, move, spec) => (move === 'cool' || move === 'renew' ? changedMeanwhile() : refusedMethodMove(row, move, spec)),
});

/** A change decided: the method's move, when its status changes, and its other changes. */
interface MethodChange {
  move?: MethodMove;
  changes: Partial<MerchantWithdrawalMethodRow>;
}

/**
 * One change of a saved method: locks it, lets `decide` refuse (by throwing) or name the change (null: nothing to
 * change, the method is answered as it is), applies it by compare-and-set on its status (the machine's move, or
 * WITHDRAWAL_METHOD_CHANGED when that fails) and audits it with the masked record before and after: the move's action,
 * or `withdrawal_method.<action>`.
 */
async function changeMethod(
  ctx: CallerContext,
  id: string,
  action: 'updated' | 'deleted',
  decide: (tx: CallerContext, row: MerchantWithdrawalMethodRow) => Promise<MethodChange | null> | MethodChange | null,
): Promise<WithdrawalMethod> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, METHOD, id);
    const change = await decide(tx, row);
    if (!change) return toWithdrawalMethod(row);
    if (change.move) return toWithdrawalMethod(await transition(tx, METHOD_STATUS, row, change.move, { changes: change.changes }));
    return toWithdrawalMethod(
      await auditedUpdate(tx, METHOD, row, change.changes, {
        action: `withdrawal_method.${action}`,
        expect: { status: row.status },
        refused: changedMeanwhile,
      }),
    );
  });
}

export interface CreateWithdrawalMethodInput {
  methodType: string;
  label: string;
  details: Record<string, string>;
  /** required for tenant callers; a merchant caller saves its own */
  merchantId?: string;
}

/** Saves a method: `cooling` until now + the tenant's cooling period (`active` at once when that is 0 hours). */
export async function createWithdrawalMethod(ctx: CallerContext, input: CreateWithdrawalMethodInput): Promise<WithdrawalMethod> {
  const type = typeForInput(input.methodType, 'body.methodType');
  const details = validateDetails(type, input.details, 'body.details');
  return inTransaction(ctx, async (tx) => {
    const merchant = await targetMerchant(tx, input.merchantId, 'body.merchantId');
    const now = tx.clock.now();
    const row = await scoped(tx, tx.db.models.MerchantWithdrawalMethod).create({
      createdAt: now,
      tenantId: merchant.tenantId,
      merchantId: merchant.id,
      methodType: type.type,
      label: input.label,
      ...sealDetails(tx, type, details),
      ...(await startCooling(tx, merchant.tenantId, now)),
      suspendedAt: null,
      createdBy: tx.actor.id,
    });
    const method = toWithdrawalMethod(row);
    await auditRecord(tx, METHOD, row, 'withdrawal_method.created', { after: method });
    return method;
  });
}

export interface UpdateWithdrawalMethodInput {
  label?: string;
  /** the complete new details; different from the current ones, they are validated and restart cooling */
  details?: Record<string, string>;
}

/**
 * Changes the label and/or the details. A label alone changes nothing else. Details equal to the current ones (once
 * normalized) change nothing; new details restart cooling (409 WITHDRAWAL_METHOD_SUSPENDED on a suspended method).
 */
export function updateWithdrawalMethod(ctx: CallerContext, id: string, input: UpdateWithdrawalMethodInput): Promise<WithdrawalMethod> {
  return changeMethod(ctx, id, 'updated', async (tx, row) => {
    const changes: Partial<MerchantWithdrawalMethodRow> = {};
    let move: MethodMove | undefined;
    if (input.label !== undefined && input.label !== row.label) changes.label = input.label;
    if (input.details !== undefined) {
      const type = typeOfRow(row);
      // a detail sent back as read (its masked form) keeps the stored value: what a client reads it can send back
      const stored = openDetails(tx, row);
      const masked: Record<string, string> = { ...row.detailsMasked };
      const given = Object.fromEntries(
        Object.entries(input.details).map(([k, v]) => [
          k,
          masked[k] !== undefined && v === masked[k] && masked[k] !== stored[k] ? stored[k] : v,
        ]),
      );
      const details = validateDetails(type, given, 'body.details');
      if (!sameDetails(details, stored)) {
        if (row.status === 'suspended') {
          throw new ConflictError('WITHDRAWAL_METHOD_SUSPENDED', 'The details of a suspended withdrawal method cannot be changed.', {
            hint: 'Ask an operator to reactivate it first, or save a new method.',
          });
        }
        const { cools, activatesAt } = await coolingFrom(tx, row.tenantId, tx.clock.now());
        Object.assign(changes, sealDetails(tx, type, details), { activatesAt });
        move = cools ? 'cool' : 'renew';
      }
    }
    return Object.keys(changes).length === 0 ? null : { move, changes };
  });
}

/** Soft delete: the method is gone for every read and every new withdrawal. */
export function deleteWithdrawalMethod(ctx: CallerContext, id: string): Promise<WithdrawalMethod> {
  return changeMethod(ctx, id, 'deleted', (tx, row) => {
    // a merchant cannot shed an operator's suspension by deleting the method and saving the same account again
    if (row.status === 'suspended' && tx.level === 'merchant') {
      throw new ConflictError(
        'WITHDRAWAL_METHOD_SUSPENDED',
        `Withdrawal method ${id} is suspended by an operator: only an operator may delete it.`,
      );
    }
    return { changes: { deletedAt: tx.clock.now() } };
  });
}

function assertOperator(ctx: CallerContext, move: string): void {
  if (ctx.level === 'merchant') throw new PermissionError(`Only an operator may ${move} a withdrawal method.`);
}

const invalidMove = (row: MerchantWithdrawalMethodRow, move: 'suspended' | 'reactivated', hint: string) =>
  new ConflictError('INVALID_STATE_TRANSITION', `A ${row.status} withdrawal method cannot be ${move}.`, { hint });

/** cooling or active → suspended (suspendedAt); 409 INVALID_STATE_TRANSITION when already suspended. Operators only. */
export async function suspendWithdrawalMethod(ctx: CallerContext, id: string): Promise<WithdrawalMethod> {
  assertOperator(ctx, 'suspend');
  const conflict = (row: MerchantWithdrawalMethodRow) => invalidMove(row, 'suspended', SUSPEND_HINT);
  return changeMethod(ctx, id, 'updated', (tx, row) => {
    if (row.status === 'suspended') throw conflict(row);
    return { move: 'suspend', changes: { suspendedAt: tx.clock.now() } };
  });
}

/**
 * suspended → active, or back to cooling while its activatesAt is still ahead (suspending never shortens cooling);
 * 409 INVALID_STATE_TRANSITION unless suspended. Operators only.
 */
export async function reactivateWithdrawalMethod(ctx: CallerContext, id: string): Promise<WithdrawalMethod> {
  assertOperator(ctx, 'reactivate');
  const conflict = (row: MerchantWithdrawalMethodRow) => invalidMove(row, 'reactivated', REACTIVATE_HINT);
  return changeMethod(ctx, id, 'updated', (tx, row) => {
    if (row.status !== 'suspended') throw conflict(row);
    const stillCooling = row.activatesAt !== null && new Date(row.activatesAt).getTime() > tx.clock.now().getTime();
    return { move: stillCooling ? 'resume_cooling' : 'reactivate', changes: { suspendedAt: null } };
  });
}

// ------------------------------------------------------------------------------------------------ activation

/**
 * cooling → active for a method whose activatesAt has passed, by compare-and-set (the status and a due activatesAt:
 * new details that restarted cooling meanwhile keep it cooling), audited. Null when it no longer qualified.
 */
async function activateOne(ctx: CallerContext, row: MerchantWithdrawalMethodRow, now: Date): Promise<MerchantWithdrawalMethodRow | null> {
  return inTransaction(ctx, async (tx) => {
    return transitionIf(tx, METHOD_STATUS, row, 'activate', { expect: { activatesAt: { [Op.lte]: now } } });
  });
}

/**
 * Moves every cooling method whose activatesAt has passed to active, each by its own compare-and-set and audit entry
 * (safe with several processes: a method activates once). With a Runtime it runs over every tenant in both modes;
 * with a caller context, over what that caller sees. Returns how many methods it activated.
 */
export function activateDueMethods(source: Runtime | CallerContext, options: DueOptions = {}): Promise<number> {
  return forEachDue<MerchantWithdrawalMethodRow>(
    source,
    {
      model: (ctx) => ctx.db.models.MerchantWithdrawalMethod,
      where: (now) => ({ status: 'cooling', activatesAt: { [Op.lte]: now } }),
      order: [
        ['activatesAt', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    async (ctx, row, now) => (await activateOne(ctx, row, now)) !== null,
    options,
  );
}

// ------------------------------------------------------------------------------------------------ use by withdrawals

/**
 * The method a withdrawal of `merchantId` in `currency` may use, opened (full details), inside tx. A cooling method
 * whose activatesAt has passed is activated on the spot (compare-and-set, audit) so the job's lag never blocks.
 * 404 (NotFoundError with errors [{path: field}]) when invisible, deleted or another merchant's;
 * 422 WITHDRAWAL_METHOD_NOT_ACTIVE when cooling (say until when) or suspended;
 * 422 WITHDRAWAL_METHOD_CURRENCY when the type's currencies exclude `currency`.
 */
export async function usableMethod(
  tx: CallerContext,
  methodId: string,
  merchantId: string,
  currency: string,
  field = 'body.withdrawalMethodId',
): Promise<{ method: MerchantWithdrawalMethodRow; type: WithdrawalMethodType; details: Record<string, string> }> {
  const access = scoped(tx, tx.db.models.MerchantWithdrawalMethod);
  const notFound = () =>
    new NotFoundError(RESOURCE, methodId, { errors: [{ path: field, message: 'no such withdrawal method of this merchant' }] });
  // locked: an operator's suspension cannot commit between this check and the withdrawal that relies on it
  let method = await access.find(methodId, { lock: true });
  if (!method || method.merchantId !== merchantId) throw notFound();
  const now = tx.clock.now();
  if (method.status === 'cooling' && method.activatesAt && new Date(method.activatesAt).getTime() <= now.getTime()) {
    // activated here, or by another process a moment ago: read what it is now
    method = (await activateOne(tx, method, now)) ?? (await access.find(methodId));
    if (!method) throw notFound();
  }
  if (method.status === 'cooling') {
    const until = method.activatesAt ? new Date(method.activatesAt).toISOString() : 'its cooling period ends';
    throw new BusinessRuleError(
      'WITHDRAWAL_METHOD_NOT_ACTIVE',
      `The withdrawal method is cooling until ${until}: new or changed details cannot be paid to before then.`,
      {
        errors: [{ path: field, message: `is cooling until ${until}` }],
      },
    );
  }
  if (method.status === 'suspended') {
    throw new BusinessRuleError('WITHDRAWAL_METHOD_NOT_ACTIVE', 'The withdrawal method is suspended by an operator.', {
      errors: [{ path: field, message: 'is suspended' }],
      hint: 'Use another method, or ask the operator to reactivate it.',
    });
  }
  const type = typeOfRow(method);
  if (type.currencies.length > 0 && !type.currencies.includes(currency)) {
    throw new BusinessRuleError(
      'WITHDRAWAL_METHOD_CURRENCY',
      `A ${type.type} method takes withdrawals in ${type.currencies.join(', ')} only, not ${currency}.`,
      {
        errors: [{ path: field, message: `does not take ${currency}` }],
      },
    );
  }
  return { method, type, details: openDetails(tx, method) };
}
