import { newId } from '../util/ids';
import { Op, QueryTypes, literal, type WhereOptions } from 'sequelize';
import type { CallerContext } from '../domain/context';
import { InternalError, NotFoundError, PermissionError, ValidationError } from '../domain/errors';
import type { RowModel } from './models';
import { sumNumber } from './model-kit';

export interface ListParams {
  cursor?: string;
  limit: number;
  sortOrder: 'asc' | 'desc';
}

export interface Pagination {
  nextCursor: string | null;
  prevCursor: string | null;
  hasMore: boolean;
  totalCount: number;
}

export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

type AnyWhere = Record<string | symbol, unknown>;

/** Lists count their records exactly up to this many; see ScopedAccess.totalCount. */
export const COUNT_EXACT_UP_TO = 1_000;

/**
 * The one door to the tables: every read and write applies the caller's tenant, merchant and mode, and hides
 * soft-deleted rows. A record outside the caller's scope does not exist for it (404), wherever it is asked for.
 */
export class ScopedAccess<R extends { id: string; createdAt: Date }> {
  constructor(
    private readonly ctx: CallerContext,
    private readonly model: RowModel<R>,
  ) {}

  private get spec() {
    return this.model.scopeSpec;
  }

  /** The conditions the caller's scope puts on every query of this table. */
  scopeWhere(): AnyWhere {
    const { tenant, merchant, mode, softDelete } = this.spec;
    const where: AnyWhere = {};
    // Fail closed: a tenant or merchant caller without its tenant or merchant sees nothing, never everything.
    if (this.ctx.level !== 'platform' && !this.ctx.tenantId) throw new InternalError(`a ${this.ctx.level} caller without a tenant`);
    if (this.ctx.level === 'merchant' && !this.ctx.merchantId) throw new InternalError('a merchant caller without a merchant');
    if (tenant && this.ctx.level !== 'platform') where[tenant] = this.ctx.tenantId;
    if (merchant && this.ctx.merchantId) where[merchant] = this.ctx.merchantId;
    else if (merchant && this.ctx.merchantScope) where[merchant] = { [Op.in]: [...this.ctx.merchantScope] };
    else if (this.ctx.merchantScope && this.spec.throughMerchants) {
      // e.g. companies: visible only as the company of an in-scope merchant
      const ids = [...this.ctx.merchantScope].map((id) => this.model.sequelize!.escape(id)).join(', ') || 'NULL';
      const { table, column } = this.spec.throughMerchants;
      where.id = { [Op.in]: literal(`(SELECT "${column}" FROM "${table}" WHERE "id" IN (${ids}))`) };
    }
    const shared = this.spec.merchantOrTenantWide;
    const merchants = this.ctx.merchantId ? [this.ctx.merchantId] : this.ctx.merchantScope ? [...this.ctx.merchantScope] : undefined;
    if (shared && merchants) where[shared] = { [Op.or]: [{ [Op.is]: null }, { [Op.in]: merchants }] };
    if (mode) where[mode] = this.ctx.livemode;
    if (softDelete) where.deletedAt = null;
    return where;
  }

  /**
   * The caller's conditions AND the scope: a scope column can never be overridden by a filter. A filter that only
   * repeats the scope's own condition (a merchant naming itself) is left out: written twice, it misleads SQLite's
   * planner into the wrong index.
   */
  private where(extra: AnyWhere = {}): WhereOptions {
    const scope = this.scopeWhere();
    const own = Object.keys(extra).filter((key) => extra[key] !== undefined && typeof extra[key] !== 'object' && extra[key] === scope[key]);
    const filters = { ...extra };
    for (const key of own) delete filters[key];
    return { [Op.and]: [filters, scope] } as WhereOptions;
  }

  async findOne(where: AnyWhere, options: { lock?: boolean } = {}): Promise<R | null> {
    const row = await this.model.findOne({
      where: this.where(where),
      transaction: this.ctx.transaction,
      lock: options.lock && this.ctx.transaction ? true : undefined,
    });
    return row ? (row.get({ plain: true }) as R) : null;
  }

  async find(id: string, options: { lock?: boolean } = {}): Promise<R | null> {
    if (!isUuid(id)) return null;
    return this.findOne({ id }, options);
  }

  /** The record, or 404 when it does not exist or is outside the caller's scope. */
  async get(id: string, options: { lock?: boolean } = {}): Promise<R> {
    const row = await this.find(id, options);
    if (!row) throw new NotFoundError(this.spec.resource, id);
    return row;
  }

  async findAll(where: AnyWhere = {}, options: { limit?: number } = {}): Promise<R[]> {
    const rows = await this.model.findAll({
      where: this.where(where),
      order: [['createdAt', 'DESC'], ['id', 'DESC']],
      limit: options.limit,
      transaction: this.ctx.transaction,
    });
    return rows.map((r) => r.get({ plain: true }) as R);
  }

