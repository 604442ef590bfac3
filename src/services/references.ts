import { Op } from 'sequelize';
import type { CallerContext } from '../domain/context';
import { NotFoundError, ValidationError, type FieldIssue } from '../domain/errors';
import type { Models } from '../db/models';
import { isUuid, scoped } from '../db/scoped';
import { namedIds, type NamedId, type ReferenceKind } from '../api/references';

/**
 * Where each kind of record a request can name is looked up: its table, read with the caller's scope (tenant,
 * merchant, entity scope, mode: src/db/scoped.ts). null: a catalog shared by every tenant (the platform's provider
 * integrations, defined in code), which no caller owns; the service checks such an id exists.
 */
export const REFERENCE_MODELS: Record<ReferenceKind, keyof Models | null> = {
  tenant: 'Tenant',
  merchant: 'Merchant',
  company: 'Company',
  partner: 'Partner',
  channel: 'Channel',
  role: 'Role',
  user: 'User',
  feeSchedule: 'FeeSchedule',
  terminal: 'Terminal',
  providerIntegration: null,
  routingRule: 'RoutingRule',
  scoringRule: 'ScoringRule',
  listGroup: 'ListGroup',
  checkoutSession: 'CheckoutSession',
  payment: 'Payment',
  withdrawalMethod: 'MerchantWithdrawalMethod',
  webhookEndpoint: 'WebhookEndpoint',
};

type Lookup = { findAll(options: object): Promise<{ get(key: string): unknown }[]>; scopeSpec: { resource: string } };

/**
 * The ids of `kind` among `ids` that are in the caller's scope. A soft-deleted record of the caller's own counts as
 * in scope: whether a deleted record may be named (a filter over history, a list sent back) is the service's rule;
 * this check is about whose the record is.
 */
async function inScope(ctx: CallerContext, kind: ReferenceKind, ids: string[]): Promise<Set<string> | null> {
  const name = REFERENCE_MODELS[kind];
  if (!name) return null;
  const model = ctx.db.models[name] as unknown as Lookup;
  const scope = scoped(ctx, ctx.db.models[name] as never).scopeWhere();
  delete scope.deletedAt;
  const valid = ids.filter(isUuid);
  if (valid.length === 0) return new Set();
  const rows = await model.findAll({ attributes: ['id'], where: { [Op.and]: [scope, { id: { [Op.in]: valid } }] }, transaction: ctx.transaction });
  return new Set(rows.map((r) => String(r.get('id'))));
}

/** The resource name a refusal uses for `kind` (as the model names it: "fee schedule"). */
export function referenceResource(ctx: CallerContext, kind: ReferenceKind): string {
  const name = REFERENCE_MODELS[kind];
  return name ? (ctx.db.models[name] as unknown as Lookup).scopeSpec.resource : kind;
}

/** 404 naming every field whose id is not in the caller's scope; nothing when all are. */
export async function checkNamedIds(ctx: CallerContext, named: NamedId[]): Promise<void> {
  if (named.length === 0) return;
  const byKind = new Map<ReferenceKind, string[]>();
  for (const n of named) byKind.set(n.kind, [...(byKind.get(n.kind) ?? []), n.id]);
  const missing: (NamedId & { resource: string })[] = [];
  // one kind after another: a request holds one connection at a time
  for (const [kind, ids] of byKind) {
    const found = await inScope(ctx, kind, [...new Set(ids)]);
    if (!found) continue;
    for (const n of named) if (n.kind === kind && !found.has(n.id)) missing.push({ ...n, resource: referenceResource(ctx, kind) });
  }
  if (missing.length === 0) return;
  const errors: FieldIssue[] = missing.map((m) => ({ path: m.path, message: `no such ${m.resource}` }));
  if (missing.some((m) => m.refusal === 400)) {
    throw new ValidationError(`Invalid request: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors);
  }
  const first = missing[0];
  throw new NotFoundError(first.resource, first.id, {
    errors,
    detail: missing.map((m) => `No ${m.resource} with id ${m.id} (${m.path}).`).join(' '),
  });
}

/** Every id the operation's body and query name, checked against the caller's scope before its handler runs. */
/** What the check reads of an operation's declaration (src/api/registry.ts) and of its parsed input. */
export interface DeclaredInput {
  query?: unknown;
  body?: unknown;
  upload?: unknown;
}

export async function checkReferences(ctx: CallerContext, op: DeclaredInput, input: { query?: unknown; body?: unknown }): Promise<void> {
  const named = [
    ...(op.query ? namedIds(op.query, input.query, 'query') : []),
    ...(op.body && !op.upload ? namedIds(op.body, input.body, 'body') : []),
  ];
  await checkNamedIds(ctx, named);
}
