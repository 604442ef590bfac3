import { hmacValidator } from '@adyen/api-library';
import type { Clock } from '../../domain/clock';
import type { ConnectorResult } from '../results';
import {
  NotificationRejected,
  type ConnectorTerminal,
  type NotificationItem,
  type NotificationRequest,
  type ParsedNotification,
} from '../types';
import { disputeReasonOf, refusalOf } from './codes';

/**
 * Adyen's standard notifications (webhooks): a JSON batch `{ live, notificationItems: [{ NotificationRequestItem }] }`
 * whose every item carries its HMAC (additionalData.hmacSignature) computed with the terminal's hmacKey. One item
 * that fails the check rejects the whole batch (nothing applied). The acquirer expects `[accepted]`.
 */

/** What Adyen expects as the answer of a notification it may consider delivered. */
export const ADYEN_ACCEPTED_REPLY = { status: 200, contentType: 'text/plain', body: '[accepted]' } as const;

/** How long the merchant has to defend a chargeback when the item does not say (defensePeriodEndsAt). */
export const DEFAULT_DEFENSE_DAYS = 7;

export interface AdyenNotificationItem {
  additionalData?: Record<string, string | undefined>;
  amount: { currency: string; value: number };
  pspReference: string;
  eventCode: string;
  eventDate?: string;
  merchantAccountCode: string;
  merchantReference: string;
  originalReference?: string;
  paymentMethod?: string;
  reason?: string;
  success: string;
  operations?: string[];
}

const validator = new hmacValidator();

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** An item's shape as the HMAC needs it (the fields it signs); anything else rejects the batch. */
function wellFormed(item: unknown): item is AdyenNotificationItem {
  if (!item || typeof item !== 'object') return false;
  const i = item as Record<string, unknown>;
  const amount = i.amount as Record<string, unknown> | undefined;
  return (
    isString(i.pspReference) &&
    isString(i.eventCode) &&
    isString(i.merchantAccountCode) &&
    (i.merchantReference === undefined || isString(i.merchantReference)) &&
    (i.originalReference === undefined || isString(i.originalReference)) &&
    isString(i.success) &&
    !!amount &&
    typeof amount === 'object' &&
    isString(amount.currency) &&
    typeof amount.value === 'number' &&
    Number.isSafeInteger(amount.value) &&
    (i.additionalData === undefined || (typeof i.additionalData === 'object' && i.additionalData !== null))
  );
}

/** Reads a batch and checks every item's HMAC with the terminal's key. */
export function parseAdyenNotification(clock: Clock, terminal: ConnectorTerminal, request: NotificationRequest): ParsedNotification {
  const hmacKey = terminal.credentials.hmacKey;
  if (!hmacKey) throw new NotificationRejected('the terminal has no hmacKey to check Adyen notifications with');
  let body: unknown;
  try {
    body = JSON.parse(request.rawBody.toString('utf8'));
  } catch {
    throw new NotificationRejected('the notification is not JSON');
  }
  const wrappers = (body as { notificationItems?: unknown })?.notificationItems;
  if (!Array.isArray(wrappers) || wrappers.length === 0) throw new NotificationRejected('the notification carries no notificationItems');
  const live = (body as { live?: unknown }).live;
  if (String(live) !== String(terminal.livemode)) {
    throw new NotificationRejected(`the notification's live flag (${String(live)}) does not match the terminal's mode`);
  }
  const items: AdyenNotificationItem[] = [];
  for (const wrapper of wrappers) {
    const item = (wrapper as { NotificationRequestItem?: unknown })?.NotificationRequestItem;
    if (!wellFormed(item)) throw new NotificationRejected('a notification item is malformed');
    let valid: boolean;
    try {
      valid = validator.validateHMAC(item as never, hmacKey);
    } catch {
      valid = false; // no hmacSignature
    }
    if (!valid) throw new NotificationRejected('a notification item failed its HMAC check');
    items.push(item);
  }
  return { items: items.map((item) => readItem(clock, terminal, item)), reply: { ...ADYEN_ACCEPTED_REPLY } };
}

/** Adyen's documented duplicate key: eventCode, pspReference and success. */
export function adyenEventId(item: Pick<AdyenNotificationItem, 'eventCode' | 'pspReference' | 'success'>): string {
  return `${item.eventCode}:${item.pspReference}:${item.success}`;
}

function failure(item: AdyenNotificationItem, declineCode: string, fallback: string): ConnectorResult {
  return {
    status: 'failed',
    providerReference: item.pspReference,
    rawStatus: item.eventCode,
    declineCode,
    message: item.reason || fallback,
  };
}

