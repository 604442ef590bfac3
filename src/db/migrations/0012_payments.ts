import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, text, json, int, bool, date, stamps } from './columns';

// Payments, payment attempts and refunds.

const minor = { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 };

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('payments', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(false),
    livemode: bool(false),
    checkoutSessionId: uuid(),
    status: str(false),
    currency: { type: DataTypes.STRING(3), allowNull: false },
    amountMinor: minor,
    authorizedMinor: minor,
    capturedMinor: minor,
    refundedMinor: minor,
    refundPendingMinor: minor,
    feeMinor: minor,
    netMinor: minor,
    captureMethod: str(false),
    merchantReference: str(),
    paymentMethodType: str(false),
    card: json(),
    cardBrand: str(),
    terminalId: uuid(),
    providerIntegrationId: uuid(),
    channelId: uuid(),
    partnerId: uuid(),
    providerReference: str(),
    providerStatus: str(),
    action: json(),
    errorCode: str(),
    errorMessage: text(),
    approved: { type: DataTypes.BOOLEAN, allowNull: true },
    threeDSResult: json(),
    metadata: json(false),
    routingDecision: json(),
    feeBreakdown: json(),
    fundsAvailableImmediately: bool(false),
    currentAttemptId: uuid(),
    returnUrl: text(),
    cardVault: text(),
    ...stamps,
  });
  await qi.addIndex('payments', ['tenantId', 'livemode', 'createdAt', 'id']);
  await qi.addIndex('payments', ['merchantId', 'livemode', 'createdAt', 'id']);
  await qi.addIndex('payments', ['checkoutSessionId']);
  await qi.addIndex('payments', ['tenantId', 'status']);
  // limit usage: payments of a terminal or a channel in a period
  await qi.addIndex('payments', ['terminalId', 'createdAt']);
  await qi.addIndex('payments', ['channelId', 'createdAt']);

  await qi.createTable('payment_attempts', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(false),
    livemode: bool(false),
    paymentId: uuid(false),
    sequence: int(false),
    terminalId: uuid(false),
    providerIntegrationId: uuid(false),
    status: str(false),
    providerReference: str(),
    declineCode: str(),
    message: text(),
    createdAt: date(false),
    updatedAt: date(false),
  });
  await qi.addIndex('payment_attempts', ['paymentId', 'sequence'], { unique: true, name: 'payment_attempts_sequence' });

  await qi.createTable('refunds', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(false),
    livemode: bool(false),
    paymentId: uuid(false),
    status: str(false),
    currency: { type: DataTypes.STRING(3), allowNull: false },
    amountMinor: minor,
    reason: str(),
    merchantReference: str(),
    statusReason: text(),
    items: json(false),
    metadata: json(false),
    providerReference: str(),
    feeBreakdown: json(),
    ...stamps,
  });
  await qi.addIndex('refunds', ['paymentId', 'createdAt', 'id']);
  await qi.addIndex('refunds', ['tenantId', 'livemode', 'createdAt', 'id']);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.dropTable('refunds');
  await qi.dropTable('payment_attempts');
  await qi.dropTable('payments');
}
