import { Op, type Order, type WhereOptions } from 'sequelize';
import type { CallerContext } from '../domain/context';
import type { RowModel } from '../db/model-kit';
import { scoped } from '../db/scoped';
import type { Runtime } from '../runtime';
import { systemContext } from '../domain/authority';

export interface DueOptions {
  /** defaults to the context's clock */
  now?: Date;
  /** rows read per round */
  batchSize?: number;
}

export interface DueQuery<R extends { id: string; createdAt: Date }> {
  model(ctx: CallerContext): RowModel<R>;
  /** the rows due at `now` */
  where(now: Date): WhereOptions;
  order: Order;
}

function isRuntime(x: Runtime | CallerContext): x is Runtime {
  return !('level' in x);
}

/**
 * Runs `handle` on every row due at `now`, in batches, each row once per call. With a Runtime it runs over every
 * tenant in both modes (the system's context); with a caller context, over what that caller sees. `handle` moves one
 * row (in a transaction of its own, by compare-and-set, so several processes may run this at once) and says whether
 * it did; the count of moved rows is returned.
 */
export async function forEachDue<R extends { id: string; createdAt: Date }>(
  source: Runtime | CallerContext,
  query: DueQuery<R>,
  handle: (ctx: CallerContext, row: R, now: Date) => Promise<boolean>,
  options: DueOptions = {},
): Promise<number> {
  const contexts = isRuntime(source) ? [systemContext(source, false), systemContext(source, true)] : [source];
  const batchSize = options.batchSize ?? 200;
  let moved = 0;
  for (const ctx of contexts) {
    const now = options.now ?? ctx.clock.now();
    const model = query.model(ctx);
    const seen = new Set<string>();
    for (;;) {
      const due = (
        await model.findAll({
          where: { [Op.and]: [query.where(now), scoped(ctx, model).scopeWhere()] } as WhereOptions,
          order: query.order,
          limit: batchSize,
          transaction: ctx.transaction,
        })
      ).map((r) => r.get({ plain: true }) as R);
      const fresh = due.filter((r) => !seen.has(r.id));
      if (fresh.length === 0) break;
      for (const row of fresh) {
        seen.add(row.id);
        if (await handle(ctx, row, now)) moved++;
      }
      if (due.length < batchSize) break;
    }
  }
  return moved;
}
