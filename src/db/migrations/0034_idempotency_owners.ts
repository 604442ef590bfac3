import { DataTypes, type QueryInterface } from 'sequelize';
import { dropColumns } from './columns';

// Idempotency-Keys held by a process, not by a clock. A key claimed by a process that then died was
// held for a minute (its lock's deadline), and a retry that took it over ran the operation again: a checkout session
// it had paid answered 409 instead of its answer.
//
// idempotency_owners: one row per process that claims keys (serve, a CLI command), with what tells whether it still
// lives: a lease it renews while it runs (aliveUntil), and where it runs (the kernel's boot id and pid namespace, its
// pid and the pid's start time), so that a process on the same machine knows at once that it is gone.
// idempotency_records.ownerProcess: the process holding an in-progress key (its lock is that process's life);
// appliedAt: when an operation that opens its own transactions committed its effect, in that same transaction, so
// that a retry after a crash rebuilds the answer from what was committed instead of running the operation again.

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('idempotency_owners', {
    id: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
    host: { type: DataTypes.STRING(255), allowNull: false },
    machine: { type: DataTypes.STRING(255), allowNull: true },
    pid: { type: DataTypes.INTEGER, allowNull: false },
    processStart: { type: DataTypes.STRING(64), allowNull: true },
    aliveUntil: { type: DataTypes.DATE, allowNull: false },
    createdAt: { type: DataTypes.DATE, allowNull: false },
  });
  await qi.addIndex('idempotency_owners', ['aliveUntil']);
  await qi.addColumn('idempotency_records', 'ownerProcess', { type: DataTypes.STRING(64), allowNull: true });
  await qi.addColumn('idempotency_records', 'appliedAt', { type: DataTypes.DATE, allowNull: true });
}

export async function down(qi: QueryInterface): Promise<void> {
  await dropColumns(qi, 'idempotency_records', ['ownerProcess', 'appliedAt']);
  await qi.dropTable('idempotency_owners');
}
