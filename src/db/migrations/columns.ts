import { DataTypes, type QueryInterface } from 'sequelize';

// Column shapes shared by the migrations. A migration's meaning must never change once it has run somewhere:
// change these only by adding new helpers, never by editing what an existing one produces.

export const id = { type: DataTypes.UUID, primaryKey: true, allowNull: false };
export const uuid = (allowNull = true) => ({ type: DataTypes.UUID, allowNull });
export const str = (allowNull = true) => ({ type: DataTypes.STRING(255), allowNull });
export const text = (allowNull = true) => ({ type: DataTypes.TEXT, allowNull });
export const json = (allowNull = true) => ({ type: DataTypes.JSON, allowNull });
export const int = (allowNull = true) => ({ type: DataTypes.INTEGER, allowNull });
export const bool = (defaultValue: boolean) => ({ type: DataTypes.BOOLEAN, allowNull: false, defaultValue });
export const date = (allowNull = true) => ({ type: DataTypes.DATE, allowNull });
export const stamps = { createdAt: date(false), updatedAt: date(false), deletedAt: date() };

/**
 * Drops columns with ALTER TABLE … DROP COLUMN on both dialects (SQLite 3.35+). Never Sequelize's removeColumn: on
 * SQLite it rebuilds the table and loses its other indexes (a revert would leave the table without them).
 */
export async function dropColumns(qi: QueryInterface, table: string, columns: string[]): Promise<void> {
  for (const column of columns) await qi.sequelize.query(`ALTER TABLE "${table}" DROP COLUMN "${column}"`);
}
