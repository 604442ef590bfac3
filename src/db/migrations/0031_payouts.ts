import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, text, json, date, stamps } from './columns';

// Payouts. payout_schedules holds a merchant's schedule per mode (manual when it has none);
// payouts the payouts its scheduled runs make. The unique key (merchantId, livemode, currency, periodKey) makes a
// run happen once per schedule period and currency across every process: the payout is inserted in the
// transaction that moves its funds, and a second run of the same period finds it (or conflicts and stops).

const bigint = () => ({ type: DataTypes.BIGINT, allowNull: false });
const flag = () => ({ type: DataTypes.BOOLEAN, allowNull: false });

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('payout_schedules', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(false),
    livemode: flag(),
    interval: str(false),
    weeklyAnchor: str(),
    withdrawalMethodId: uuid(),
    minimumAmounts: json(false),
    effectiveFrom: date(false),
    updatedBy: str(),
    ...stamps,
  });
  await qi.addIndex('payout_schedules', ['merchantId', 'livemode'], { unique: true, name: 'payout_schedules_merchant_mode' });
  // the job: schedules that pay out
  await qi.addIndex('payout_schedules', ['interval'], { name: 'payout_schedules_interval' });

  await qi.createTable('payouts', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(false),
    livemode: flag(),
    currency: str(false),
    amountMinor: bigint(),
    feeMinor: bigint(),
    feeBreakdown: json(),
    status: str(false),
    withdrawalMethodId: uuid(false),
    payoutChannelId: uuid(false),
    destinationType: str(false),
    // the method's details when the payout was made, sealed; reads show destinationMasked only
    destinationSealed: text(false),
    destinationMasked: json(false),
    periodKey: str(false),
    submittedAt: date(),
    arrivalDate: date(),
    failureReason: text(),
    providerReference: str(),
    paidAt: date(),
    failedAt: date(),
    canceledAt: date(),
    canceledBy: str(),
    ...stamps,
  });
  await qi.addIndex('payouts', ['merchantId', 'livemode', 'currency', 'periodKey'], { unique: true, name: 'payouts_period' });
  await qi.addIndex('payouts', ['tenantId', 'livemode', 'createdAt', 'id'], { name: 'payouts_tenant_mode_created' });
  // the job: payouts still to send or to mark paid
  await qi.addIndex('payouts', ['status', 'arrivalDate'], { name: 'payouts_status_arrival' });
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.dropTable('payouts');
  await qi.dropTable('payout_schedules');
}
