import { inTransaction, type CallerContext, type Layer } from '../../domain/context';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import { ConflictError, NotFoundError, PermissionError, ValidationError, type FieldIssue } from '../../domain/errors';
import type { RoleRow, UserRow } from '../../db/models';
import { auditRecord, auditedRecord, givenFields, lockedRecord } from '../audit/changes';
import { inStatus, moveRows, refusedMove, statusMachine, transition } from '../status';
import { INVITATION_STATUS } from './invitation-status';
import { allows, layerPermissions } from '../../domain/permissions';
import { assertLayerAllowed, callerLayer, effectivePermissions, resolveMerchant } from './roles';
import { filterWhere, presentRow, type Presented } from '../present';

/**
 * Users. Visibility comes from the scoped access: a merchant caller sees its merchant's users, a tenant caller
 * its tenant's (operator and merchant layers), a platform caller every user. `entityScope` is `{ type: 'all' }`
 * (the whole of the user's tenant or merchant); narrower scopes are refused until the data access can apply them.
 * An owner (`isOwner`) holds every permission of its layer; anyone else the union of its roles' codes.
 */

const USER_FIELDS = [
  'id',
  'tenantId',
  'merchantId',
  'externalIdpId',
  'email',
  'displayName',
  'status',
  'layer',
  'entityScope',
  'mfaEnabled',
  'isOwner',
  'lastLoginAt',
  'createdAt',
  'updatedAt',
  'deletedAt',
  'createdBy',
] as const satisfies readonly (keyof UserRow)[];

export interface EntityScope {
  type: string;
  [key: string]: unknown;
}

export type User = Omit<Presented<Pick<UserRow, (typeof USER_FIELDS)[number]>>, 'entityScope'> & {
  entityScope: EntityScope;
  roleIds: string[];
};

export function toUser(row: UserRow, roleIds: string[]): User {
  const presented = presentRow(row, USER_FIELDS);
  return { ...presented, entityScope: { type: 'all', ...row.entityScope } as EntityScope, roleIds: [...roleIds].sort() };
}

export type UserStatus = 'pending_invitation' | 'active' | 'disabled';

export interface CreateUserInput {
  layer: UserRow['layer'];
  email: string;
  displayName?: string;
  tenantId?: string | null;
  merchantId?: string | null;
  externalIdpId?: string | null;
  /** an owner holds every permission of its layer; default true (the sandbox's and the CLI's first users) */
  owner?: boolean;
}

/** An active user, created without an invitation (the sandbox's users, a layer's first owner). */
export async function createActiveUser(ctx: CallerContext, input: CreateUserInput): Promise<UserRow> {
  if (input.layer === 'merchant' && !input.merchantId)
    throw new ValidationError('A merchant-layer user needs a merchant.', [{ path: 'merchantId', message: 'is required' }]);
  return inTransaction(ctx, async (tx) => {
    const row = await scoped(tx, tx.db.models.User).create({
      tenantId: input.layer === 'platform' ? null : (input.tenantId ?? tx.tenantId),
      merchantId: input.layer === 'merchant' ? (input.merchantId ?? null) : null,
      layer: input.layer,
      email: normalizeEmail(input.email),
      displayName: input.displayName ?? null,
      status: 'active',
      externalIdpId: input.externalIdpId ?? null,
      entityScope: { type: 'all' },
      mfaEnabled: false,
      lastLoginAt: null,
      isOwner: input.owner ?? true,
      createdBy: tx.actor.type === 'user' ? tx.actor.id : null,
    });
    await auditRecord(tx, USER, row, 'user.created', { after: toUser(row, []) });
    return row;
  });
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Role ids of each user, read through the caller's scope. */
export async function roleIdsOf(ctx: CallerContext, userIds: string[]): Promise<Map<string, string[]>> {
  const map = new Map<string, string[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return map;
  const links = await scoped(ctx, ctx.db.models.UserRole).findAll({ userId: userIds });
  for (const link of links) map.get(link.userId)?.push(link.roleId);
  return map;
}

async function present(ctx: CallerContext, row: UserRow): Promise<User> {
  return toUser(row, (await roleIdsOf(ctx, [row.id])).get(row.id) ?? []);
}

/** A user's entries show it with its roles. */
export const USER = auditedRecord<UserRow>({
  model: (ctx) => ctx.db.models.User,
  targetType: 'user',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId }),
  render: (row, _now, ctx) => present(ctx, row),
});

