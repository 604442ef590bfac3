import { Op } from 'sequelize';
import type { CallerContext } from '../domain/context';
import { NotFoundError, ValidationError, type FieldIssue } from '../domain/errors';
import { isUuid, scoped } from '../db/scoped';
import { namedIds, pathRecordOf, type NamedId, type ReferenceKind } from '../api/references';
import { REFERENCE_MODELS } from '../domain/record-kinds';
import { providerCatalog } from './processing/providers';

/**
 * Where each kind of record a request can name is looked up: its table (the registry's model,
 * src/domain/record-kinds.ts), read with the caller's scope (tenant, merchant, entity scope, mode: src/db/scoped.ts).
 * null: a catalog shared by every tenant (the platform's provider integrations, defined in code), which no caller owns;
 * the service checks such an id exists.
 */
export { REFERENCE_MODELS };

/** The kinds kept in a catalog rather than a table (REFERENCE_MODELS null): the ids that exist. */
export const REFERENCE_CATALOGS: Partial<Record<ReferenceKind, () => readonly string[]>> = {
  providerIntegration: () => providerCatalog().map((p) => p.id),
};

type Lookup = {
  findAll(options: object): Promise<{ get(key: string): unknown }[]>;
  scopeSpec: { resource: string; tenant: string | null };
};

/** A record found in the caller's scope: its tenant (null: the platform's own, shared; undefined: a kind of no tenant). */
interface Found {
  tenantId: string | null | undefined;
}

/**
 * The records of `kind` among `ids` that are in the caller's scope, with their tenants. A soft-deleted record of the
 * caller's own counts as in scope: whether a deleted record may be named (a filter over history, a list sent back) is
 * the service's rule; this check is about whose the record is. A catalog kind: the ids the catalog holds.
 */
async function inScope(ctx: CallerContext, kind: ReferenceKind, ids: string[]): Promise<Map<string, Found>> {
  const name = REFERENCE_MODELS[kind];
  if (!name) {
    const known = new Set(REFERENCE_CATALOGS[kind]?.() ?? []);
    return new Map(ids.filter((id) => known.has(id)).map((id) => [id, { tenantId: undefined }]));
  }
  const model = ctx.db.models[name] as unknown as Lookup;
  const scope = scoped(ctx, ctx.db.models[name] as never).scopeWhere();
  delete scope.deletedAt;
  const valid = ids.filter(isUuid);
  if (valid.length === 0) return new Map();
  const tenantColumn = kind === 'tenant' ? null : model.scopeSpec.tenant;
  const rows = await model.findAll({
    attributes: ['id', ...(tenantColumn ? [tenantColumn] : [])],
    where: { [Op.and]: [scope, { id: { [Op.in]: valid } }] },
    transaction: ctx.transaction,
  });
  return new Map(
    rows.map((r) => {
      const id = String(r.get('id'));
      const tenantId = kind === 'tenant' ? id : tenantColumn ? ((r.get(tenantColumn) as string | null) ?? null) : undefined;
      return [id, { tenantId }];
    }),
  );
}

/** The resource name a refusal uses for `kind` (as the model names it: "fee schedule"). */
export function referenceResource(ctx: CallerContext, kind: ReferenceKind): string {
  const name = REFERENCE_MODELS[kind];
  return name ? (ctx.db.models[name] as unknown as Lookup).scopeSpec.resource : kind.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}

/** The record a request writes, when it is an existing one (the path's `{id}`, declared with pathRecord). */
export interface PathRecord {
  kind: ReferenceKind;
  id: string;
}

/**
 * 404 naming every field whose id is not in the caller's scope (400 for fields declared so); then 400 naming every
 * field whose record is of another tenant than the record being written: the path's record (an update), else the
 * tenant the body names (a platform caller's tenantId), else the first tenant named. A caller of a tenant sees only
 * its own tenant's records, so only a platform caller, who sees every tenant's, can name two tenants' records: they are
 * never linked. Records of the platform's own (tenant null: platform fee schedules, roles) and catalog entries (provider
 * integrations) belong to no tenant and may be named by any.
 */
export async function checkNamedIds(ctx: CallerContext, named: NamedId[], path?: PathRecord): Promise<void> {
  if (named.length === 0) return;
  const byKind = new Map<ReferenceKind, string[]>();
  for (const n of named) byKind.set(n.kind, [...(byKind.get(n.kind) ?? []), n.id]);
  const missing: (NamedId & { resource: string })[] = [];
  const tenants = new Map<NamedId, string>();
  // one kind after another: a request holds one connection at a time
  for (const [kind, ids] of byKind) {
    const found = await inScope(ctx, kind, [...new Set(ids)]);
    for (const n of named) {
      if (n.kind !== kind) continue;
      const record = found.get(n.id);
      if (!record) missing.push({ ...n, resource: referenceResource(ctx, kind) });
      else if (record.tenantId) tenants.set(n, record.tenantId);
    }
  }
  if (missing.length > 0) {
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
  if (tenants.size === 0) return;
  // a caller of one tenant (its scope found nothing of another): no second tenant to link, no read of the path's record
  if (ctx.level !== 'platform' && new Set(tenants.values()).size === 1) return;
  const own = path ? (await inScope(ctx, path.kind, [path.id])).get(path.id)?.tenantId : undefined;
  const namedTenant = [...tenants].find(([n]) => n.kind === 'tenant');
  const owner = own ?? namedTenant?.[1] ?? [...tenants.values()][0];
  const whose = own ? `the ${referenceResource(ctx, path!.kind)}'s` : namedTenant ? `${namedTenant[0].path}'s` : 'the first record named';
  const foreign = [...tenants].filter(([, tenantId]) => tenantId !== owner);
  if (foreign.length === 0) return;
  const errors: FieldIssue[] = foreign.map(([n]) => ({
    path: n.path,
    message: `is a ${referenceResource(ctx, n.kind)} of another tenant than ${whose}`,
  }));
  throw new ValidationError(`Records of two tenants are never linked: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`, errors);
}

/** Every id the operation's body and query name, checked against the caller's scope before its handler runs. */
/** What the check reads of an operation's declaration (src/api/registry.ts) and of its parsed input. */
export interface DeclaredInput {
  params?: unknown;
  query?: unknown;
  body?: unknown;
  upload?: unknown;
}

export async function checkReferences(
  ctx: CallerContext,
  op: DeclaredInput,
  input: { params?: unknown; query?: unknown; body?: unknown },
): Promise<void> {
  const named = [
    ...(op.query ? namedIds(op.query, input.query, 'query') : []),
    ...(op.body && !op.upload ? namedIds(op.body, input.body, 'body') : []),
  ];
  const kind = pathRecordOf(op.params);
  const id = (input.params as { id?: unknown } | undefined)?.id;
  await checkNamedIds(ctx, named, kind && typeof id === 'string' ? { kind, id } : undefined);
}
