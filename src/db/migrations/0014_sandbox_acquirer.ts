import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, text, json, int, bool, date } from './columns';

// The sandbox acquirer's operations (its pending asynchronous answers). Never a card number or cvc.

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('sandbox_acquirer_operations', {
    id,
    kind: str(false),
    reference: str(false),
    providerReference: str(false),
    paymentProviderReference: str(),
    providerIntegrationId: uuid(false),
    terminalId: uuid(),
    tenantId: uuid(false),
    livemode: bool(false),
    scenario: str(false),
    captureRequested: bool(false),
    currency: { type: DataTypes.STRING(3), allowNull: false },
    amountMinor: { type: DataTypes.BIGINT, allowNull: false },
    outcome: json(),
    returnUrl: text(),
    challengeTokenHash: str(),
    status: str(false),
    dueAt: date(),
    lockedBy: str(),
    lockedUntil: date(),
    doneAt: date(),
    attempts: { ...int(false), defaultValue: 0 },
    lastError: text(),
    createdAt: date(false),
    updatedAt: date(false),
  });
  // one operation per request reference: a repeated call answers what the first one did
  await qi.addIndex('sandbox_acquirer_operations', ['kind', 'reference'], { unique: true, name: 'sandbox_ops_kind_reference' });
  await qi.addIndex('sandbox_acquirer_operations', ['providerReference'], { unique: true, name: 'sandbox_ops_provider_reference' });
  await qi.addIndex('sandbox_acquirer_operations', ['challengeTokenHash'], { unique: true, name: 'sandbox_ops_challenge_token' });
  // the worker's claim: undelivered operations by due time
  await qi.addIndex('sandbox_acquirer_operations', ['doneAt', 'dueAt'], { name: 'sandbox_ops_due' });
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.dropTable('sandbox_acquirer_operations');
}
