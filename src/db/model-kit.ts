import { DataTypes, Model, type ModelAttributeColumnOptions, type ModelAttributes, type ModelStatic, type Sequelize } from 'sequelize';
import { InternalError } from '../domain/errors';

/** How a table is scoped by the caller context: which columns hold tenant, merchant and mode. */
export interface ScopeSpec {
  /** resource name used in 404 messages */
  resource: string;
  tenant: string | null;
  merchant: string | null;
  /**
   * The column of the caller's mode: derived by define() from the attributes, never declared. A table with a
   * `livemode` column is scoped by it (a caller works in exactly one mode: a row of the other mode is a 404, a list
   * shows rows of the caller's mode only), unless it declares `modeExempt` with the reason.
   */
  mode: string | null;
  /**
   * Why a table with a `livemode` column is not scoped by it (reviewed exceptions only, listed in
   * test/security/mode-matrix.test.ts): its livemode is then a plain attribute of the record, not the mode it lives in.
   */
  modeExempt?: string;
  softDelete: boolean;
  /** rows that may belong to no tenant (platform users, platform-level audit entries) */
  tenantNullable?: boolean;
  /** rows the platform writes about a caller's action (audit entries): not refused by an entity scope */
  writtenBySystem?: boolean;
  /** a table owned by no merchant but read through merchants under an entity scope (companies: merchants.companyId) */
  throughMerchants?: { table: string; column: string };
  /**
   * A nullable merchant column of a tenant-owned table (antifraud plans): a row without a merchant applies to the
   * whole tenant and every caller of the tenant sees it; a row of one merchant is seen only by callers whose merchant
   * (or entity scope) includes it
   */
  merchantOrTenantWide?: string;
}

export interface Timestamps {
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export type RowModel<R extends object> = ModelStatic<Model<R, Partial<R>>> & { scopeSpec: ScopeSpec };

export const { UUID, STRING, TEXT, JSON: JSONT, BOOLEAN, DATE, INTEGER, BIGINT } = DataTypes;
export const pk = { type: UUID, primaryKey: true };
export const stamps = { createdAt: DATE, updatedAt: DATE, deletedAt: DATE };

// ------------------------------------------------------------------------------------ BIGINT columns as numbers

/**
 * A BIGINT value (amounts in minor units, limit thresholds) as a JS number, the one place it is converted: Postgres
 * hands int8 and SUM(...) back as strings, SQLite as numbers. Refused (an error, never a rounded amount) when it is
 * not an integer within Number.MAX_SAFE_INTEGER.
 */
export function bigintNumber(value: number | string | bigint): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && !/^-?\d+$/.test(value.trim()) ? NaN : Number(value);
  if (!Number.isSafeInteger(n)) throw new InternalError(`a BIGINT value outside the safe integer range: ${String(value)}`);
  return n;
}

/** The result of SUM over a BIGINT column (a raw or grouped aggregate bypasses the models' getters): 0 over no rows. */
export function sumNumber(total: number | string | bigint | null | undefined): number {
  return total === null || total === undefined ? 0 : bigintNumber(total);
}

function isBigint(attribute: ModelAttributes[string]): boolean {
  const type =
    typeof attribute === 'object' && attribute !== null && 'type' in attribute
      ? (attribute as ModelAttributeColumnOptions).type
      : attribute;
  return (type as { key?: string } | undefined)?.key === DataTypes.BIGINT.key;
}

/**
 * The attributes with a getter on every BIGINT column: a row read through a model (an instance, `get({ plain: true })`,
 * toJSON) holds numbers on both databases. `raw: true` reads bypass it: they go through bigintNumber/sumNumber.
 */
function withBigintNumbers(attributes: ModelAttributes): ModelAttributes {
  const out: ModelAttributes = {};
  for (const [name, attribute] of Object.entries(attributes)) {
    if (!isBigint(attribute)) {
      out[name] = attribute;
      continue;
    }
    const column = typeof attribute === 'object' && attribute !== null && 'type' in attribute ? attribute : { type: attribute };
    out[name] = {
      ...column,
      get(this: Model) {
        const value = this.getDataValue(name) as number | string | bigint | null | undefined;
        return value === null || value === undefined ? value : bigintNumber(value);
      },
    } as ModelAttributeColumnOptions;
  }
  return out;
}

/** The column that holds a row's mode (true: live, false: sandbox). */
export const MODE_COLUMN = 'livemode';

/**
 * The scope declared by a model: as ScopeSpec, but the mode is not declared: define() derives it from the
 * attributes (`mode` may still be written, and must then agree with them).
 */
export type DeclaredScope = Omit<ScopeSpec, 'softDelete' | 'mode'> & { softDelete?: boolean; mode?: string | null };

/** The mode column of a table: `livemode` when it has one, unless the table declares a reasoned exception. */
export function modeColumnOf(name: string, attributes: ModelAttributes, scope: DeclaredScope): string | null {
  const hasMode = MODE_COLUMN in attributes;
  if (scope.modeExempt !== undefined) {
    if (!hasMode) throw new Error(`model ${name}: modeExempt is declared but the table has no ${MODE_COLUMN} column`);
    if (scope.modeExempt.trim().length < 10) throw new Error(`model ${name}: modeExempt must say why the table is not scoped by mode`);
    if (scope.mode) throw new Error(`model ${name}: modeExempt and mode '${scope.mode}' contradict each other`);
    return null;
  }
  if (scope.mode !== undefined && scope.mode !== null && scope.mode !== MODE_COLUMN) {
    throw new Error(`model ${name}: the mode column is '${MODE_COLUMN}', not '${scope.mode}'`);
  }
  if (scope.mode && !hasMode) throw new Error(`model ${name}: scoped by mode without a ${MODE_COLUMN} column`);
  if (scope.mode === null && hasMode) {
    throw new Error(
      `model ${name}: the table has a ${MODE_COLUMN} column, so it is scoped by the caller's mode; ` +
        'leave out `mode: null`, or declare modeExempt with the reason (a reviewed exception)',
    );
  }
  return hasMode ? MODE_COLUMN : null;
}

/**
 * Defines a model with its scope; timestamps are written from the injected clock, never by Sequelize. The mode
 * column comes from the attributes (modeColumnOf): a table with `livemode` cannot be left out of the mode scope by
 * omission. BIGINT columns read as numbers on both databases (withBigintNumbers).
 */
export function define<R extends object>(
  sequelize: Sequelize,
  name: string,
  table: string,
  attributes: ModelAttributes,
  scope: DeclaredScope,
): RowModel<R> {
  const mode = modeColumnOf(name, attributes, scope);
  // Timestamps are written from the injected clock by the scoped data access, never by Sequelize.
  const model = sequelize.define(name, withBigintNumbers(attributes), { tableName: table, timestamps: false }) as unknown as RowModel<R>;
  model.scopeSpec = { softDelete: true, ...scope, mode };
  return model;
}
