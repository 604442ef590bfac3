import { ValidationError } from '../domain/errors';
import type { CallerContext } from '../domain/context';
import type { Runtime } from '../runtime';
import type { Refund } from '../services/payments/records';
import type { CreateRefundInput } from '../services/payments/refunds';
import { createRefund, getRefund } from '../services/payments/refunds';
import {
  bodyFingerprint, claimIdempotencyKey, completeIdempotencyKey, idempotencyScope, releaseIdempotencyKey, renewWhileRunning, reused,
} from '../services/idempotency';

/**
 * Creates a refund as POST /v1/payments/{id}/refunds does, with the API's Idempotency-Key rule when a key is given:
 * the key is claimed in the tenant's scope (the same scope as the tenant's secret keys), a retry with the same key
 * and body returns the refund the first call created, another body with the key is 409 IDEMPOTENCY_KEY_REUSED. The
 * stored answer is the API's own (sealed `{ data: refund }`), so the CLI and the API replay each other's refunds.
 */
export async function createRefundOnce(
  rt: Runtime,
  ctx: CallerContext,
  paymentId: string,
  body: CreateRefundInput,
  key: string | undefined,
): Promise<{ refund: Refund; replayed: boolean }> {
  if (key === undefined) return { refund: await createRefund(ctx, paymentId, body), replayed: false };
  if (key.length < 1 || key.length > 128) throw ValidationError.field('--idempotency-key', 'must be 1 to 128 characters', 'INVALID_IDEMPOTENCY_KEY');
  const request = {
    scope: idempotencyScope(ctx),
    key,
    method: 'POST',
    path: `/v1/payments/${paymentId}/refunds`,
    body: bodyFingerprint(ctx.sealer, body),
  };
  const claim = await claimIdempotencyKey(rt.db, rt.clock, request);
  if (claim.kind === 'replay') {
    if (!claim.sameRequest) throw reused();
    const stored = JSON.parse(ctx.sealer.open((claim.body as { sealed: string }).sealed)) as { data: Refund };
    return { refund: await getRefund(ctx, stored.data.id), replayed: true };
  }
  const stopRenewing = renewWhileRunning(rt.db, rt.clock, claim);
  try {
    const refund = await createRefund(ctx, paymentId, body, key);
    await rt.db.transaction((transaction) =>
      completeIdempotencyKey(rt.db, rt.clock, claim, 201, { sealed: ctx.sealer.seal(JSON.stringify({ data: refund })) }, transaction),
    );
    return { refund, replayed: false };
  } catch (error) {
    await releaseIdempotencyKey(rt.db, claim).catch(() => undefined);
    throw error;
  } finally {
    stopRenewing();
  }
}
