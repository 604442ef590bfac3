import { v5 } from 'uuid';
import type { CallerContext } from '../../domain/context';
import type { Database } from '../../db/database';
import { recordAudit } from '../audit/entries';
import { toUser } from './users';

/**
 * The operator at the terminal is a user of the platform, so that what an operator does is audited like any user's. The
 * operating-system account (or --operator / PAYPLANE_OPERATOR) names a platform-layer user, owner with entityScope all
 * (the CLI acts with the database's authority, at any level), whose externalIdpId is `os:<account>`. What the CLI
 * changes carries that user's id in createdBy, approvedBy, … (createdByType user), as a change made with a user token
 * would; audit entries name the account as well (actorName).
 *
 * The user's id is derived from the account (UUID v5), so a context can be built synchronously; the record is created
 * on first use: the first transaction the operator opens (inTransaction) inserts it when it is missing, once per
 * process and database. A deleted or disabled record keeps its id: the terminal's authority is the database's, and
 * what was done stays attributed to it.
 */

/** The namespace of operator user ids (UUID v5 of `os:<account>`). */
const OPERATOR_NAMESPACE = '0f5a3c1e-8e0b-5d4a-9b7c-6a1e2d3f4b5c';

const MAX_EMAIL_LOCAL = 64;

export function operatorUserId(account: string): string {
  return v5(operatorIdpId(account), OPERATOR_NAMESPACE);
}

export function operatorIdpId(account: string): string {
  return `os:${account}`;
}

/** Databases (per process) where the operator's user is known to exist. */
const provisioned = new WeakMap<Database, Set<string>>();

/**
 * Creates the operator's user when it is missing (the provision step of the operator's actor, src/domain/authority.ts
 * operatorActor). `platform` is the operator's context lifted to platform level: the user is a platform record.
 */
export async function provisionOperator(platform: CallerContext, account: string): Promise<void> {
  const id = operatorUserId(account);
  let known = provisioned.get(platform.db);
  if (!known) provisioned.set(platform.db, (known = new Set()));
  if (known.has(id)) return;
  const transaction = platform.transaction;
  const User = platform.db.models.User;
  if (!(await User.findByPk(id, { transaction }))) {
    const now = platform.clock.now();
    const row = {
      id, tenantId: null, merchantId: null, layer: 'platform' as const, externalIdpId: operatorIdpId(account),
      email: `${account.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').slice(0, MAX_EMAIL_LOCAL) || 'operator'}@operators.payplane.invalid`,
      displayName: account, status: 'active' as const, entityScope: { type: 'all' }, mfaEnabled: false, isOwner: true, lastLoginAt: null,
      createdBy: null, createdAt: now, updatedAt: now, deletedAt: null,
    };
    // another process may create it at the same moment: the second insert does nothing
    await User.bulkCreate([row], { transaction, ignoreDuplicates: true });
    const created = await User.findByPk(id, { transaction });
    if (!created) {
      throw new Error(`The user of the operator ${operatorIdpId(account)} cannot be created: another user already has externalIdpId ${operatorIdpId(account)}.`);
    }
    await recordAudit(platform, { action: 'user.created', targetType: 'user', targetId: id, tenantId: null, merchantId: null, after: toUser(created.get({ plain: true }), []) });
  }
  if (transaction) (transaction as unknown as { afterCommit(fn: () => void): void }).afterCommit(() => known.add(id));
  else known.add(id);
}
