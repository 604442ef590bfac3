import type { CallerContext } from '../../domain/context';
import type { PlatformRow } from '../../db/models';
import { isUniqueViolation } from '../../db/database';

/** This installation's platform: one record with a fixed id, so concurrent first starts cannot make two. */
export const PLATFORM_ID = '00000000-0000-7000-8000-000000000001';

export async function ensurePlatform(ctx: CallerContext): Promise<PlatformRow> {
  const { Platform } = ctx.db.models;
  const existing = await Platform.findByPk(PLATFORM_ID, { transaction: ctx.transaction });
  if (existing) return existing.get({ plain: true }) as PlatformRow;
  const now = ctx.clock.now();
  try {
    // a savepoint, so a concurrent creation does not abort the caller's transaction
    const created = await ctx.db.sequelize.transaction({ transaction: ctx.transaction }, (transaction) =>
      Platform.create({ id: PLATFORM_ID, name: 'Payplane', createdAt: now, updatedAt: now }, { transaction }),
    );
    return created.get({ plain: true }) as PlatformRow;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return (await Platform.findByPk(PLATFORM_ID, { transaction: ctx.transaction }))!.get({ plain: true }) as PlatformRow;
  }
}
