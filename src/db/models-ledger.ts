import type { Sequelize } from 'sequelize';

// The double-entry ledger: entries and scheduled releases (owned by the ledger area; skeleton, filled by its builder).

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface LedgerModels {}

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function defineLedgerModels(sequelize: Sequelize): LedgerModels {
  return {};
}
