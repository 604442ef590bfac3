import { DataTypes, type QueryInterface } from 'sequelize';
import { date, dropColumns, str, text } from './columns';

// Answers never lost (issue 34):
// - the acquirer's own decline or error code (ConnectorResult.rawCode) kept beside ours: providerDeclineCode on
//   attempts, payments (the current attempt's) and refunds (a refused refund's); shown to tenants, never to merchants;
// - a late approval (an authorization approved after its payment was canceled or given up) is voided durably: the need
//   is recorded on its attempt (lateVoidStatus none → pending → done | failed), with the tries made, when the next is
//   due and the last error; the recovery job retries it with backoff (partial index: only pending ones are indexed);
// - payments found by their authorization's reference (a notification of a capture or cancel);
// - a capture or cancel abandoned after its tries (or refused in an acquirer's notification): why, on the payment.

export async function up(qi: QueryInterface): Promise<void> {
  await qi.addColumn('payment_attempts', 'providerDeclineCode', str());
  await qi.addColumn('payment_attempts', 'lateVoidStatus', { type: DataTypes.STRING(32), allowNull: false, defaultValue: 'none' });
  await qi.addColumn('payment_attempts', 'lateVoidTries', { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });
  await qi.addColumn('payment_attempts', 'lateVoidNextAt', date());
  await qi.addColumn('payment_attempts', 'lateVoidError', text());
  await qi.addIndex('payment_attempts', ['lateVoidNextAt'], { name: 'payment_attempts_late_void', where: { lateVoidStatus: 'pending' } });
  await qi.addColumn('payments', 'providerDeclineCode', str());
  await qi.addColumn('payments', 'lastOperationError', text());
  // an acquirer's notification of a capture or cancel names the payment by its authorization's reference
  await qi.addIndex('payments', ['providerIntegrationId', 'providerReference'], { name: 'payments_provider_reference' });
  await qi.addColumn('refunds', 'providerDeclineCode', str());
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.removeIndex('payment_attempts', 'payment_attempts_late_void');
  await qi.removeIndex('payments', 'payments_provider_reference');
  await dropColumns(qi, 'payment_attempts', ['providerDeclineCode', 'lateVoidStatus', 'lateVoidTries', 'lateVoidNextAt', 'lateVoidError']);
  await dropColumns(qi, 'payments', ['providerDeclineCode', 'lastOperationError']);
  await dropColumns(qi, 'refunds', ['providerDeclineCode']);
}
