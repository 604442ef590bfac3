import { isUniqueViolation } from '../../db/database';
import type { AppConfig } from '../../config';
import { Op } from 'sequelize';
import { inTransaction, type CallerContext, type Layer } from '../../domain/context';
import { invitationTokenContext, invitedUserContext } from '../../domain/authority';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/errors';
import type { InvitationRow, UserRow } from '../../db/models';
import type { Database } from '../../db/database';
import type { Clock } from '../../domain/clock';
import type { Sealer } from '../../util/encryption';
import { auditRecord, auditedUpdate } from '../audit/changes';
import { mapPage } from '../present';
import { transition } from '../status';
import { randomBase62, sha256Hex } from '../../util/secrets';
import {
  assertEmailFree,
  assertMayManage,
  checkAssignableRoles,
  checkEntityScope,
  checkOwnerGrant,
  normalizeEmail,
  resolveInviteTarget,
  setUserRoles,
  toUser,
  USER,
  USER_STATUS,
  type User,
} from './users';
import {
  INVITATION,
  INVITATION_STATUS,
  invitationStatus,
  toInvitation,
  type Invitation,
  type InvitationStatus,
  type IssuedInvitation,
} from './invitation-status';

/**
 * Invitations: a single-use token (`inv_…`, shown once by invite and resend, stored only as its SHA-256) valid
 * for 7 days. Accepting binds the user to an identity (externalIdpId) and activates it. Statuses: pending,
 * accepted, canceled, and expired (a pending invitation past expiresAt). Resend issues a new token and expiry;
 * the old token is dead at once.
 */

export const INVITATION_TTL_MS = 7 * 86_400_000;

export { invitationStatus, toInvitation, type Invitation, type InvitationStatus, type IssuedInvitation } from './invitation-status';

function newToken(): { token: string; tokenHash: string } {
  const token = `inv_${randomBase62(40)}`;
  return { token, tokenHash: sha256Hex(token) };
}

export interface InvitationFilters {
  status?: InvitationStatus;
  userId?: string;
  email?: string;
}

export async function listInvitations(ctx: CallerContext, filters: InvitationFilters, page: ListParams): Promise<Page<Invitation>> {
  const now = ctx.clock.now();
  const where: Record<string | symbol, unknown> = {};
  if (filters.userId) where.userId = filters.userId;
  if (filters.email) where.email = normalizeEmail(filters.email);
  if (filters.status === 'pending') Object.assign(where, { status: 'pending', expiresAt: { [Op.gt]: now } });
  else if (filters.status === 'expired') Object.assign(where, { status: 'pending', expiresAt: { [Op.lte]: now } });
  else if (filters.status) where.status = filters.status;
  return mapPage(await scoped(ctx, ctx.db.models.Invitation).list(where, page), (row) => toInvitation(row, now));
}

export async function getInvitation(ctx: CallerContext, id: string): Promise<Invitation> {
  return toInvitation(await scoped(ctx, ctx.db.models.Invitation).get(id), ctx.clock.now());
}

export interface InviteInput {
  email: string;
  displayName?: string | null;
  roleIds?: string[];
  layer?: Layer;
  merchantId?: string;
  entityScope?: Record<string, unknown>;
  /** invite an owner of the layer (every permission): only a caller holding the whole layer may */
  owner?: boolean;
}

/** Creates a user in pending_invitation and its invitation; the token is in this answer only. */
export async function inviteUser(ctx: CallerContext, input: InviteInput): Promise<{ user: User; invitation: IssuedInvitation }> {
  const email = normalizeEmail(input.email);
  return inTransaction(ctx, async (tx) => {
    const target = await resolveInviteTarget(tx, input);
    const entityScope = await checkEntityScope(tx, input.entityScope, target.layer, 'body.entityScope');
    if (input.owner) checkOwnerGrant(tx, target.layer, 'body.owner');
    const roleIds = input.roleIds ?? [];
    await checkAssignableRoles(tx, target, roleIds, 'body.roleIds');
    await assertEmailFree(tx, target, email);
    const user = await scoped(tx, tx.db.models.User).create({
      tenantId: tx.level === 'platform' ? null : undefined,
      merchantId: target.merchantId,
      layer: target.layer,
      email,
      displayName: input.displayName ?? null,
      status: 'pending_invitation',
      externalIdpId: null,
      entityScope,
      mfaEnabled: false,
      isOwner: input.owner ?? false,
      lastLoginAt: null,
      createdBy: tx.actor.type === 'user' ? tx.actor.id : null,
    });
    await setUserRoles(tx, user, roleIds);
    const { token, tokenHash } = newToken();
    const row = await scoped(tx, tx.db.models.Invitation).create({
      tenantId: tx.level === 'platform' ? null : undefined,
      merchantId: target.merchantId,
      userId: user.id,
      email,
      layer: target.layer,
      status: 'pending',
      tokenHash,
      expiresAt: new Date(tx.clock.now().getTime() + INVITATION_TTL_MS),
      acceptedAt: null,
      canceledAt: null,
      sentCount: 1,
      createdBy: tx.actor.id,
    });
    const presentedUser = toUser(user, roleIds);
    const invitation = toInvitation(row, tx.clock.now());
    await auditRecord(tx, USER, user, 'user.invited', { after: presentedUser });
    await auditRecord(tx, INVITATION, row, 'invitation.created', { after: invitation });
    return { user: presentedUser, invitation: { ...invitation, token } };
  });
}

async function invitationForChange(ctx: CallerContext, id: string): Promise<{ row: InvitationRow; user: UserRow | null }> {
  const row = await scoped(ctx, ctx.db.models.Invitation).get(id, { lock: true });
  const user = await scoped(ctx, ctx.db.models.User).find(row.userId);
  if (user) await assertMayManage(ctx, user);
  return { row, user };
}

