import { DataTypes, Model, type ModelAttributes, type ModelStatic, type Sequelize } from 'sequelize';

/** How a table is scoped by the caller context: which columns hold tenant, merchant and mode. */
export interface ScopeSpec {
  /** resource name used in 404 messages */
  resource: string;
  tenant: string | null;
  merchant: string | null;
  mode: string | null;
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

export const { UUID, STRING, TEXT, JSON: JSONT, BOOLEAN, DATE, INTEGER } = DataTypes;
export const pk = { type: UUID, primaryKey: true };
export const stamps = { createdAt: DATE, updatedAt: DATE, deletedAt: DATE };


/** Defines a model with its scope; timestamps are written from the injected clock, never by Sequelize. */
export function define<R extends object>(
  sequelize: Sequelize,
  name: string,
  table: string,
  attributes: ModelAttributes,
  scope: Omit<ScopeSpec, 'softDelete'> & { softDelete?: boolean },
): RowModel<R> {
  // Timestamps are written from the injected clock by the scoped data access, never by Sequelize.
  const model = sequelize.define(name, attributes, { tableName: table, timestamps: false }) as unknown as RowModel<R>;
  model.scopeSpec = { softDelete: true, ...scope };
  return model;
}
