import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, text, json, bool, date, stamps } from './columns';

// Checkout sessions.

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('checkout_sessions', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(false),
    livemode: bool(false),
    status: str(false),
    paymentStatus: str(),
    paymentId: uuid(),
    currency: { type: DataTypes.STRING(3), allowNull: false },
    amountMinor: { type: DataTypes.BIGINT, allowNull: false },
    captureMethod: str(false),
    merchantName: text(false),
    tenantName: text(false),
    merchantReference: str(),
    locale: str(),
    providerCheckoutId: str(),
    termsUrl: text(),
    privacyUrl: text(),
    url: text(false),
    successUrl: text(),
    cancelUrl: text(),
    channelId: uuid(),
    lineItems: json(false),
    totals: json(false),
    fulfillmentOptions: json(false),
    selectedFulfillment: json(),
    customerInfo: json(),
    agenticContext: json(),
    metadata: json(false),
    clientSecretHash: { type: DataTypes.STRING(64), allowNull: false },
    expiresAt: date(false),
    completedAt: date(),
    expiredAt: date(),
    ...stamps,
  });
  await qi.addIndex('checkout_sessions', ['tenantId', 'createdAt', 'id']);
  await qi.addIndex('checkout_sessions', ['merchantId', 'createdAt', 'id']);
  // the expiry job's scan: open sessions by deadline
  await qi.addIndex('checkout_sessions', ['status', 'expiresAt']);
  await qi.addIndex('checkout_sessions', ['paymentId']);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.dropTable('checkout_sessions');
}