  async count(where: AnyWhere = {}): Promise<number> {
    return this.model.count({ where: this.where(where), transaction: this.ctx.transaction });
  }

  /** The caller's rows matching `where` counted per value of `column`, in one query (values without rows are absent). */
  async countBy(column: keyof R & string, where: AnyWhere = {}): Promise<Map<string, number>> {
    const groups = await this.model.count({ where: this.where(where), group: [column], transaction: this.ctx.transaction });
    return new Map(groups.map((g) => [String(g[column]), Number(g.count)]));
  }

  /** The sum of an integer column over the caller's rows matching `where` (0 when none). */
  async sum(column: keyof R & string, where: AnyWhere = {}): Promise<number> {
    return sumNumber(await this.model.sum(column as never, { where: this.where(where), transaction: this.ctx.transaction }));
  }

  /** Inserts a row inside the caller's scope; id and timestamps come from here and the injected clock. */
  async create(values: Partial<R>): Promise<R> {
    const { tenant, merchant, mode } = this.spec;
    const row: AnyWhere = { id: newId(), ...values };
    if (tenant && this.ctx.level !== 'platform') {
      if (row[tenant] !== undefined && row[tenant] !== this.ctx.tenantId) {
        throw new InternalError(`scoped create of ${this.spec.resource} outside the caller's tenant`);
      }
      row[tenant] = this.ctx.tenantId;
    }
    if (merchant && merchant !== 'id' && this.ctx.merchantId) {
      if (row[merchant] != null && row[merchant] !== this.ctx.merchantId) {
        throw new InternalError(`scoped create of ${this.spec.resource} outside the caller's merchant`);
      }
      row[merchant] = this.ctx.merchantId;
    }
    this.assertWritable(row);
    if (merchant && this.ctx.merchantScope && !this.spec.writtenBySystem) {
      const owner = row[merchant] as string | null | undefined;
      if (!owner || !this.ctx.merchantScope.has(owner)) {
        throw new PermissionError(
          `This ${this.spec.resource} would be outside the caller's entity scope (its merchants only).`,
          'ENTITY_SCOPE_EXCEEDED',
        );
      }
    }
    if (mode && row[mode] === undefined) row[mode] = this.ctx.livemode;
    if (tenant && !row[tenant] && !this.spec.tenantNullable) throw new InternalError(`${this.spec.resource} created without a tenant`);
    const now = this.ctx.clock.now();
    row.createdAt = row.createdAt ?? now;
    row.updatedAt = now;
    if ('deletedAt' in this.model.getAttributes()) row.deletedAt = null;
    const created = await this.model.create(row as never, { transaction: this.ctx.transaction });
    return created.get({ plain: true }) as R;
  }

  /**
   * Updates the row when it still matches `expect` (compare-and-set, so concurrent moves cannot both win).
   * Returns the updated row, or null when it no longer matched.
   */
  /**
   * An operator limited to some merchants changes only those merchants' records: a table owned by no merchant
   * (the tenant, companies, partners, channels, …) is tenant-wide, so writing it is refused. A table of tenant-wide
   * and merchant rows (merchantOrTenantWide: antifraud plans) is written row by row: a row of a merchant in the scope,
   * that stays one (`changes` of its merchant name one in the scope too); a tenant-wide row is refused.
   */
  assertWritable(row?: Partial<R> | AnyWhere, changes?: Partial<R> | AnyWhere): void {
    if (!this.ctx.merchantScope || this.spec.merchant || this.spec.writtenBySystem) return;
    const shared = this.spec.merchantOrTenantWide;
    if (shared && row) {
      const next = (changes as AnyWhere | undefined)?.[shared];
      const owners = [(row as AnyWhere)[shared], ...(next !== undefined ? [next] : [])];
      if (owners.every((owner) => typeof owner === 'string' && this.ctx.merchantScope!.has(owner))) return;
    }
    throw new PermissionError(`A caller limited to some merchants cannot change a tenant-wide ${this.spec.resource}.`, 'ENTITY_SCOPE_EXCEEDED');
  }

  async updateIf(row: R, expect: AnyWhere, changes: Partial<R>): Promise<R | null> {
    this.assertWritable(row, changes);
    const values = { ...changes, updatedAt: this.ctx.clock.now() } as AnyWhere;
    const [count] = await this.model.update(values as never, {
      where: this.where({ ...expect, id: row.id }),
      transaction: this.ctx.transaction,
    });
    if (count === 0) return null;
    return { ...row, ...values } as R;
  }

