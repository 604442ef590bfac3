import type { Sequelize } from 'sequelize';
import { define, pk, UUID, STRING, TEXT, JSONT, DATE, INTEGER, type RowModel } from '../model-kit';

// Stored answers of Idempotency-Key requests (written only by src/services/idempotency.ts runIdempotent).

export interface IdempotencyRow {
  id: string;
  scope: string;
  key: string;
  /** the operation asked for (the API's operationId, whichever door the request came through) */
  method: string;
  /** what it was asked of: the operation's path parameters, as canonical JSON */
  path: string;
  /** digest of the operation, its target and a keyed digest of its input */
  fingerprint: string;
  state: 'in_progress' | 'completed';
  /** fencing token of the request holding the key: only it may complete or release it */
  owner: string;
  /** null since runIdempotent keeps answers, not HTTP responses (the operation's declaration gives the status) */
  responseStatus: number | null;
  /** the kept answer: the operation's result sealed whole, or what an operation's own replay rule keeps */
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
