/**
 * Adyen's result codes and refusal reasons read into ours. The refusal reasons are Adyen's documented list
 * (https://docs.adyen.com/development-resources/refusal-reasons/): `refusalReasonCode` -> `refusalReason`.
 */

import type { ConnectorResult } from '../results';

/** Adyen's refusalReasonCode -> our decline code (the documented reasons; an unknown code is card_declined). */
export const REFUSAL_REASONS: Readonly<Record<string, { reason: string; declineCode: string }>> = {
  '2': { reason: 'Refused', declineCode: 'card_declined' },
  '3': { reason: 'Referral', declineCode: 'card_declined' },
  '4': { reason: 'Acquirer Error', declineCode: 'processing_error' },
  '5': { reason: 'Blocked Card', declineCode: 'card_declined' },
  '6': { reason: 'Expired Card', declineCode: 'expired_card' },
  '7': { reason: 'Invalid Amount', declineCode: 'invalid_amount' },
  '8': { reason: 'Invalid Card Number', declineCode: 'incorrect_number' },
  '9': { reason: 'Issuer Unavailable', declineCode: 'issuer_not_available' },
  '10': { reason: 'Not supported', declineCode: 'card_not_supported' },
  '11': { reason: '3D Not Authenticated', declineCode: 'authentication_failed' },
  '12': { reason: 'Not enough balance', declineCode: 'insufficient_funds' },
  '14': { reason: 'Acquirer Fraud', declineCode: 'fraudulent' },
  '15': { reason: 'Cancelled', declineCode: 'card_declined' },
  '16': { reason: 'Shopper Cancelled', declineCode: 'card_declined' },
  '17': { reason: 'Invalid Pin', declineCode: 'incorrect_pin' },
  '18': { reason: 'Pin tries exceeded', declineCode: 'pin_try_exceeded' },
  '19': { reason: 'Pin validation not possible', declineCode: 'incorrect_pin' },
  '20': { reason: 'FRAUD', declineCode: 'fraudulent' },
  '21': { reason: 'Not Submitted', declineCode: 'processing_error' },
  '22': { reason: 'FRAUD-CANCELLED', declineCode: 'fraudulent' },
  '23': { reason: 'Transaction Not Permitted', declineCode: 'transaction_not_allowed' },
  '24': { reason: 'CVC Declined', declineCode: 'incorrect_cvc' },
  '25': { reason: 'Restricted Card', declineCode: 'restricted_card' },
  '26': { reason: 'Revocation Of Auth', declineCode: 'revocation_of_authorization' },
  '27': { reason: 'Declined Non Generic', declineCode: 'do_not_honor' },
  '28': { reason: 'Withdrawal amount exceeded', declineCode: 'withdrawal_count_limit_exceeded' },
  '29': { reason: 'Withdrawal count exceeded', declineCode: 'withdrawal_count_limit_exceeded' },
  '31': { reason: 'Issuer Suspected Fraud', declineCode: 'fraudulent' },
  '32': { reason: 'AVS Declined', declineCode: 'incorrect_address' },
  '33': { reason: 'Card requires online pin', declineCode: 'online_or_offline_pin_required' },
  '34': { reason: 'No checking account available on Card', declineCode: 'card_declined' },
  '35': { reason: 'No savings account available on Card', declineCode: 'card_declined' },
  '36': { reason: 'Mobile pin required', declineCode: 'card_declined' },
  '37': { reason: 'Contactless fallback', declineCode: 'card_declined' },
  '38': { reason: 'Authentication required', declineCode: 'authentication_required' },
  '39': { reason: 'RReq not received from DS', declineCode: 'authentication_failed' },
  '40': { reason: 'Current AID is in Penalty Box', declineCode: 'card_declined' },
  '41': { reason: 'CVM Required Restart Payment', declineCode: 'card_declined' },
  '42': { reason: '3DS Authentication Error', declineCode: 'authentication_failed' },
  '46': { reason: 'Transaction blocked by Adyen to prevent excessive retry fees', declineCode: 'card_declined' },
};

const BY_REASON = new Map(Object.entries(REFUSAL_REASONS).map(([code, r]) => [r.reason.toLowerCase(), code]));

/** Our decline code of an Adyen refusal: by its code, else by its reason's text (a notification carries the text). */
export function refusalOf(code: string | undefined, reason: string | undefined): { declineCode: string; rawCode?: string } {
  const known = code !== undefined ? REFUSAL_REASONS[code] : undefined;
  if (known) return { declineCode: known.declineCode, rawCode: code };
  const byText = reason ? BY_REASON.get(reason.trim().toLowerCase()) : undefined;
  if (byText) return { declineCode: REFUSAL_REASONS[byText]!.declineCode, rawCode: code ?? byText };
  return { declineCode: 'card_declined', ...(code !== undefined ? { rawCode: code } : {}) };
}

