import { newId } from '../util/ids';
import { Op, QueryTypes, literal, type WhereOptions } from 'sequelize';
import type { CallerContext } from '../domain/context';
import { InternalError, NotFoundError, PermissionError, ValidationError } from '../domain/errors';
import type { RowModel } from './models';
import { sumNumber } from './model-kit';
import { bindable, compileWhere, decode, encode, insertStatement, matchesWhere, tableOf, type Table } from './table';

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
    const { filters, scope } = this.conditions(extra);
    return { [Op.and]: [filters, scope] } as WhereOptions;
  }

  private conditions(extra: AnyWhere): { filters: AnyWhere; scope: AnyWhere } {
    const scope = this.scopeWhere();
    const filters = { ...extra };
    for (const key of Object.keys(extra)) {
      if (extra[key] !== undefined && typeof extra[key] !== 'object' && extra[key] === scope[key]) delete filters[key];
    }
    return { filters, scope };
  }

  // ------------------------------------------------------------------------------ the hot path: prepared statements

  /**
   * The table on the prepared-statement path (db/statements, db/table), or null where it stays on Sequelize: a table
   * whose attributes are named apart from their columns, and for writes a table with hooks (read caches watch them).
   */
  private fastTable(write = false): Table | null {
    const table = tableOf(this.model as never, this.ctx.db.dialect);
    return table && !(write && table.hooked) ? table : null;
  }

  /** `WHERE …` of the caller's filters and its scope, with their values; null when one of them is not plain. */
  private fastWhere(table: Table, extra: AnyWhere): { sql: string; params: unknown[] } | null {
    const { filters, scope } = this.conditions(extra);
    const parts: string[] = [];
    const params: unknown[] = [];
    if (!compileWhere(table, filters, parts, params) || !compileWhere(table, scope, parts, params)) return null;
    return { sql: parts.length ? ` WHERE ${parts.join(' AND ')}` : '', params };
  }

  private async fastRows(table: Table, sql: string, params: unknown[], byId?: { id: string; locked: boolean }): Promise<R[]> {
    const rows = await this.ctx.db.sql.all<Record<string, unknown>>(sql, params, { transaction: this.ctx.transaction, byId });
    return rows.map((row) => decode<R>(table, row));
  }

  private lockClause(lock: boolean | undefined): string {
    return lock && this.ctx.transaction && this.ctx.db.dialect === 'postgres' ? ' FOR UPDATE' : '';
  }

  async findOne(where: AnyWhere, options: { lock?: boolean } = {}): Promise<R | null> {
    const table = this.fastTable();
    const compiled = table && this.fastWhere(table, where);
    if (table && compiled) {
      const lock = this.lockClause(options.lock);
      const transaction = this.ctx.transaction;
      const byId = transaction && typeof where.id === 'string' ? { id: where.id, locked: lock !== '' } : undefined;
      if (byId) {
        // read already in this transaction under another scope (a session read by its merchant, then by its tenant)
        const kept = this.ctx.db.sql.keptRow(transaction!, table.name, byId.id, byId.locked);
        const conditions = kept && this.conditions(where);
        if (kept && conditions && matchesWhere(table, kept, conditions.filters) && matchesWhere(table, kept, conditions.scope))
          return decode<R>(table, kept);
      }
      const [found] = await this.fastRows(
        table,
        `SELECT ${table.selectList} FROM "${table.name}"${compiled.sql} LIMIT 1${lock}`,
        compiled.params,
        byId,
      );
      return found ?? null;
    }
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
    const table = this.fastTable();
    const compiled = table && this.fastWhere(table, where);
    if (table && compiled) {
      const limit = options.limit !== undefined ? ` LIMIT ${Math.trunc(options.limit)}` : '';
      return this.fastRows(
        table,
        `SELECT ${table.selectList} FROM "${table.name}"${compiled.sql} ORDER BY "createdAt" DESC, "id" DESC${limit}`,
        compiled.params,
      );
    }
    const rows = await this.model.findAll({
      where: this.where(where),
      order: [
        ['createdAt', 'DESC'],
        ['id', 'DESC'],
      ],
      limit: options.limit,
      transaction: this.ctx.transaction,
    });
    return rows.map((r) => r.get({ plain: true }) as R);
  }

  async count(where: AnyWhere = {}): Promise<number> {
    const table = this.fastTable();
    const compiled = table && this.fastWhere(table, where);
    if (compiled) {
      const [row] = await this.ctx.db.sql.all<{ count: number | string }>(
        `SELECT count(*) AS "count" FROM "${table!.name}"${compiled.sql}`,
        compiled.params,
        { transaction: this.ctx.transaction },
      );
      return Number(row.count);
    }
    return this.model.count({ where: this.where(where), transaction: this.ctx.transaction });
  }

  /** The caller's rows matching `where` counted per value of `column`, in one query (values without rows are absent). */
  async countBy(column: keyof R & string, where: AnyWhere = {}): Promise<Map<string, number>> {
    const groups = await this.model.count({ where: this.where(where), group: [column], transaction: this.ctx.transaction });
    return new Map(groups.map((g) => [String(g[column]), Number(g.count)]));
  }

  /** The sum of an integer column over the caller's rows matching `where` (0 when none). */
  async sum(column: keyof R & string, where: AnyWhere = {}): Promise<number> {
    const table = this.fastTable();
    const compiled = table && table.kinds.has(column) ? this.fastWhere(table, where) : null;
    if (compiled) {
      const [row] = await this.ctx.db.sql.all<{ sum: number | string | null }>(
        `SELECT sum("${column}") AS "sum" FROM "${table!.name}"${compiled.sql}`,
        compiled.params,
        { transaction: this.ctx.transaction },
      );
      return sumNumber(row.sum);
    }
    return sumNumber(await this.model.sum(column as never, { where: this.where(where), transaction: this.ctx.transaction }));
  }

  /** Inserts a row inside the caller's scope; id and timestamps come from here and the injected clock. */
  async create(values: Partial<R>): Promise<R> {
    const [created] = await this.createMany([values]);
    return created;
  }

  /**
   * Inserts a row inside the caller's scope as create() does, but at the end of the caller's transaction (just before
   * its COMMIT, with the other rows it deferred to the table: db/statements' defer); at once without a transaction.
   * For records nothing reads back in the same transaction by the row returned (audit entries): the row is the one
   * given, not read back from the database.
   */
  async createLater(values: Partial<R>): Promise<R> {
    const table = this.fastTable(true);
    if (!this.ctx.transaction || !table) return this.create(values);
    const row = this.newRow(values);
    if (!insertStatement(table, [row], false)) return this.create(values);
    this.ctx.db.sql.defer(this.ctx.transaction, table, [row]);
    return row as unknown as R;
  }

  /**
   * Rows inserted inside the caller's scope as createMany() does, written when the transaction ends, just before its
   * COMMIT, with whatever else it deferred (db/statements' defer: one statement on Postgres, one trip on SQLite); a
   * read of the table in the transaction writes them first. Outside a transaction, or where the table stays on
   * Sequelize, at once. Returns them in the order given.
   */
  async createManyLater(values: Partial<R>[]): Promise<R[]> {
    const table = this.fastTable(true);
    if (!values.length || !this.ctx.transaction || !table) return this.createMany(values);
    const rows = values.map((v) => this.newRow(v));
    if (!insertStatement(table, rows, false)) return this.createMany(values);
    this.ctx.db.sql.defer(this.ctx.transaction, table, rows);
    return rows as unknown as R[];
  }

  /**
   * Rows inserted as createManyLater() does, each unless a row with the same unique key is already there (INSERT …
   * ON CONFLICT DO NOTHING): a record that the first of several writers opens (a day's settlement statement). Nothing
   * is returned: which rows went in is known only at the end of the transaction. At once outside a transaction.
   */
  async ensureLater(values: Partial<R>[]): Promise<void> {
    if (!values.length) return;
    const table = this.fastTable(true);
    const rows = values.map((v) => this.newRow(v));
    const insert = table && insertStatement(table, rows, false);
    if (!insert) throw new InternalError(`${this.spec.resource}: rows that cannot be inserted on the prepared-statement path`);
    if (this.ctx.transaction) {
      this.ctx.db.sql.defer(this.ctx.transaction, table!, rows, { ignoreConflicts: true });
      return;
    }
    await this.ctx.db.sql.run(`${insert.sql} ON CONFLICT DO NOTHING`, insert.params);
  }

  /**
   * Inserts rows inside the caller's scope, as create() does each, in one statement (one multi-row INSERT on the
   * prepared-statement path; one by one where the table stays on Sequelize). Returns them in the order given.
   */
  async createMany(values: Partial<R>[]): Promise<R[]> {
    if (!values.length) return [];
    const rows = values.map((v) => this.newRow(v));
    const table = this.fastTable(true);
    const insert = table && insertStatement(table, rows, true);
    if (insert) {
      const created = await this.fastRows(table!, insert.sql, insert.params);
      const byId = new Map(created.map((row) => [row.id, row]));
      return rows.map((row) => byId.get(row.id as string)!);
    }
    const created: R[] = [];
    for (const row of rows)
      created.push((await this.model.create(row as never, { transaction: this.ctx.transaction })).get({ plain: true }) as R);
    return created;
  }

  /** A new row of the table inside the caller's scope: id, scope columns, mode and timestamps filled in and checked. */
  private newRow(values: Partial<R>): AnyWhere {
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
    if (mode) {
      // a caller works in one mode: a row of the other mode is never written through its scope
      if (row[mode] !== undefined && row[mode] !== this.ctx.livemode) {
        throw new InternalError(`scoped create of ${this.spec.resource} in the other mode than the caller's`);
      }
      row[mode] = this.ctx.livemode;
    }
    if (tenant && !row[tenant] && !this.spec.tenantNullable) throw new InternalError(`${this.spec.resource} created without a tenant`);
    const now = this.ctx.clock.now();
    row.createdAt = row.createdAt ?? now;
    row.updatedAt = now;
    const attributes = this.model.getAttributes();
    if ('deletedAt' in attributes) row.deletedAt = null;
    const table = this.fastTable(true);
    if (table) for (const [column, value] of table.defaults) if (row[column] === undefined) row[column] = value;
    return row;
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
    throw new PermissionError(
      `A caller limited to some merchants cannot change a tenant-wide ${this.spec.resource}.`,
      'ENTITY_SCOPE_EXCEEDED',
    );
  }

  async updateIf(row: R, expect: AnyWhere, changes: Partial<R>): Promise<R | null> {
    this.assertWritable(row, changes);
    // a row stays in its tenant and its mode
    for (const column of [this.spec.tenant, this.spec.mode]) {
      if (!column) continue;
      const next = (changes as AnyWhere)[column];
      if (next !== undefined && next !== (row as unknown as AnyWhere)[column]) {
        throw new InternalError(`scoped update of ${this.spec.resource} moving it to another ${column}`);
      }
    }
    const values = { ...changes, updatedAt: this.ctx.clock.now() } as AnyWhere;
    const table = this.fastTable(true);
    const columns = Object.keys(values).filter((column) => values[column] !== undefined);
    const compiled =
      table && columns.every((column) => bindable(table, column, values[column])) ? this.fastWhere(table, { ...expect, id: row.id }) : null;
    if (table && compiled) {
      const sql = `UPDATE "${table.name}" SET ${columns.map((c) => `"${c}" = ?`).join(', ')}${compiled.sql}`;
      const changed = await this.ctx.db.sql.run(
        sql,
        [...columns.map((column) => encode(table, column, values[column])), ...compiled.params],
        { transaction: this.ctx.transaction },
      );
      return changed === 0 ? null : ({ ...row, ...values } as R);
    }
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
    const table = this.fastTable();
    const compiled = table && this.fastWhere(table, where);
    if (table && compiled) return this.fastList(table, compiled, params);
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
        order: [
          ['createdAt', dir],
          ['id', dir],
        ],
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

  /** list() on prepared statements: the same three queries (page, bounded count, previous page's start) as SQL. */
  private async fastList(table: Table, base: { sql: string; params: unknown[] }, params: ListParams): Promise<Page<R>> {
    const desc = params.sortOrder !== 'asc';
    const dir = desc ? 'DESC' : 'ASC';
    let anchor: R | null = null;
    if (params.cursor !== undefined) {
      anchor = isUuid(params.cursor) ? await this.findOne({ id: params.cursor }) : null;
      if (!anchor) throw ValidationError.field('query.cursor', 'is not a cursor of this list', 'INVALID_CURSOR');
    }
    const and = base.sql ? `${base.sql} AND ` : ' WHERE ';
    /** the records at or beyond the anchor in the list's order (`after`: the other way) */
    const from = (after: boolean): { sql: string; params: unknown[] } => {
      const forward = desc !== after;
      const [beyond, atOrBeyond] = forward ? ['<', '<='] : ['>', '>='];
      const at = encode(table, 'createdAt', anchor!.createdAt);
      // the bound alone as well: Postgres cannot start the index range from the OR, and would walk the list from its head
      return {
        sql: `${and}"createdAt" ${atOrBeyond} ? AND ("createdAt" ${beyond} ? OR ("createdAt" = ? AND "id" ${after ? beyond : atOrBeyond} ?))`,
        params: [...base.params, at, at, at, anchor!.id],
      };
    };
    const page = anchor ? from(false) : { sql: base.sql, params: base.params };
    const [rows, totalCount, prevCursor] = await Promise.all([
      this.fastRows(
        table,
        `SELECT ${table.selectList} FROM "${table.name}"${page.sql} ORDER BY "createdAt" ${dir}, "id" ${dir} LIMIT ${params.limit + 1}`,
        page.params,
      ),
      this.fastCount(table, base),
      anchor ? this.fastPreviousStart(table, from(true), desc, params.limit) : Promise.resolve(null),
    ]);
    const hasMore = rows.length > params.limit;
    return {
      data: rows.slice(0, params.limit),
      pagination: { nextCursor: hasMore ? rows[params.limit].id : null, prevCursor, hasMore, totalCount },
    };
  }

  /** totalCount() on prepared statements */
  private async fastCount(table: Table, base: { sql: string; params: unknown[] }): Promise<number> {
    const options = { transaction: this.ctx.transaction };
    const rows = `SELECT "id" FROM "${table.name}"${base.sql} LIMIT ${COUNT_EXACT_UP_TO + 1}`;
    const key = `${rows} ${JSON.stringify(base.params)}`;
    // a list this process found beyond COUNT_EXACT_UP_TO: its count as kept, not a bounded walk of a thousand rows again
    const known = this.ctx.db.largeCounts.peek<number>(key);
    if (known !== undefined) return known;
    const [bounded] = await this.ctx.db.sql.all<{ n: number | string }>(
      `SELECT count(*) AS n FROM (${rows}) AS bounded`,
      base.params,
      options,
    );
    const n = Number(bounded.n);
    if (n <= COUNT_EXACT_UP_TO) return n;
    return this.ctx.db.largeCounts.read(key, async () => {
      const [all] = await this.ctx.db.sql.all<{ n: number | string }>(
        `SELECT count(*) AS n FROM "${table.name}"${base.sql}`,
        base.params,
        options,
      );
      return Number(all.n);
    });
  }

  private async fastPreviousStart(
    table: Table,
    after: { sql: string; params: unknown[] },
    desc: boolean,
    limit: number,
  ): Promise<string | null> {
    const reverse = desc ? 'ASC' : 'DESC';
    const rows = await this.ctx.db.sql.all<{ id: string }>(
      `SELECT "id" FROM "${table.name}"${after.sql} ORDER BY "createdAt" ${reverse}, "id" ${reverse} LIMIT ${limit}`,
      after.params,
      { transaction: this.ctx.transaction },
    );
    return rows.length ? rows[rows.length - 1].id : null;
  }

  /**
   * The number of records of the list. Up to COUNT_EXACT_UP_TO it is exact and current, from a count that stops
   * there (a bounded walk of the list's index, cheap whatever the table's size). Beyond, it is an exact count that
   * this process refreshes at most every LARGE_COUNT_TTL_MS, so it may lag recent writes by that long (also a list
   * that shrank back below COUNT_EXACT_UP_TO meanwhile: while its large count is kept, the bounded walk is not made).
   */
  private async totalCount(where: WhereOptions): Promise<number> {
    const sequelize = this.model.sequelize!;
    const generator = sequelize.getQueryInterface().queryGenerator as {
      selectQuery(table: string, options: object, model: unknown): string;
    };
    const rows = generator
      .selectQuery(this.model.getTableName() as string, { attributes: ['id'], where, limit: COUNT_EXACT_UP_TO + 1 }, this.model)
      .replace(/;\s*$/, '');
    const known = this.ctx.db.largeCounts.peek<number>(rows);
    if (known !== undefined) return known;
    const [bounded] = await sequelize.query<{ n: number | string }>(`SELECT count(*) AS n FROM (${rows}) AS bounded`, {
      type: QueryTypes.SELECT,
      transaction: this.ctx.transaction,
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
      order: [
        ['createdAt', reverse],
        ['id', reverse],
      ],
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
