import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, json, date, stamps, dropColumns } from './columns';

// Disputes. A dispute (chargeback) of a captured payment, opened by the acquirer's notification and
// decided by it (src/services/disputes). At most one open dispute (needs_response or under_review) per payment: a
// partial unique index. One dispute per acquirer reference of a provider integration: the acquirer's notifications
// are applied once however often they arrive. payments.disputedMinor holds what the payment's open and lost disputes
// took, so that refunds never reach it (src/services/payments/records.ts refundableMinor). The sandbox acquirer keeps
// the dispute it notifies (reason, due date) or decides (outcome) with its operation (notification).

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('disputes', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(false),
    paymentId: uuid(false),
    livemode: { type: DataTypes.BOOLEAN, allowNull: false },
    providerIntegrationId: uuid(false),
    currency: str(false),
    amountMinor: { type: DataTypes.BIGINT, allowNull: false },
    feeMinor: { type: DataTypes.BIGINT, allowNull: false },
    feeBreakdown: json(),
    reason: str(false),
    status: str(false),
    evidence: json(false),
    evidenceDueBy: date(false),
    submittedAt: date(),
    // when the acquirer took the submitted evidence: a submission without it is sent again by the dispute-deadlines job
    evidenceSentAt: date(),
    closedAt: date(),
    providerReference: str(false),
    // who submitted or accepted, and how the dispute closed (won, lost by acceptance, by the deadline, by the acquirer)
    submittedBy: str(),
    closedBy: str(),
    closedReason: str(),
    ...stamps,
  });
  await qi.addIndex('disputes', ['paymentId'], {
    unique: true,
    name: 'disputes_one_open_per_payment',
    where: { status: ['needs_response', 'under_review'] },
  });
  await qi.addIndex('disputes', ['providerIntegrationId', 'providerReference'], { unique: true, name: 'disputes_provider_reference' });
  // lists: a tenant's (or merchant's) disputes in a mode, newest first
  await qi.addIndex('disputes', ['tenantId', 'livemode', 'createdAt', 'id'], { name: 'disputes_tenant_mode_created' });
  // the deadline job: needs_response disputes by due date
  await qi.addIndex('disputes', ['status', 'evidenceDueBy'], { name: 'disputes_due' });
  await qi.addColumn('payments', 'disputedMinor', { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 });
  await qi.addColumn('sandbox_acquirer_operations', 'notification', { type: DataTypes.JSON, allowNull: true });
}

export async function down(qi: QueryInterface): Promise<void> {
  await dropColumns(qi, 'sandbox_acquirer_operations', ['notification']);
  await dropColumns(qi, 'payments', ['disputedMinor']);
  await qi.dropTable('disputes');
}