const refusedUser = refusedMove<UserRow>('user', inStatus('users'));

/**
 * pending_invitation -> active (its invitation accepted), active <-> disabled; the entries show the user with its roles
 * (which the move leaves as they are).
 */
export const USER_STATUS = statusMachine({
  record: USER,
  moves: {
    activate: { from: ['pending_invitation'], to: 'active', action: 'user.activated' },
    enable: { from: ['disabled'], to: 'active', action: 'user.enabled' },
    disable: { from: ['active'], to: 'disabled', action: 'user.disabled' },
  },
  // accepting an invitation checks the user before: only a concurrent change reaches the machine's refusal
  refused: (row, move, spec) =>
    move === 'activate'
      ? new ConflictError('INVALID_STATE_TRANSITION', 'The invited user changed meanwhile.')
      : refusedUser(row, move, spec),
});

export interface UserFilters {
  status?: UserStatus;
  layer?: Layer;
  merchantId?: string;
  email?: string;
  roleId?: string;
}

export async function listUsers(ctx: CallerContext, filters: UserFilters, page: ListParams): Promise<Page<User>> {
  const where: Record<string, unknown> = filterWhere(filters, ['status', 'layer', 'merchantId']);
  if (filters.email) where.email = normalizeEmail(filters.email);
  if (filters.roleId) {
    const links = await scoped(ctx, ctx.db.models.UserRole).findAll({ roleId: filters.roleId });
    where.id = links.map((l) => l.userId);
  }
  const result = await scoped(ctx, ctx.db.models.User).list(where, page);
  const roles = await roleIdsOf(
    ctx,
    result.data.map((u) => u.id),
  );
  return { data: result.data.map((row) => toUser(row, roles.get(row.id) ?? [])), pagination: result.pagination };
}

export async function getUser(ctx: CallerContext, id: string): Promise<User> {
  return present(ctx, await scoped(ctx, ctx.db.models.User).get(id));
}

/**
 * Loads the roles to give a user, each visible to the caller (404 naming field[i]), of the user's layer and
 * tenant or merchant (400), and holding only codes the caller holds (403 PERMISSION_NOT_GRANTABLE).
 */
export async function checkAssignableRoles(
  ctx: CallerContext,
  target: { layer: Layer; tenantId: string | null; merchantId: string | null },
  roleIds: string[],
  field: string,
): Promise<RoleRow[]> {
  const roles: RoleRow[] = [];
  const invalid: FieldIssue[] = [];
  const notHeld: FieldIssue[] = [];
  const seen = new Set<string>();
  for (const [i, id] of roleIds.entries()) {
    if (seen.has(id)) continue;
    seen.add(id);
    const role = await scoped(ctx, ctx.db.models.Role).find(id);
    if (!role) throw new NotFoundError('role', id, { errors: [{ path: `${field}[${i}]`, message: 'no such role' }] });
    if (
      role.layer !== target.layer ||
      role.tenantId !== target.tenantId ||
      (target.layer === 'merchant' && role.merchantId !== target.merchantId)
    ) {
      invalid.push({
        path: `${field}[${i}]`,
        message: `is a ${role.layer} role${role.merchantId ? ` of merchant ${role.merchantId}` : ''}; the user is a ${target.layer} user${target.merchantId ? ` of merchant ${target.merchantId}` : ''}`,
      });
      continue;
    }
    const lacking = role.permissions.filter((code) => !allows(ctx.permissions, code));
    if (lacking.length)
      notHeld.push({
        path: `${field}[${i}]`,
        message: `the role holds ${lacking.map((c) => `"${c}"`).join(', ')}, which the caller lacks`,
      });
    roles.push(role);
  }
  if (invalid.length)
    throw new ValidationError(
      `Roles of another layer or merchant: ${invalid.map((i) => i.message).join('; ')}`,
      invalid,
      'ROLE_NOT_ASSIGNABLE',
    );
  if (notHeld.length) {
    throw new PermissionError(
      `A user cannot be given a role holding permissions its grantor lacks: ${notHeld.map((i) => i.message).join('; ')}`,
      'PERMISSION_NOT_GRANTABLE',
      {
        errors: notHeld,
      },
    );
  }
  return roles;
}

