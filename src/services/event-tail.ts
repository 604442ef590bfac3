import { Op, type WhereOptions } from 'sequelize';
import type { CallerContext } from '../domain/context';
import type { EventRow } from '../db/models';
import { scoped } from '../db/scoped';
import { eventCatalog, matchesPattern } from './webhooks/catalog';
import { EVENT_API_VERSION, renderEventData } from './webhooks/events';

/** An event as `payplane events tail` shows it: the outbox row, its data as the caller's level sees it. */
export interface TailedEvent {
  id: string;
  type: string;
  createdAt: string;
  livemode: boolean;
  tenantId: string | null;
  merchantId: string | null;
  data: unknown;
  version: string;
}

export interface EventTailOptions {
  /** type patterns (exact, payment.*, *); none or * for every type */
  types?: string[];
  /**
   * Show the events created from this time on (a replay of the recent ones first); absent: only the events committed
   * after the tail started (those already there are taken as seen on the first poll, and not shown).
   */
  since?: Date;
  /**
   * How far behind the newest event seen (or now, whichever is earlier) each poll looks again, in ms: an event is
   * stamped when its transaction writes it, and becomes visible when that transaction commits, so on Postgres one
   * stamped earlier can appear after one stamped later. Any event committed within this long of its stamp is shown.
   */
  lookbackMs?: number;
  /** rows read per query (the ids first, then the new events' rows) */
  batch?: number;
}

export const DEFAULT_LOOKBACK_MS = 10_000;

/**
 * Follows the events table (the transactional outbox) inside the caller's scope (tenant, merchant, mode: the same
 * conditions as every scoped read), in (createdAt, id) order. Each poll reads the ids of the window from
 * `min(newest seen, now) - lookback` on and returns the rows of those it has not returned yet: an event is returned
 * once, never skipped when it commits late (within the look-back) or shares its millisecond with others. The ids
 * returned are remembered while they are inside the window, so memory stays bounded by the window's events.
 */
export class EventTail {
  /** ids returned (or, without --since, present at the start), with their createdAt in ms */
  private readonly seen = new Map<string, number>();
  private readonly types: string[] | null;
  private readonly lookbackMs: number;
  private readonly batch: number;
  /** the window never starts before this (--since, else the start minus the look-back) */
  private floor: number;
  /** createdAt (ms) of the newest event seen; -Infinity before the first */
  private newest = Number.NEGATIVE_INFINITY;
  private primed: boolean;

  constructor(
    private readonly ctx: CallerContext,
    options: EventTailOptions = {},
  ) {
    this.types = eventTypesOf(options.types);
    this.lookbackMs = options.lookbackMs ?? DEFAULT_LOOKBACK_MS;
    this.batch = options.batch ?? 500;
    const now = ctx.clock.now().getTime();
    this.floor = options.since ? options.since.getTime() : now - this.lookbackMs;
    this.primed = options.since !== undefined;
  }

  /** Without --since: takes the events already committed in the window as seen, so that only new ones are shown. */
  async prime(): Promise<void> {
    if (this.primed) return;
    for await (const page of this.idPages(this.floor)) for (const row of page) this.remember(row.id, row.at);
    this.primed = true;
  }

  /** The events committed since the last poll (oldest first within a poll), page by page. */
  async *poll(): AsyncGenerator<TailedEvent[]> {
    await this.prime();
    const now = this.ctx.clock.now().getTime();
    const from = Math.max(this.floor, Math.min(this.newest, now) - this.lookbackMs);
    // the window only moves forward: ids before it are never read again
    this.floor = from;
    for (const [id, at] of this.seen) if (at < from) this.seen.delete(id);
    for await (const page of this.idPages(from)) {
      const fresh = page.filter((row) => !this.seen.has(row.id));
      if (!fresh.length) continue;
      const rows = await this.rowsOf(fresh.map((row) => row.id));
      const events = rows.sort(byTimeAndId).map((row) => this.present(row));
      for (const row of rows) this.remember(row.id, new Date(row.createdAt).getTime());
      if (events.length) yield events;
    }
  }

  private remember(id: string, at: number): void {
    this.seen.set(id, at);
    if (at > this.newest) this.newest = at;
  }

  /** The caller's conditions: its scope (ScopedAccess: tenant, merchant, mode, not deleted) and the type filter. */
  private where(extra: Record<string | symbol, unknown>): WhereOptions {
    const { Event } = this.ctx.db.models;
    const filters: Record<string | symbol, unknown> = { ...extra };
    if (this.types) filters.type = { [Op.in]: this.types };
    return { [Op.and]: [filters, scoped(this.ctx, Event).scopeWhere()] } as WhereOptions;
  }

  /** (id, createdAt) of the caller's events from `from` on, in (createdAt, id) order, a page at a time. */
  private async *idPages(from: number): AsyncGenerator<{ id: string; at: number }[]> {
    const { Event } = this.ctx.db.models;
    let after: { at: Date; id: string } | null = null;
    for (;;) {
      const bound: Record<string | symbol, unknown> = after
        ? {
            // the bound alone as well: the index range starts there
            createdAt: { [Op.gte]: after.at },
            [Op.or]: [{ createdAt: { [Op.gt]: after.at } }, { createdAt: after.at, id: { [Op.gt]: after.id } }],
          }
        : { createdAt: { [Op.gte]: new Date(from) } };
      const found = await Event.findAll({
        attributes: ['id', 'createdAt'],
        where: this.where(bound),
        order: [
          ['createdAt', 'ASC'],
          ['id', 'ASC'],
        ],
        limit: this.batch,
      });
      const page = found.map((row) => {
        const plain = row.get({ plain: true }) as Pick<EventRow, 'id' | 'createdAt'>;
        return { id: plain.id, at: new Date(plain.createdAt).getTime(), createdAt: new Date(plain.createdAt) };
      });
      if (page.length) yield page.map(({ id, at }) => ({ id, at }));
      if (page.length < this.batch) return;
      const last = page[page.length - 1];
      after = { at: last.createdAt, id: last.id };
    }
  }

  /** The rows of these ids, inside the caller's scope. */
  private async rowsOf(ids: string[]): Promise<EventRow[]> {
    const { Event } = this.ctx.db.models;
    const rows = await Event.findAll({ where: this.where({ id: { [Op.in]: ids } }) });
    return rows.map((row) => row.get({ plain: true }) as EventRow);
  }

  private present(row: EventRow): TailedEvent {
    return {
      id: row.id,
      type: row.type,
      createdAt: new Date(row.createdAt).toISOString(),
      livemode: row.livemode,
      tenantId: row.tenantId,
      merchantId: row.merchantId,
      // what the caller's level may see of it, as an endpoint of that level receives it
      data: renderEventData(row.data, this.ctx.level, row.type),
      version: row.apiVersion ?? EVENT_API_VERSION,
    };
  }
}

function byTimeAndId(a: EventRow, b: EventRow): number {
  const dt = new Date(a.createdAt).getTime() - new Date(b.createdAt).getTime();
  if (dt !== 0) return dt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The known event types the patterns match (null: every type). */
export function eventTypesOf(patterns: string[] | undefined): string[] | null {
  if (!patterns?.length || patterns.includes('*')) return null;
  return eventCatalog()
    .map((e) => e.type)
    .filter((type) => patterns.some((pattern) => matchesPattern(pattern, type)));
}
