import { inTransaction, type CallerContext } from '../domain/context';
import { scoped } from '../db/scoped';
import { ValidationError } from '../domain/errors';
import type { UserRow } from '../db/models';
import { recordAudit } from './audit';

export interface CreateUserInput {
  layer: UserRow['layer'];
  email: string;
  displayName?: string;
  tenantId?: string | null;
  merchantId?: string | null;
  externalIdpId?: string | null;
}

/** An active user (the invitation flow of the organization area creates pending ones). */
export async function createActiveUser(ctx: CallerContext, input: CreateUserInput): Promise<UserRow> {
  if (input.layer === 'merchant' && !input.merchantId) throw new ValidationError('A merchant-layer user needs a merchant.', [{ path: 'merchantId', message: 'is required' }]);
  return inTransaction(ctx, async (tx) => {
    const row = await scoped(tx, tx.db.models.User).create({
      tenantId: input.layer === 'platform' ? null : (input.tenantId ?? tx.tenantId),
      merchantId: input.layer === 'merchant' ? (input.merchantId ?? null) : null,
      layer: input.layer, email: input.email, displayName: input.displayName ?? null, status: 'active',
      externalIdpId: input.externalIdpId ?? null, entityScope: { type: 'all' }, mfaEnabled: false, lastLoginAt: null,
      createdBy: tx.actor.type === 'user' ? tx.actor.id : null,
    });
    await recordAudit(tx, { action: 'user.created', targetType: 'user', targetId: row.id, tenantId: row.tenantId, merchantId: row.merchantId, after: row });
    return row;
  });
}
