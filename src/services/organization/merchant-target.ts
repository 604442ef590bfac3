import type { CallerContext } from '../../domain/context';
import { NotFoundError, ValidationError } from '../../domain/errors';
import type { MerchantRow } from '../../db/models/organization';
import { scoped } from '../../db/scoped';

/**
 * The merchant a write is for: a merchant caller's own, or the one a tenant or platform caller names (required for
 * them, 400 naming the field otherwise). A merchant the caller cannot see is 404 naming the field. With `lock`, the row
 * is locked for the caller's transaction (writes that must see one another, such as a merchant's withdrawals).
 */
export async function targetMerchant(
  ctx: CallerContext,
  merchantId: string | undefined,
  field = 'body.merchantId',
  options: { lock?: boolean } = {},
): Promise<MerchantRow> {
  const id = merchantId ?? (ctx.level === 'merchant' ? ctx.merchantId! : undefined);
  if (!id) throw ValidationError.field(field, `is required for ${ctx.level} callers: the merchant this is for`);
  const merchant = await scoped(ctx, ctx.db.models.Merchant).find(id, options);
  if (!merchant) throw new NotFoundError('merchant', id, { errors: [{ path: field, message: 'no such merchant' }] });
  return merchant as MerchantRow;
}