function readItem(clock: Clock, terminal: ConnectorTerminal, item: AdyenNotificationItem): NotificationItem {
  const eventId = adyenEventId(item);
  const type = item.eventCode;
  // an item of another merchant account (a company-level webhook) is not this terminal's
  if (item.merchantAccountCode !== terminal.credentials.merchantAccount) return { eventId, type, kind: 'ignored' };
  const success = item.success === 'true';
  const reference = item.merchantReference || null;
  const data = item.additionalData ?? {};
  switch (item.eventCode) {
    case 'AUTHORISATION': {
      let result: ConnectorResult;
      if (success) {
        result = { status: 'succeeded', providerReference: item.pspReference, rawStatus: 'Authorised', message: 'Authorised.' };
      } else {
        const refusal = refusalOf(data.refusalReasonCode, item.reason);
        result = {
          status: 'declined',
          providerReference: item.pspReference,
          rawStatus: 'Refused',
          ...refusal,
          message: item.reason || 'Refused.',
        };
      }
      return { eventId, type, kind: 'outcome', operation: 'authorize', reference, providerReference: item.pspReference, result };
    }
    case 'CAPTURE':
    case 'CAPTURE_FAILED': {
      const ok = success && item.eventCode === 'CAPTURE';
      const payment = item.originalReference ?? item.pspReference;
      const result: ConnectorResult = ok
        ? { status: 'succeeded', providerReference: payment, rawStatus: item.eventCode, message: 'Captured.' }
        : { ...failure(item, 'capture_failed', 'Adyen could not capture the payment.'), providerReference: payment };
      return {
        eventId,
        type,
        kind: 'outcome',
        operation: 'capture',
        reference,
        providerReference: payment,
        paymentProviderReference: payment,
        result,
      };
    }
    case 'CANCELLATION': {
      const payment = item.originalReference ?? item.pspReference;
      const result: ConnectorResult = success
        ? { status: 'succeeded', providerReference: payment, rawStatus: item.eventCode, message: 'Cancelled.' }
        : { ...failure(item, 'void_failed', 'Adyen could not cancel the authorisation.'), providerReference: payment };
      return {
        eventId,
        type,
        kind: 'outcome',
        operation: 'void',
        reference,
        providerReference: payment,
        paymentProviderReference: payment,
        result,
      };
    }
    case 'REFUND':
    case 'REFUND_FAILED': {
      const ok = success && item.eventCode === 'REFUND';
      const result: ConnectorResult = ok
        ? { status: 'succeeded', providerReference: item.pspReference, rawStatus: item.eventCode, message: 'Refunded.' }
        : failure(item, 'refund_failed', 'Adyen could not refund the payment.');
      return {
        eventId,
        type,
        kind: 'outcome',
        operation: 'refund',
        reference,
        providerReference: item.pspReference,
        ...(item.originalReference ? { paymentProviderReference: item.originalReference } : {}),
        result,
      };
    }
    case 'CHARGEBACK': {
      // the dispute's pspReference is the same on every event of the dispute; originalReference is the payment's
      const due = dueDate(clock, data.defensePeriodEndsAt);
      return {
        eventId,
        type,
        kind: 'dispute',
        notice: {
          type: 'opened',
          paymentProviderReference: item.originalReference ?? item.pspReference,
          providerReference: item.pspReference,
          amount: { currency: item.amount.currency, valueMinor: item.amount.value },
          reason: disputeReasonOf(item.reason, data.chargebackReasonCode),
          evidenceDueBy: due,
        },
      };
    }
    case 'CHARGEBACK_REVERSED':
    case 'PREARBITRATION_WON':
      return { eventId, type, kind: 'dispute', notice: { type: 'decided', providerReference: item.pspReference, outcome: 'won' } };
    case 'SECOND_CHARGEBACK':
    case 'PREARBITRATION_LOST':
      return { eventId, type, kind: 'dispute', notice: { type: 'decided', providerReference: item.pspReference, outcome: 'lost' } };
    default:
      // NOTIFICATION_OF_CHARGEBACK (the dispute opens with its CHARGEBACK), REPORT_AVAILABLE, PENDING, …
      return { eventId, type, kind: 'ignored' };
  }
}

function dueDate(clock: Clock, defensePeriodEndsAt: string | undefined): string {
  if (defensePeriodEndsAt) {
    const at = new Date(defensePeriodEndsAt);
    if (!Number.isNaN(at.getTime())) return at.toISOString();
  }
  return new Date(clock.now().getTime() + DEFAULT_DEFENSE_DAYS * 86_400_000).toISOString();
}
