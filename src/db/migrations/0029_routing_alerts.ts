import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, date, stamps } from './columns';

// Routing alerts. routing_alerts holds, per tenant, mode and cause (`no_eligible_terminal:<merchantId>`
// or `terminal_declines:<terminalId>`), when routing.alert was last raised for it: one atomic INSERT … ON CONFLICT DO
// UPDATE … WHERE lastRaisedAt is older than the window claims the right to raise it again, in the transaction that
// emits the event, so that two processes never both raise it (src/services/routing/alerts.ts).
// A declined attempt counts its terminal's answered attempts and declines of the last 15 minutes: one indexed count.

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('routing_alerts', {
    id,
    tenantId: uuid(false),
    livemode: { type: DataTypes.BOOLEAN, allowNull: false },
    cause: str(false),
    lastRaisedAt: date(false),
    ...stamps,
  });
  await qi.addIndex('routing_alerts', ['tenantId', 'livemode', 'cause'], { unique: true, name: 'routing_alerts_cause' });
  // the count of a declined attempt: a terminal's attempts of a mode since a moment, with their status (covering)
  await qi.addIndex('payment_attempts', ['terminalId', 'livemode', 'createdAt', 'status'], { name: 'payment_attempts_terminal_recent' });
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.removeIndex('payment_attempts', 'payment_attempts_terminal_recent');
  await qi.dropTable('routing_alerts');
}
