export { AdyenConnector, checkAdyenCredentials, DEFENSE_DOCUMENT_TYPE, DEFENSE_REASON_CODE } from './connector';
export { ADYEN_DEFAULT_BASE_URL } from './client';
export { REFUSAL_REASONS, refusalOf, paymentResult, disputeReasonOf } from './codes';
export { ADYEN_ACCEPTED_REPLY, DEFAULT_DEFENSE_DAYS, adyenEventId, parseAdyenNotification } from './notifications';