/** pending -> canceled; 409 for an accepted, canceled or expired invitation. */
export async function cancelInvitation(ctx: CallerContext, id: string): Promise<Invitation> {
  return inTransaction(ctx, async (tx) => {
    const { row } = await invitationForChange(tx, id);
    const now = tx.clock.now();
    const status = invitationStatus(row, now);
    const conflict = () =>
      new ConflictError('INVALID_STATE_TRANSITION', `A ${status} invitation cannot be canceled.`, {
        hint: 'cancel applies to pending invitations.',
      });
    if (status !== 'pending') throw conflict();
    const updated = await transition(tx, INVITATION_STATUS, row, 'cancel', {
      changes: { canceledAt: now },
      expect: { tokenHash: row.tokenHash },
      render: (r) => toInvitation(r, now),
    });
    return toInvitation(updated, now);
  });
}

/** A pending or expired invitation gets a new token and a new 7-day expiry; the old token stops working. */
export async function resendInvitation(ctx: CallerContext, id: string): Promise<IssuedInvitation> {
  return inTransaction(ctx, async (tx) => {
    const { row, user } = await invitationForChange(tx, id);
    const now = tx.clock.now();
    const status = invitationStatus(row, now);
    const conflict = () =>
      new ConflictError('INVALID_STATE_TRANSITION', `A ${status} invitation cannot be resent.`, {
        hint: 'resend applies to pending or expired invitations.',
      });
    if (row.status !== 'pending' || !user || user.status !== 'pending_invitation') throw conflict();
    const { token, tokenHash } = newToken();
    const updated = await auditedUpdate(
      tx,
      INVITATION,
      row,
      { tokenHash, expiresAt: new Date(now.getTime() + INVITATION_TTL_MS), sentCount: row.sentCount + 1 },
      {
        action: 'invitation.resent',
        expect: { status: 'pending', tokenHash: row.tokenHash },
        refused: conflict,
        now,
      },
    );
    return { ...toInvitation(updated, now), token };
  });
}

/** What accepting needs of a runtime (a Runtime or a caller context both have these). */
export interface AcceptRuntime {
  db: Database;
  clock: Clock;
  config: AppConfig;
  sealer: Sealer;
}

/**
 * Accepts an invitation by its token: binds the user to the identity-provider subject (externalIdpId) and
 * activates it. An unknown (or superseded by resend) token is 404; an expired, canceled or used one 409.
 */
export async function acceptInvitation(
  rt: AcceptRuntime,
  token: string,
  idpSubject: string,
): Promise<{ user: User; invitation: Invitation }> {
  const subject = idpSubject.trim();
  if (!subject || subject.length > 255) throw ValidationError.field('idpSubject', 'must be 1 to 255 characters');
  if (!/^inv_[A-Za-z0-9]{40}$/.test(token))
    throw ValidationError.field('token', 'is not an invitation token (inv_…)', 'INVALID_INVITATION_TOKEN');
  // The token is the caller's only credential: the invitation is found across tenants, then acted on in its scope.
  return inTransaction(invitationTokenContext(rt), async (base) => {
    const row = await scoped(base, base.db.models.Invitation).findOne({ tokenHash: sha256Hex(token) }, { lock: true });
    if (!row) {
      throw new NotFoundError('invitation', undefined, {
        code: 'INVITATION_NOT_FOUND',
        detail: 'No invitation matches this token (it may have been resent, or never existed).',
      });
    }
    const tenant = row.tenantId ? await scoped(base, base.db.models.Tenant).find(row.tenantId) : null;
    const tx = invitedUserContext(base, row.userId, tenant ? tenant.livemode : true);
    const now = tx.clock.now();
    const status = invitationStatus(row, now);
    if (status === 'accepted')
      throw new ConflictError('INVITATION_ALREADY_ACCEPTED', 'This invitation was already accepted; a token works once.');
    if (status === 'canceled') throw new ConflictError('INVITATION_CANCELED', 'This invitation was canceled.');
    if (status === 'expired') throw new ConflictError('INVITATION_EXPIRED', 'This invitation has expired; ask for it to be resent.');
    const users = scoped(tx, tx.db.models.User);
    const user = await users.get(row.userId, { lock: true });
    if (user.status !== 'pending_invitation') throw new ConflictError('INVALID_STATE_TRANSITION', `The invited user is ${user.status}.`);
    const taken = await tx.db.models.User.findOne({ where: { externalIdpId: subject }, attributes: ['id'], transaction: tx.transaction });
    if (taken)
      throw new ConflictError('IDP_SUBJECT_IN_USE', 'This identity is already bound to another user.', {
        errors: [{ path: 'idpSubject', message: 'is already bound to a user' }],
      });
    const accepted = await transition(tx, INVITATION_STATUS, row, 'accept', {
      changes: { acceptedAt: now },
      expect: { tokenHash: row.tokenHash },
      render: (r) => toInvitation(r, now),
    });
    const roleIds = (await scoped(tx, tx.db.models.UserRole).findAll({ userId: user.id })).map((l) => l.roleId);
    // two invitations accepted at once with one identity: the unique index decides, and the loser hears why
    const activation = transition(tx, USER_STATUS, user, 'activate', {
      changes: { externalIdpId: subject },
      render: (r) => toUser(r, roleIds),
    });
    const activated = await activation.catch((error: unknown) => {
      if (isUniqueViolation(error)) {
        throw new ConflictError('IDP_SUBJECT_IN_USE', 'This identity is already bound to another user.', {
          errors: [{ path: 'idpSubject', message: 'is already bound to a user' }],
        });
      }
      throw error;
    });
    return { user: toUser(activated, roleIds), invitation: toInvitation(accepted, now) };
  });
}