/** What a /payments or /payments/details answer carries that we read. */
export interface AdyenPaymentAnswer {
  resultCode?: string;
  pspReference?: string;
  /** our reference, as the payment was made with it */
  merchantReference?: string;
  refusalReason?: string;
  refusalReasonCode?: string;
  action?: { type?: string; url?: string; method?: string; data?: Record<string, string> } & Record<string, unknown>;
  additionalData?: Record<string, string>;
}

/**
 * A /payments (or /payments/details) answer read into ours: Authorised succeeded (an automatic capture is Adyen's
 * to do), Refused declined, a redirect requires the customer, Pending/Received pending, Error/Cancelled failed.
 */
export function paymentResult(answer: AdyenPaymentAnswer, fallbackReference: string | null): ConnectorResult {
  const providerReference = answer.pspReference ?? fallbackReference;
  const rawStatus = answer.resultCode ?? 'unknown';
  switch (answer.resultCode) {
    case 'Authorised':
      return { status: 'succeeded', providerReference, rawStatus, message: 'Authorised.' };
    case 'Refused': {
      const refusal = refusalOf(answer.refusalReasonCode, answer.refusalReason);
      return { status: 'declined', providerReference, rawStatus, ...refusal, message: answer.refusalReason ?? 'Refused.' };
    }
    case 'RedirectShopper':
    case 'ChallengeShopper':
    case 'IdentifyShopper':
    case 'PresentToShopper': {
      const url = redirectUrl(answer.action);
      if (url) return { status: 'requires_action', providerReference, rawStatus, action: { type: 'redirect', url } };
      return {
        status: 'failed',
        providerReference,
        rawStatus,
        declineCode: 'processing_error',
        message: `Adyen asked for an action this connector does not perform (${answer.action?.type ?? 'none'}).`,
      };
    }
    case 'Pending':
    case 'Received':
      return { status: 'pending', providerReference, rawStatus };
    case 'Error':
    case 'Cancelled': {
      const refusal = answer.refusalReasonCode ? refusalOf(answer.refusalReasonCode, answer.refusalReason) : undefined;
      return {
        status: 'failed',
        providerReference,
        rawStatus,
        declineCode: answer.resultCode === 'Error' ? 'processing_error' : (refusal?.declineCode ?? 'processing_error'),
        ...(refusal?.rawCode ? { rawCode: refusal.rawCode } : {}),
        message:
          answer.refusalReason ?? (answer.resultCode === 'Error' ? 'Adyen could not process the payment.' : 'The payment was cancelled.'),
      };
    }
    default:
      return {
        status: 'failed',
        providerReference,
        rawStatus,
        declineCode: 'processing_error',
        message: `Adyen answered an unknown result code ${String(answer.resultCode)}.`,
      };
  }
}

/**
 * The absolute GET address of a redirect action. A POST redirect (an issuer's form) is given as its address with the
 * form's fields in the query, the closest GET form of it.
 */
function redirectUrl(action: AdyenPaymentAnswer['action']): string | undefined {
  if (!action || action.type !== 'redirect' || typeof action.url !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(action.url);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if ((action.method ?? 'GET').toUpperCase() === 'POST' && action.data) {
    for (const [k, v] of Object.entries(action.data)) url.searchParams.set(k, String(v));
  }
  return url.toString();
}

/** Adyen's dispute reason (the chargeback's `reason` text, or its scheme reason code) read into our dispute reasons. */
export function disputeReasonOf(reason: string | undefined, schemeCode: string | undefined): string {
  const text = (reason ?? '').toLowerCase();
  if (/fraud|not authori[sz]ed|unauthori[sz]ed|no cardholder authori/.test(text)) return 'fraudulent';
  if (/not received|non-receipt|not provided/.test(text)) return 'product_not_received';
  if (/duplicate|paid by other means/.test(text)) return 'duplicate';
  if (/credit not processed|cancelled recurring|canceled recurring|cancelled merchandise|refund/.test(text)) return 'credit_not_processed';
  if (/not as described|defective|damaged|counterfeit|misrepresent|quality/.test(text)) return 'product_unacceptable';
  // Visa's and Mastercard's codes (the item's chargebackReasonCode)
  const code = (schemeCode ?? '').trim();
  if (/^10\.\d$/.test(code) || ['4837', '4840', '4849', '4863', '4870', '4871'].includes(code)) return 'fraudulent';
  if (code === '13.1' || code === '4855') return 'product_not_received';
  if (code === '12.6' || code === '4834') return 'duplicate';
  if (code === '13.6' || code === '13.7' || code === '4860') return 'credit_not_processed';
  if (code === '13.3' || code === '4853') return 'product_unacceptable';
  return 'general';
}
