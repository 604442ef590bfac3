import type { ProviderNotificationRow, ProviderNotificationStatus } from '../../db/models';
import { auditedRecord } from '../audit/changes';
import { refusedMove, statusMachine } from '../status';

/**
 * The status machine of an acquirer's notification item in the inbox (provider_notifications): received → applied
 * (its change committed with this move), ignored (nothing to act on: an event the platform does not use, or one the
 * payment path chose to leave), failed (given up after NOTIFICATION_GIVE_UP_MS of retries). Its moves are made
 * unaudited (an inbox of the platform's own, not a record anyone administers): the record below is the machine's
 * declaration only.
 */
export const PROVIDER_NOTIFICATION = auditedRecord<ProviderNotificationRow>({
  model: (ctx) => ctx.db.models.ProviderNotification,
  targetType: 'terminal',
  owner: (row) => ({ tenantId: row.tenantId, livemode: row.livemode }),
  render: (row) => ({ id: row.id, eventId: row.eventId, type: row.type, status: row.status }),
});

export type ProviderNotificationMove = 'apply' | 'ignore' | 'fail';

export const PROVIDER_NOTIFICATION_MACHINE = statusMachine<ProviderNotificationRow, ProviderNotificationMove, ProviderNotificationStatus>({
  record: PROVIDER_NOTIFICATION,
  moves: {
    apply: { from: ['received'], to: 'applied', action: 'provider_notification.applied', also: (ctx) => ({ appliedAt: ctx.clock.now() }) },
    ignore: { from: ['received'], to: 'ignored', action: 'provider_notification.ignored' },
    fail: { from: ['received'], to: 'failed', action: 'provider_notification.failed' },
  },
  refused: refusedMove('provider notification'),
});
