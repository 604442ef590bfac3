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
  /** the process holding an in-progress key (idempotency_owners): the key is held while that process lives; null: free */
  ownerProcess: string | null;
  /** when an operation with transactions of its own committed its effect (in that transaction): a retry rebuilds its answer */
  appliedAt: Date | null;
  /** null since runIdempotent keeps answers, not HTTP responses (the operation's declaration gives the status) */
  responseStatus: number | null;
  /** the kept answer: the operation's result sealed whole, or what an operation's own replay rule keeps */
  responseBody: unknown;
  /** keys claimed before idempotency_owners (ownerProcess null): held until then */
  lockedUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A process that claims Idempotency-Keys, and what tells whether it still lives. */
export interface IdempotencyOwnerRow {
  id: string;
  host: string;
  /** the kernel's boot id and the process's pid namespace: another process with the same can look its pid up */
  machine: string | null;
  pid: number;
  /** the start time of the pid (a pid used again by another process has another) */
  processStart: string | null;
  /** the lease the process renews while it runs */
  aliveUntil: Date;
  createdAt: Date;
}

export interface IdempotencyModels {
  Idempotency: RowModel<IdempotencyRow>;
  IdempotencyOwner: RowModel<IdempotencyOwnerRow>;
}

export function defineIdempotencyModels(sequelize: Sequelize): IdempotencyModels {
  return {
    Idempotency: define<IdempotencyRow>(
      sequelize,
      'Idempotency',
      'idempotency_records',
      {
        id: pk,
        scope: STRING,
        key: STRING,
        method: STRING,
        path: TEXT,
        fingerprint: STRING,
        state: STRING,
        owner: UUID,
        ownerProcess: STRING,
        appliedAt: DATE,
        responseStatus: INTEGER,
        responseBody: JSONT,
        lockedUntil: DATE,
        createdAt: DATE,
        updatedAt: DATE,
      },
      { resource: 'idempotency record', tenant: null, merchant: null, mode: null, softDelete: false },
    ),
    IdempotencyOwner: define<IdempotencyOwnerRow>(
      sequelize,
      'IdempotencyOwner',
      'idempotency_owners',
      {
        id: { type: STRING, primaryKey: true },
        host: STRING,
        machine: STRING,
        pid: INTEGER,
        processStart: STRING,
        aliveUntil: DATE,
        createdAt: DATE,
      },
      { resource: 'idempotency owner', tenant: null, merchant: null, mode: null, softDelete: false },
    ),
  };
}
