import type { Sequelize } from 'sequelize';
import { define, pk, UUID, STRING, TEXT, JSONT, DATE, INTEGER, type RowModel } from '../model-kit';

// Stored answers of Idempotency-Key requests.

export interface IdempotencyRow {
  id: string;
  scope: string;
  key: string;
  method: string;
  path: string;
  fingerprint: string;
  state: 'in_progress' | 'completed';
  /** fencing token of the request holding the key: only it may complete or release it */
  owner: string;
  responseStatus: number | null;
  responseBody: unknown;
  lockedUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface IdempotencyModels {
  Idempotency: RowModel<IdempotencyRow>;
}

export function defineIdempotencyModels(sequelize: Sequelize): IdempotencyModels {
  return {
    Idempotency: define<IdempotencyRow>(
      sequelize,
      'Idempotency',
      'idempotency_records',
      {
        id: pk, scope: STRING, key: STRING, method: STRING, path: TEXT, fingerprint: STRING, state: STRING, owner: UUID,
        responseStatus: INTEGER, responseBody: JSONT, lockedUntil: DATE, createdAt: DATE, updatedAt: DATE,
      },
      { resource: 'idempotency record', tenant: null, merchant: null, mode: null, softDelete: false },
    ),
  };
}
