import { inTransaction, type CallerContext, type Layer } from '../../domain/context';
import { layerOf } from '../../domain/level';
import { ConflictError, NotFoundError, PermissionError, ValidationError, type FieldIssue } from '../../domain/errors';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { RoleRow, UserRow } from '../../db/models';
import { auditRecord, auditedDelete, auditedRecord, updateRecord, lockedRecord } from '../audit/changes';
import { allows, isKnownPermission, layerPermissions, permissionCatalog } from '../../domain/permissions';
import { filterWhere, mapPage, presentRow, type Presented } from '../present';

/**
 * Roles: named sets of permission codes of one layer. A role never holds a code outside its layer (400) nor one
 * the caller who writes it lacks (403 PERMISSION_NOT_GRANTABLE): the rule API keys follow.
 *
 * Who creates which role: a merchant caller merchant-layer roles of its own merchant; a tenant caller operator
 * roles of its tenant, or merchant-layer roles of one of its merchants (body.layer merchant + merchantId); a
 * platform caller platform roles. A role in use (assigned to a user that is not deleted) cannot be deleted: 409
 * ROLE_IN_USE; take it off its users first.
 */

const ROLE_FIELDS = [
  'id',
  'tenantId',
  'merchantId',
  'layer',
  'name',
  'description',
  'permissions',
  'createdBy',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof RoleRow)[];

export type Role = Presented<Pick<RoleRow, (typeof ROLE_FIELDS)[number]>>;

export function toRole(row: RoleRow): Role {
  return presentRow(row, ROLE_FIELDS);
}

/** The layer a caller's own holders belong to. */
export function callerLayer(ctx: CallerContext): Layer {
  return layerOf(ctx.level);
}

/**
 * What a user may do: an owner every code of its layer; anyone else the union of its roles' codes, each kept
 * only when it lies in the user's layer (a role can never widen a user beyond its layer).
 */
export function effectivePermissions(
  user: Pick<UserRow, 'layer' | 'isOwner'>,
  roles: Pick<RoleRow, 'layer' | 'permissions'>[],
): Set<string> {
  const layer = layerPermissions(user.layer);
  if (user.isOwner) return new Set(layer);
  const held = new Set<string>();
  for (const role of roles) {
    if (role.layer !== user.layer) continue;
    for (const code of role.permissions) if (layer.has(code)) held.add(code);
  }
  return held;
}

/**
 * Checks role codes: each must be a known code of the role's layer (400 naming field[i]) and one the caller
 * holds (403 PERMISSION_NOT_GRANTABLE naming field[i]). Returns them deduplicated and sorted.
 */
export function checkRolePermissions(ctx: CallerContext, layer: Layer, requested: string[], field: string): string[] {
  const layerSet = layerPermissions(layer);
  const invalid: FieldIssue[] = [];
  requested.forEach((code, i) => {
    if (!isKnownPermission(code)) invalid.push({ path: `${field}[${i}]`, message: `unknown permission code "${code}"` });
    else if (!layerSet.has(code)) invalid.push({ path: `${field}[${i}]`, message: `"${code}" is not a permission of the ${layer} layer` });
  });
  if (invalid.length)
    throw new ValidationError(`Invalid permissions: ${invalid.map((i) => i.message).join('; ')}`, invalid, 'INVALID_PERMISSIONS');
  const notHeld: FieldIssue[] = [];
  requested.forEach((code, i) => {
    if (!allows(ctx.permissions, code)) notHeld.push({ path: `${field}[${i}]`, message: `the caller does not hold "${code}"` });
  });
  if (notHeld.length) {
    throw new PermissionError(
      `A role cannot hold permissions its grantor lacks: ${notHeld.map((i) => i.message).join('; ')}`,
      'PERMISSION_NOT_GRANTABLE',
      {
        errors: notHeld,
      },
    );
  }
  return [...new Set(requested)].sort();
}

/** The layers whose roles and users a caller may create: its own, and for tenant callers also merchant. */
export function assertLayerAllowed(ctx: CallerContext, layer: Layer, field: string): void {
  const own = callerLayer(ctx);
  if (layer === own || (ctx.level === 'tenant' && layer === 'merchant')) return;
  const allowed = ctx.level === 'tenant' ? 'operator or merchant' : own;
  throw ValidationError.field(field, `must be ${allowed} for a ${ctx.level} caller`, 'LAYER_NOT_ALLOWED');
}

/**
 * Resolves where a merchant-layer record goes: a merchant caller's own merchant, or a merchant of the tenant
 * caller named by merchantId (404 naming the field when invisible).
 */
export async function resolveMerchant(
  ctx: CallerContext,
  layer: Layer,
  merchantId: string | undefined,
  field: string,
): Promise<string | null> {
  if (layer !== 'merchant') {
    if (merchantId !== undefined) throw ValidationError.field(field, `is only allowed for the merchant layer`);
    return null;
  }
  if (ctx.level === 'merchant') {
    if (merchantId !== undefined && merchantId !== ctx.merchantId) {
      throw new NotFoundError('merchant', merchantId, { errors: [{ path: field, message: 'no such merchant' }] });
    }
    return ctx.merchantId;
  }
  if (!merchantId) throw ValidationError.field(field, 'is required for the merchant layer');
  const merchant = await scoped(ctx, ctx.db.models.Merchant).find(merchantId);
  if (!merchant) throw new NotFoundError('merchant', merchantId, { errors: [{ path: field, message: 'no such merchant' }] });
  return merchantId;
}

