import type { CallerContext } from '../domain/context';
import type { PlatformRow } from '../db/models';
import { newId } from '../util/ids';

/** The one platform record this installation runs; created on first use. */
export async function ensurePlatform(ctx: CallerContext): Promise<PlatformRow> {
  const { Platform } = ctx.db.models;
  const existing = await Platform.findOne({ order: [['createdAt', 'ASC']], transaction: ctx.transaction });
  if (existing) return existing.get({ plain: true }) as PlatformRow;
  const now = ctx.clock.now();
  const created = await Platform.create({ id: newId(), name: 'Payplane', createdAt: now, updatedAt: now }, { transaction: ctx.transaction });
  return created.get({ plain: true }) as PlatformRow;
}