/** Making someone an owner grants the whole layer: only a caller holding every code of it may. */
export function checkOwnerGrant(ctx: CallerContext, layer: Layer, field: string): void {
  // A tenant's operators onboard its merchants: they may make a merchant's owner (who holds merchant-only codes
  // such as compliance:kyb:manage, which no tenant key or role can carry).
  if (layer === 'merchant' && ctx.level === 'tenant' && allows(ctx.permissions, 'access:users:manage')) return;
  const lacking = [...layerPermissions(layer)].filter((code) => !allows(ctx.permissions, code));
  if (lacking.length) {
    throw new PermissionError(
      `An owner holds every ${layer} permission; the caller lacks ${lacking.join(', ')}.`,
      'PERMISSION_NOT_GRANTABLE',
      {
        errors: [{ path: field, message: 'the caller does not hold every permission of the layer' }],
      },
    );
  }
}

/** Replaces a user's roles (the links carry the user's tenant and merchant). */
export async function setUserRoles(ctx: CallerContext, user: UserRow, roleIds: string[]): Promise<void> {
  const links = scoped(ctx, ctx.db.models.UserRole);
  await ctx.db.models.UserRole.destroy({ where: { ...links.scopeWhere(), userId: user.id }, transaction: ctx.transaction });
  for (const roleId of [...new Set(roleIds)]) {
    await links.create({
      tenantId: ctx.level === 'platform' ? user.tenantId : undefined,
      merchantId: user.merchantId,
      userId: user.id,
      roleId,
    });
  }
}

/** The permissions a user holds now (an owner: its whole layer). */
export async function permissionsOfUser(ctx: CallerContext, user: UserRow): Promise<Set<string>> {
  if (user.isOwner) return new Set(layerPermissions(user.layer));
  const ids = (await roleIdsOf(ctx, [user.id])).get(user.id) ?? [];
  const roles = ids.length ? await scoped(ctx, ctx.db.models.Role).findAll({ id: ids }) : [];
  return effectivePermissions(user, roles);
}

/**
 * A caller acting on a user of its own layer must hold everything that user holds (so a limited admin cannot
 * disable, delete or re-role an owner or a stronger peer). A tenant acting on merchant users, and the platform,
 * act from above and are not held to this (role grants still are).
 */
export async function assertMayManage(ctx: CallerContext, user: UserRow): Promise<void> {
  if (user.layer !== callerLayer(ctx)) return;
  const held = await permissionsOfUser(ctx, user);
  const lacking = [...held].filter((code) => !allows(ctx.permissions, code));
  if (lacking.length) {
    throw new PermissionError(
      `The user holds permissions the caller lacks (${lacking.join(', ')}); only a caller holding them may change it.`,
      'USER_NOT_MANAGEABLE',
    );
  }
}

/**
 * `{ type: 'all' }` (the whole tenant or merchant), or for operator users `{ type: 'merchants', merchantIds }`: the
 * user then sees and changes only records of those merchants. A caller limited itself can grant only within
 * its own scope.
 */
export async function checkEntityScope(
  ctx: CallerContext,
  scope: Record<string, unknown> | undefined,
  layer: UserRow['layer'],
  field: string,
): Promise<Record<string, unknown>> {
  if (scope === undefined || scope.type === 'all') {
    // for a merchant user "all" is its one merchant; only an operator's "all" is the whole tenant
    if (ctx.merchantScope && layer === 'operator')
      throw new PermissionError('A caller limited to some merchants cannot grant the whole tenant.', 'ENTITY_SCOPE_EXCEEDED', {
        errors: [{ path: `${field}.type`, message: 'must be merchants for this caller' }],
      });
    return { type: 'all' };
  }
  if (scope.type !== 'merchants') throw ValidationError.field(`${field}.type`, 'must be "all" or "merchants"');
  if (layer !== 'operator') throw ValidationError.field(`${field}.type`, 'only operator users can be limited to merchants');
  const ids = scope.merchantIds;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > 100)
    throw ValidationError.field(`${field}.merchantIds`, 'must list 1 to 100 merchant ids');
  const extra = Object.keys(scope).filter((k) => k !== 'type' && k !== 'merchantIds');
  if (extra.length) throw ValidationError.field(`${field}.${extra[0]}`, 'is not a known field');
  const unique = [...new Set(ids)];
  for (const [i, id] of unique.entries()) {
    if (typeof id !== 'string' || !(await scoped(ctx, ctx.db.models.Merchant).find(id))) {
      throw new NotFoundError('merchant', String(id), { errors: [{ path: `${field}.merchantIds[${i}]`, message: 'no such merchant' }] });
    }
  }
  return { type: 'merchants', merchantIds: unique };
}

