import { connectorFor } from './registry';

/**
 * Whether the connector of a provider code takes its acquirer's notifications (it has parseNotification): its
 * terminals then show a notificationUrl, the address to register at the acquirer. Asks the registry only: nothing
 * is called.
 */
export function takesNotifications(providerCode: string): boolean {
  return typeof connectorFor(providerCode).parseNotification === 'function';
}
