import { DataTypes, type QueryInterface } from 'sequelize';
import { dropColumns } from './columns';

// A capture or a void is recorded on the payment before its provider is called (pendingOperation: what, how much,
// for whom), with a lease (pendingOperationUntil): the recorded operation is the claim that keeps a second capture or
// cancel of the payment away (409), and one whose process died between the provider's call and the answer being
// applied is finished by the recovery job once the lease has run out. The payment's public status does not change
// until the answer is applied. No provider call runs inside a database transaction (src/services/provider-call.ts).

export async function up(qi: QueryInterface): Promise<void> {
  await qi.addColumn('payments', 'pendingOperation', { type: DataTypes.JSON, allowNull: true });
  await qi.addColumn('payments', 'pendingOperationUntil', { type: DataTypes.DATE, allowNull: true });
  await qi.addIndex('payments', ['pendingOperationUntil'], { name: 'payments_pending_operation_until' });
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.removeIndex('payments', 'payments_pending_operation_until');
  await dropColumns(qi, 'payments', ['pendingOperation', 'pendingOperationUntil']);
}
