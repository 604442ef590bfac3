import type { Sequelize } from 'sequelize';
import { define, pk, UUID, STRING, BOOLEAN, INTEGER, DATE, JSONT, type RowModel } from '../model-kit';

// Settlement statements: one per merchant, currency, mode and UTC day. The row is opened by the
// day's first ledger movement of that merchant and currency (src/services/ledger/post.ts, post: an INSERT … ON CONFLICT DO
// NOTHING written with the posting's other deferred rows) and finalized once after the day by the `settlements` job,
// which stores what it computed from the ledger's entries. Its lines are never stored: they are the entries.

export type SettlementStatus = 'open' | 'finalized';

/** { pending, available, reserved, payable } in minor units of the statement's currency */
export interface StoredBalances {
  pending: number;
  available: number;
  reserved: number;
  payable: number;
}

/** the totals in minor units of the statement's currency (src/services/settlements/statements.ts) */
export type StoredTotals = Record<string, number>;

export interface SettlementStatementRow {
  id: string;
  tenantId: string;
  merchantId: string;
  livemode: boolean;
  currency: string;
  /** 00:00 UTC of the day */
  periodStart: Date;
  /** 00:00 UTC of the next day (exclusive) */
  periodEnd: Date;
  status: SettlementStatus;
  /** set when finalized (null while open: computed from the entries when read) */
  openingBalance: StoredBalances | null;
  closingBalance: StoredBalances | null;
  totals: StoredTotals | null;
  lineCount: number | null;
  finalizedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface SettlementModels {
  SettlementStatement: RowModel<SettlementStatementRow>;
}

export function defineSettlementModels(sequelize: Sequelize): SettlementModels {
  return {
    SettlementStatement: define<SettlementStatementRow>(
      sequelize,
      'SettlementStatement',
      'settlement_statements',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        livemode: BOOLEAN,
        currency: STRING,
        periodStart: DATE,
        periodEnd: DATE,
        status: STRING,
        openingBalance: JSONT,
        closingBalance: JSONT,
        totals: JSONT,
        lineCount: INTEGER,
        finalizedAt: DATE,
        createdAt: DATE,
        updatedAt: DATE,
      },
      {
        resource: 'settlement statement',
        tenant: 'tenantId',
        merchant: 'merchantId',
        mode: 'livemode',
        softDelete: false,
        writtenBySystem: true,
      },
    ),
  };
}
