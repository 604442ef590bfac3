import os from 'node:os';
import { v5 } from 'uuid';
import { elevate, terminalContext, type ContextSources, type OperatorScope } from '../../domain/authority';
import type { Actor, CallerContext } from '../../domain/context';
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
 * Creates the operator's user when it is missing (the provision step of the operator's actor, operatorActor below).
 * `platform` is the operator's context lifted to platform level: the user is a platform record.
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
      id,
      tenantId: null,
      merchantId: null,
      layer: 'platform' as const,
      externalIdpId: operatorIdpId(account),
      email: `${
        account
          .toLowerCase()
          .replace(/[^a-z0-9._-]+/g, '-')
          .slice(0, MAX_EMAIL_LOCAL) || 'operator'
      }@operators.payplane.invalid`,
      displayName: account,
      status: 'active' as const,
      entityScope: { type: 'all' },
      mfaEnabled: false,
      isOwner: true,
      lastLoginAt: null,
      createdBy: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    // another process may create it at the same moment: the second insert does nothing
    await User.bulkCreate([row], { transaction, ignoreDuplicates: true });
    const created = await User.findByPk(id, { transaction });
    if (!created) {
      throw new Error(
        `The user of the operator ${operatorIdpId(account)} cannot be created: another user already has externalIdpId ${operatorIdpId(account)}.`,
      );
    }
    await recordAudit(platform, {
      action: 'user.created',
      targetType: 'user',
      targetId: id,
      tenantId: null,
      merchantId: null,
      after: toUser(created.get({ plain: true }), []),
    });
  }
  if (transaction) (transaction as unknown as { afterCommit(fn: () => void): void }).afterCommit(() => known.add(id));
  else known.add(id);
}

/** The actor of the operator `account` at the terminal: its platform user record, created on first use. */
export function operatorActor(account: string): Actor {
  return {
    type: 'user',
    id: operatorUserId(account),
    name: operatorIdpId(account),
    provision: (ctx) => provisionOperator(elevate(ctx, 'platform', 'the operator user is a platform record'), account),
  };
}

/**
 * The caller context of an operator at the terminal (src/domain/authority.ts terminalContext): admin commands run
 * with the database's own authority, acting at the given level with every permission of that layer. The actor is the
 * operator's user (created on first use, externalIdpId os:<account>); audit entries name the account.
 * `scope.operator` says who acts (default: the OS user; withdrawal and risk commands take it from --operator).
 */
export function operatorContext(rt: ContextSources, scope: OperatorScope & { operator?: string }): CallerContext {
  return terminalContext(rt, scope, operatorActor(scope.operator ?? safeUsername()));
}

let username: string | undefined;
/** The OS user, read once per process (os.userInfo is a system call). */
function safeUsername(): string {
  if (username === undefined) {
    try {
      username = os.userInfo().username;
    } catch {
      username = 'unknown';
    }
  }
  return username;
}