  async update(row: R, changes: Partial<R>): Promise<R> {
    const updated = await this.updateIf(row, {}, changes);
    if (!updated) throw new NotFoundError(this.spec.resource, row.id);
    return updated;
  }

  async softDelete(row: R): Promise<R> {
    return this.update(row, { deletedAt: this.ctx.clock.now() } as unknown as Partial<R>);
  }

  /**
   * One page in createdAt order (ties broken by id). `cursor` is the id of the first record of the page to
   * return; nextCursor and prevCursor are the first ids of the following and the preceding page.
   */
  async list(where: AnyWhere, params: ListParams): Promise<Page<R>> {
    const desc = params.sortOrder !== 'asc';
    const dir = desc ? 'DESC' : 'ASC';
    const baseWhere = this.where(where);
    let pageWhere: WhereOptions = baseWhere;
    let anchor: R | null = null;
    if (params.cursor !== undefined) {
      anchor = isUuid(params.cursor) ? await this.findOne({ id: params.cursor }) : null;
      if (!anchor) throw ValidationError.field('query.cursor', 'is not a cursor of this list', 'INVALID_CURSOR');
      const [before, atOrBefore] = desc ? [Op.lt, Op.lte] : [Op.gt, Op.gte];
      pageWhere = {
        [Op.and]: [
          baseWhere,
          // the bound alone as well: Postgres cannot start the index range from the OR below, and would walk the list from its head
          { createdAt: { [atOrBefore]: anchor.createdAt } },
          { [Op.or]: [{ createdAt: { [before]: anchor.createdAt } }, { createdAt: anchor.createdAt, id: { [atOrBefore]: anchor.id } }] },
        ],
      };
    }
    const [rows, totalCount, prevCursor] = await Promise.all([
      this.model.findAll({
        where: pageWhere,
        order: [['createdAt', dir], ['id', dir]],
        limit: params.limit + 1,
        transaction: this.ctx.transaction,
      }),
      this.totalCount(baseWhere),
      anchor ? this.previousPageStart(baseWhere, anchor, desc, params.limit) : Promise.resolve(null),
    ]);
    const hasMore = rows.length > params.limit;
    const data = rows.slice(0, params.limit).map((r) => r.get({ plain: true }) as R);
    return {
      data,
      pagination: { nextCursor: hasMore ? (rows[params.limit].get('id') as string) : null, prevCursor, hasMore, totalCount },
    };
  }

  /**
   * The number of records of the list. Up to COUNT_EXACT_UP_TO it is exact and current, from a count that stops
   * there (a bounded walk of the list's index, cheap whatever the table's size). Beyond, it is an exact count that
   * this process refreshes at most every LARGE_COUNT_TTL_MS, so it may lag recent writes by that long.
   */
  private async totalCount(where: WhereOptions): Promise<number> {
    const sequelize = this.model.sequelize!;
    const generator = sequelize.getQueryInterface().queryGenerator as {
      selectQuery(table: string, options: object, model: unknown): string;
    };
    const rows = generator.selectQuery(this.model.getTableName() as string, { attributes: ['id'], where, limit: COUNT_EXACT_UP_TO + 1 }, this.model).replace(/;\s*$/, '');
    const [bounded] = await sequelize.query<{ n: number | string }>(`SELECT count(*) AS n FROM (${rows}) AS bounded`, {
      type: QueryTypes.SELECT, transaction: this.ctx.transaction,
    });
    const n = Number(bounded.n);
    if (n <= COUNT_EXACT_UP_TO) return n;
    return this.ctx.db.largeCounts.read(rows, () => this.model.count({ where, transaction: this.ctx.transaction }));
  }

  private async previousPageStart(baseWhere: WhereOptions, anchor: R, desc: boolean, limit: number): Promise<string | null> {
    const after = desc ? Op.gt : Op.lt;
    const atOrAfter = desc ? Op.gte : Op.lte;
    const reverse = desc ? 'ASC' : 'DESC';
    const rows = await this.model.findAll({
      attributes: ['id'],
      where: {
        [Op.and]: [
          baseWhere,
          { createdAt: { [atOrAfter]: anchor.createdAt } },
          { [Op.or]: [{ createdAt: { [after]: anchor.createdAt } }, { createdAt: anchor.createdAt, id: { [after]: anchor.id } }] },
        ],
      },
      order: [['createdAt', reverse], ['id', reverse]],
      limit,
      transaction: this.ctx.transaction,
    });
    return rows.length ? (rows[rows.length - 1].get('id') as string) : null;
  }
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

export function scoped<R extends { id: string; createdAt: Date }>(ctx: CallerContext, model: RowModel<R>): ScopedAccess<R> {
  return new ScopedAccess(ctx, model);
}