const ROLE = auditedRecord<RoleRow>({
  model: (ctx) => ctx.db.models.Role,
  targetType: 'role',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId }),
  render: toRole,
});

export interface RoleFilters {
  layer?: Layer;
  merchantId?: string;
}

export async function listRoles(ctx: CallerContext, filters: RoleFilters, page: ListParams): Promise<Page<Role>> {
  const where: Record<string, unknown> = filterWhere(filters, ['layer', 'merchantId']);
  return mapPage(await scoped(ctx, ctx.db.models.Role).list(where, page), toRole);
}

export async function getRole(ctx: CallerContext, id: string): Promise<Role> {
  return toRole(await scoped(ctx, ctx.db.models.Role).get(id));
}

export interface CreateRoleInput {
  name: string;
  description?: string | null;
  permissions: string[];
  layer?: Layer;
  merchantId?: string;
}

async function assertNameFree(
  ctx: CallerContext,
  scope: { tenantId: string | null; merchantId: string | null; layer: Layer },
  name: string,
  exceptId?: string,
): Promise<void> {
  const same = await scoped(ctx, ctx.db.models.Role).findAll({
    tenantId: scope.tenantId,
    merchantId: scope.merchantId,
    layer: scope.layer,
    name,
  });
  if (same.some((r) => r.id !== exceptId)) {
    throw new ConflictError('ROLE_NAME_TAKEN', `A role named "${name}" already exists here.`, {
      errors: [{ path: 'body.name', message: 'is already taken' }],
    });
  }
}

export async function createRole(ctx: CallerContext, input: CreateRoleInput): Promise<Role> {
  const layer = input.layer ?? (ctx.level === 'tenant' && input.merchantId ? 'merchant' : callerLayer(ctx));
  assertLayerAllowed(ctx, layer, 'body.layer');
  const permissions = checkRolePermissions(ctx, layer, input.permissions, 'body.permissions');
  return inTransaction(ctx, async (tx) => {
    const merchantId = await resolveMerchant(tx, layer, input.merchantId, 'body.merchantId');
    const tenantId = layer === 'platform' ? null : tx.tenantId;
    await assertNameFree(tx, { tenantId, merchantId, layer }, input.name);
    const row = await scoped(tx, tx.db.models.Role).create({
      tenantId: tx.level === 'platform' ? null : undefined,
      merchantId,
      layer,
      name: input.name,
      description: input.description ?? null,
      permissions,
      createdBy: tx.actor.id,
    });
    const role = toRole(row);
    await auditRecord(tx, ROLE, row, 'role.created', { after: role });
    return role;
  });
}

export interface UpdateRoleInput {
  name?: string;
  description?: string | null;
  permissions?: string[];
}

export async function updateRole(ctx: CallerContext, id: string, input: UpdateRoleInput): Promise<Role> {
  return toRole(
    await updateRecord(
      ctx,
      ROLE,
      id,
      async (row, tx) => {
        const changes: Partial<RoleRow> = {};
        if (input.name !== undefined && input.name !== row.name) {
          await assertNameFree(tx, row, input.name, row.id);
          changes.name = input.name;
        }
        if (input.description !== undefined) changes.description = input.description;
        if (input.permissions !== undefined) {
          // Changing what a role grants is as strong as granting it: the caller must hold what it held and will hold.
          checkRolePermissions(tx, row.layer, row.permissions, 'permissions');
          changes.permissions = checkRolePermissions(tx, row.layer, input.permissions, 'body.permissions');
        }
        return changes;
      },
      { action: 'role.updated' },
    ),
  );
}

/** Soft delete; 409 ROLE_IN_USE while a user holds the role. */
export async function deleteRole(ctx: CallerContext, id: string): Promise<Role> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, ROLE, id);
    const holders = await scoped(tx, tx.db.models.UserRole).count({ roleId: id });
    if (holders > 0) {
      throw new ConflictError(
        'ROLE_IN_USE',
        `The role is assigned to ${holders} user${holders === 1 ? '' : 's'}; remove it from them first.`,
        {
          hint: 'PATCH /v1/users/{id} with roleIds without this role, then delete it.',
        },
      );
    }
    return toRole(await auditedDelete(tx, ROLE, row, { action: 'role.deleted' }));
  });
}

export interface PermissionEntry {
  code: string;
  description: string;
  /** whether the caller holds it, so may put it in a role */
  grantable: boolean;
}

/** The permission codes of a layer (the caller's own by default; tenant callers may ask for merchant). */
export function listPermissions(ctx: CallerContext, layer?: Layer): { layer: Layer; permissions: PermissionEntry[] } {
  const target = layer ?? callerLayer(ctx);
  assertLayerAllowed(ctx, target, 'query.layer');
  const catalog = permissionCatalog();
  const permissions = [...layerPermissions(target)].sort().map((code) => ({
    code,
    description: catalog.get(code)!.description,
    grantable: allows(ctx.permissions, code),
  }));
  return { layer: target, permissions };
}