export interface UpdateUserInput {
  displayName?: string | null;
  roleIds?: string[];
  entityScope?: Record<string, unknown>;
  mfaEnabled?: boolean;
}

export async function updateUser(ctx: CallerContext, id: string, input: UpdateUserInput): Promise<User> {
  return inTransaction(ctx, async (tx) => {
    const access = scoped(tx, tx.db.models.User);
    const row = await access.get(id, { lock: true });
    await assertMayManage(tx, row);
    const before = await present(tx, row);
    const changes: Partial<UserRow> = givenFields(input, ['displayName', 'mfaEnabled']);
    if (input.entityScope !== undefined) changes.entityScope = await checkEntityScope(tx, input.entityScope, row.layer, 'body.entityScope');
    if (input.roleIds !== undefined) {
      await checkAssignableRoles(tx, row, input.roleIds, 'body.roleIds');
      await setUserRoles(tx, row, input.roleIds);
    }
    const updated = await access.update(row, changes);
    const after = await present(tx, updated);
    await auditRecord(tx, USER, row, 'user.updated', { before, after });
    return after;
  });
}

/** active <-> disabled; 409 from any other state; nobody disables itself. A disabled user's tokens fail at once. */
export async function changeUserStatus(ctx: CallerContext, id: string, move: 'enable' | 'disable'): Promise<User> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, USER, id);
    if (move === 'disable' && tx.actor.type === 'user' && tx.actor.id === id) {
      throw new ConflictError('CANNOT_DISABLE_SELF', 'A user cannot disable itself.');
    }
    let roles: string[] = [];
    const moved = await transition(tx, USER_STATUS, row, move, {
      check: async (r) => {
        await assertMayManage(tx, r);
        roles = (await roleIdsOf(tx, [id])).get(id) ?? [];
      },
      render: (r) => toUser(r, roles),
    });
    return toUser(moved, roles);
  });
}

/** Soft delete: its tokens stop working, its pending invitations are canceled, its roles are taken off. */
export async function deleteUser(ctx: CallerContext, id: string): Promise<User> {
  return inTransaction(ctx, async (tx) => {
    const access = scoped(tx, tx.db.models.User);
    const row = await access.get(id, { lock: true });
    if (tx.actor.type === 'user' && tx.actor.id === id) throw new ConflictError('CANNOT_DELETE_SELF', 'A user cannot delete itself.');
    await assertMayManage(tx, row);
    const before = await present(tx, row);
    const now = tx.clock.now();
    await moveRows(tx, INVITATION_STATUS, 'cancel', { userId: id }, { canceledAt: now, updatedAt: now });
    await setUserRoles(tx, row, []);
    const deleted = await access.softDelete(row);
    const after = toUser(deleted, []);
    await auditRecord(tx, USER, row, 'user.deleted', { before, after });
    return after;
  });
}

export interface InviteTarget {
  layer: Layer;
  tenantId: string | null;
  merchantId: string | null;
}

/** Where an invited user goes: the caller's layer by default; a tenant caller may invite merchant users. */
export async function resolveInviteTarget(ctx: CallerContext, input: { layer?: Layer; merchantId?: string }): Promise<InviteTarget> {
  const layer = input.layer ?? (ctx.level === 'tenant' && input.merchantId ? 'merchant' : callerLayer(ctx));
  assertLayerAllowed(ctx, layer, 'body.layer');
  const merchantId = await resolveMerchant(ctx, layer, input.merchantId, 'body.merchantId');
  return { layer, tenantId: layer === 'platform' ? null : ctx.tenantId, merchantId };
}

/** 409 when a user with this email already exists in the same place (tenant, merchant, layer). */
export async function assertEmailFree(ctx: CallerContext, target: InviteTarget, email: string): Promise<void> {
  const existing = await scoped(ctx, ctx.db.models.User).findOne({
    tenantId: target.tenantId,
    merchantId: target.merchantId,
    layer: target.layer,
    email,
  });
  if (existing) {
    throw new ConflictError('USER_ALREADY_EXISTS', `A ${target.layer} user with email ${email} already exists here (${existing.id}).`, {
      errors: [{ path: 'body.email', message: 'is already a user here' }],
    });
  }
}
