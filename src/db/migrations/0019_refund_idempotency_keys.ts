import { DataTypes, type QueryInterface } from 'sequelize';
import { dropColumns } from './columns';

// A refund keeps the Idempotency-Key it was asked for with, as a withdrawal does. POST /v1/payments/{id}/refunds (and
// `payplane payments refund`) commits the refund before its answer is stored with the key: a retry that takes over
// the key of a request that died (or failed) in between finds that refund by the key instead of making a second one.
// The column holds a keyed digest of the caller's idempotency scope and the key (keys are per caller, as in
// idempotency_records), idempotencyFingerprint one of the request, so that another request under the key is refused.

export async function up(qi: QueryInterface): Promise<void> {
  await qi.addColumn('refunds', 'idempotencyKey', { type: DataTypes.STRING(128), allowNull: true });
  await qi.addColumn('refunds', 'idempotencyFingerprint', { type: DataTypes.STRING(128), allowNull: true });
  await qi.addIndex('refunds', ['paymentId', 'idempotencyKey'], { unique: true, name: 'refunds_payment_idempotency_key' });
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.removeIndex('refunds', 'refunds_payment_idempotency_key');
  await dropColumns(qi, 'refunds', ['idempotencyKey', 'idempotencyFingerprint']);
}
