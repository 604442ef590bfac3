import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, text, json, int, bool, date, stamps, dropColumns } from './columns';

// Withdrawals: merchants' saved withdrawal methods (cooling, active, suspended) and withdrawals with their
// lifecycle; per-tenant withdrawal settings (cooling period, maker-checker).

const bigint = () => ({ type: DataTypes.BIGINT, allowNull: false });
const flag = () => ({ type: DataTypes.BOOLEAN, allowNull: false });

export async function up(qi: QueryInterface): Promise<void> {
  // null: the platform default (PAYPLANE_WITHDRAWAL_COOLING_HOURS)
  await qi.addColumn('tenants', 'withdrawalCoolingPeriodHours', int());
  await qi.addColumn('tenants', 'withdrawalMakerChecker', bool(false));

  await qi.createTable('merchant_withdrawal_methods', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(false),
    livemode: flag(),
    methodType: str(false),
    label: str(false),
    // the full details, sealed (AES-256-GCM); reads show detailsMasked only
    detailsSealed: text(false),
    detailsMasked: json(false),
    status: str(false),
    activatesAt: date(),
    suspendedAt: date(),
    createdBy: str(),
    ...stamps,
  });
  await qi.addIndex('merchant_withdrawal_methods', ['tenantId', 'livemode', 'createdAt', 'id'], { name: 'mwm_tenant_mode_created' });
  await qi.addIndex('merchant_withdrawal_methods', ['tenantId', 'livemode', 'merchantId', 'status'], { name: 'mwm_merchant_status' });
  // the cooling job: due methods
  await qi.addIndex('merchant_withdrawal_methods', ['status', 'activatesAt'], { name: 'mwm_cooling_due' });

  await qi.createTable('withdrawals', {
    id,
    tenantId: uuid(false),
    // the entity whose balance pays (entityId of the record; merchants only for now)
    merchantId: uuid(false),
    livemode: flag(),
    entityType: str(false),
    fundingAccountId: uuid(false),
    withdrawalChannelId: uuid(false),
    withdrawalMethodId: uuid(false),
    currency: str(false),
    amountMinor: bigint(),
    feeMinor: bigint(),
    feeBreakdown: json(),
    destinationType: str(false),
    // the method's details when the withdrawal was requested, sealed; reads show destinationMasked only
    destinationSealed: text(false),
    destinationMasked: json(false),
    status: str(false),
    failureReason: text(),
    rejectionReason: text(),
    executionComment: text(),
    providerReference: str(),
    idempotencyKey: str(false),
    approvedAt: date(),
    rejectedAt: date(),
    canceledAt: date(),
    executedAt: date(),
    completedAt: date(),
    failedAt: date(),
    createdBy: str(),
    approvedBy: str(),
    rejectedBy: str(),
    canceledBy: str(),
    executedBy: str(),
    completedBy: str(),
    failedBy: str(),
    ...stamps,
  });
  await qi.addIndex('withdrawals', ['tenantId', 'livemode', 'createdAt', 'id'], { name: 'withdrawals_tenant_mode_created' });
  await qi.addIndex('withdrawals', ['tenantId', 'livemode', 'status', 'createdAt'], { name: 'withdrawals_status' });
  await qi.addIndex('withdrawals', ['tenantId', 'livemode', 'merchantId', 'createdAt'], { name: 'withdrawals_merchant' });
  await qi.addIndex('withdrawals', ['tenantId', 'livemode', 'currency', 'createdAt'], { name: 'withdrawals_currency' });
  // channel limits' usage
  await qi.addIndex('withdrawals', ['withdrawalChannelId', 'createdAt'], { name: 'withdrawals_channel' });
  // one withdrawal per Idempotency-Key and merchant, beyond the idempotency records' lifetime
  await qi.addIndex('withdrawals', ['tenantId', 'livemode', 'merchantId', 'idempotencyKey'], {
    unique: true,
    name: 'withdrawals_idempotency_key',
  });
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.dropTable('withdrawals');
  await qi.dropTable('merchant_withdrawal_methods');
  await dropColumns(qi, 'tenants', ['withdrawalMakerChecker', 'withdrawalCoolingPeriodHours']);
}
