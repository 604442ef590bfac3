import type { Money } from '../../domain/money';
import crypto from 'node:crypto';
import type { ConnectorResult } from '../results';
import {
  ConnectorError,
  type ActionReturnRequest,
  type AuthorizeRequest,
  type CaptureRequest,
  type Connector,
  type ConnectorEnv,
  type ConnectorTerminal,
  type CredentialProblem,
  type DisputeAcceptRequest,
  type DisputeEvidenceRequest,
  type NotificationRequest,
  type ParsedNotification,
  type PayoutRequest,
  type RefundRequest,
  type VoidRequest,
} from '../types';
import { adyenServices, readFailure } from './client';
import { paymentResult, type AdyenPaymentAnswer } from './codes';
import { textPdf } from './evidence-pdf';
import { parseAdyenNotification } from './notifications';

/**
 * The Adyen connector (provider code `adyen`), on the official `@adyen/api-library`: Checkout `/payments` with the
 * card's details (as Adyen accepts them from PCI-compliant merchants), `/payments/details` after a 3DS redirect,
 * captures, cancels and refunds answered `received` (their outcome arrives as a notification), the Disputes API,
 * and the standard notifications checked item by item with the terminal's HMAC key. Adyen's Checkout offers no
 * look-up of a payment by our reference: a lost answer is settled by its notification (no `lookup`).
 *
 * References: our reference is Adyen's `reference` and the Idempotency-Key (the authorization's as is; a
 * modification's prefixed with its kind, as capture and cancel may share a reference); providerReference is the
 * authorization's pspReference (a refund's is the refund's own pspReference).
 */

/** What Adyen's test environment calls a defence with the material supplied (the one defence reason we send). */
export const DEFENSE_REASON_CODE = 'SupplyDefenseMaterial';
/** The document type of the evidence we supply (Adyen's generic defence material). */
export const DEFENSE_DOCUMENT_TYPE = 'DefenseMaterial';

type Modification = 'capture' | 'cancel' | 'refund';

function amountOf(money: Money): { currency: string; value: number } {
  return { currency: money.currency, value: money.valueMinor };
}

/** A request Adyen refused (a 4xx other than the credentials'): failed, its errorCode kept as the raw code. */
function refusedResult(failure: ReturnType<typeof readFailure>, providerReference: string | null): ConnectorResult {
  return {
    status: 'failed',
    providerReference,
    rawStatus: `http_${failure.statusCode}`,
    declineCode: 'processing_error',
    ...(failure.errorCode !== undefined ? { rawCode: failure.errorCode } : {}),
    message: failure.message,
  };
}

export class AdyenConnector implements Connector {
  readonly kind = 'adyen';

  async authorize(env: ConnectorEnv, terminal: ConnectorTerminal, request: AuthorizeRequest): Promise<ConnectorResult> {
    const card = request.paymentMethod.card;
    if (request.paymentMethod.type !== 'card' || !card) {
      throw new ConnectorError(`the Adyen connector takes cards only (not ${request.paymentMethod.type})`, false);
    }
    const { payments, merchantAccount } = adyenServices(env.config, terminal);
    const returnUrl = request.actionReturnUrl ?? request.returnUrl;
    const threeDs = request.threeDs;
    const body = {
      amount: amountOf(request.amount),
      reference: request.reference,
      merchantAccount,
      paymentMethod: {
        type: 'scheme',
        number: card.number,
        expiryMonth: String(card.expMonth).padStart(2, '0'),
        expiryYear: String(card.expYear),
        ...(card.cvc ? { cvc: card.cvc } : {}),
        ...(card.holderName ? { holderName: card.holderName } : {}),
      },
      ...(returnUrl ? { returnUrl } : {}),
      // an automatic capture at once, or an authorisation the merchant captures (Adyen's manualCapture)
      ...(request.capture ? { captureDelayHours: 0 } : { additionalData: { manualCapture: 'true' } }),
      ...(request.forceThreeDsChallenge
        ? { authenticationData: { attemptAuthentication: 'always' }, threeDS2RequestData: { threeDSRequestorChallengeInd: '04' } }
        : {}),
      ...(threeDs?.cavv
        ? {
            mpiData: {
              cavv: threeDs.cavv,
              ...(threeDs.eci ? { eci: threeDs.eci } : {}),
              ...(threeDs.dsTransactionId ? { dsTransID: threeDs.dsTransactionId } : {}),
              ...(threeDs.version ? { threeDSVersion: threeDs.version } : {}),
              authenticationResponse: 'Y',
              directoryResponse: 'Y',
            },
          }
        : {}),
      shopperInteraction: 'Ecommerce',
      channel: 'Web',
      ...(terminal.descriptor ? { shopperStatement: terminal.descriptor.slice(0, 22) } : {}),
      ...(request.metadata && Object.keys(request.metadata).length ? { metadata: request.metadata } : {}),
    };
    let answer: AdyenPaymentAnswer;
    try {
      answer = (await payments.payments(body as never, { idempotencyKey: request.reference })) as AdyenPaymentAnswer;
    } catch (error) {
      return refusedResult(readFailure(error, 'payments'), null);
    }
    return readAnswer(answer, null, 'payments');
  }

  capture(env: ConnectorEnv, terminal: ConnectorTerminal, request: CaptureRequest): Promise<ConnectorResult> {
    return this.modify(env, terminal, 'capture', request.reference, request.providerReference, request.amount);
  }

  void(env: ConnectorEnv, terminal: ConnectorTerminal, request: VoidRequest): Promise<ConnectorResult> {
    return this.modify(env, terminal, 'cancel', request.reference, request.providerReference);
  }

  refund(env: ConnectorEnv, terminal: ConnectorTerminal, request: RefundRequest): Promise<ConnectorResult> {
    return this.modify(env, terminal, 'refund', request.reference, request.providerReference, request.amount);
  }

  /**
   * A capture, cancel or refund: Adyen answers `received` and notifies the outcome (CAPTURE, CANCELLATION, REFUND),
   * so the answer is `pending`. A capture's and a cancel's providerReference stays the authorization's; a refund's is
   * the refund's own pspReference (its REFUND notification names it, with the payment's as originalReference).
   */
  private async modify(
    env: ConnectorEnv,
    terminal: ConnectorTerminal,
    kind: Modification,
    reference: string,
    paymentPsp: string,
    amount?: Money,
  ): Promise<ConnectorResult> {
    if (!paymentPsp) throw new ConnectorError(`an Adyen ${kind} needs the payment's pspReference`, false);
    const { modifications, merchantAccount } = adyenServices(env.config, terminal);
    const options = { idempotencyKey: `${kind}-${reference}` };
    let answer: { pspReference?: string; status?: string };
    try {
      if (kind === 'capture') {
        answer = await modifications.captureAuthorisedPayment(
          paymentPsp,
          { amount: amountOf(amount!), merchantAccount, reference },
          options,
        );
      } else if (kind === 'refund') {
        answer = await modifications.refundCapturedPayment(paymentPsp, { amount: amountOf(amount!), merchantAccount, reference }, options);
      } else {
        answer = await modifications.cancelAuthorisedPaymentByPspReference(paymentPsp, { merchantAccount, reference }, options);
      }
    } catch (error) {
      return refusedResult(readFailure(error, kind), kind === 'refund' ? null : paymentPsp);
    }
    if (answer?.status !== 'received' || typeof answer.pspReference !== 'string') {
      // an answer we cannot read: Adyen may have taken it, its notification will tell
      throw new ConnectorError(`Adyen ${kind} answered without status received`, true);
    }
    return {
      status: 'pending',
      providerReference: kind === 'refund' ? answer.pspReference : paymentPsp,
      rawStatus: 'received',
    };
  }

  payout(_env: ConnectorEnv, _terminal: ConnectorTerminal, _request: PayoutRequest): Promise<ConnectorResult> {
    return Promise.reject(new ConnectorError('the Adyen connector makes no payouts', false));
  }

  /**
   * The customer is back from Adyen's 3DS page: `/payments/details` with what the return carried (redirectResult,
   * or threeDSResult / payload), its resultCode read as the authorization's.
   */
  async completeAction(env: ConnectorEnv, terminal: ConnectorTerminal, request: ActionReturnRequest): Promise<ConnectorResult> {
    const details: Record<string, string> = {};
    for (const key of ['redirectResult', 'threeDSResult', 'payload'] as const) {
      const value = request.params[key];
      if (typeof value === 'string' && value.length > 0) details[key] = value;
    }
    if (Object.keys(details).length === 0) {
      throw new ConnectorError("the return from Adyen's 3DS page carried no redirectResult", false);
    }
    const { payments } = adyenServices(env.config, terminal);
    const digest = crypto.createHash('sha256').update(JSON.stringify(details)).digest('hex').slice(0, 32);
    let answer: AdyenPaymentAnswer;
    try {
      answer = (await payments.paymentsDetails({ details } as never, {
        idempotencyKey: `details-${request.reference}-${digest}`,
      })) as AdyenPaymentAnswer;
    } catch (error) {
      return refusedResult(readFailure(error, 'payments/details'), request.providerReference);
    }
    // the return's fields are the customer's: the details must be this attempt's payment, not another one's
    const other =
      (answer.merchantReference && answer.merchantReference !== request.reference) ||
      (request.providerReference && answer.pspReference && answer.pspReference !== request.providerReference);
    if (other) throw new ConnectorError("the return from Adyen's 3DS page names another payment than this attempt's", false);
    return readAnswer(answer, request.providerReference, 'payments/details');
  }

  async disputeEvidence(env: ConnectorEnv, terminal: ConnectorTerminal, request: DisputeEvidenceRequest): Promise<ConnectorResult> {
    const { disputes, merchantAccount } = adyenServices(env.config, terminal);
    const text = Object.entries(request.evidence)
      .filter(([, v]) => typeof v === 'string' && v.length > 0)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n');
    const base = { disputePspReference: request.providerReference, merchantAccountCode: merchantAccount };
    try {
      if (text) {
        const supplied = await disputes.supplyDefenseDocument({
          ...base,
          defenseDocuments: [
            {
              content: textPdf(text.split('\n')).toString('base64'),
              contentType: 'application/pdf',
              defenseDocumentTypeCode: DEFENSE_DOCUMENT_TYPE,
            },
          ],
        });
        const refused = disputeRefusal(supplied?.disputeServiceResult, request.providerReference, 'supplyDefenseDocument');
        if (refused) return refused;
      }
      const defended = await disputes.defendDispute({ ...base, defenseReasonCode: DEFENSE_REASON_CODE });
      const refused = disputeRefusal(defended?.disputeServiceResult, request.providerReference, 'defendDispute');
      if (refused) return refused;
    } catch (error) {
      return refusedResult(readFailure(error, 'dispute defence'), request.providerReference);
    }
    // the decision arrives as CHARGEBACK_REVERSED (won) or SECOND_CHARGEBACK (lost)
    return { status: 'pending', providerReference: request.providerReference, rawStatus: 'defended' };
  }

  async disputeAccept(env: ConnectorEnv, terminal: ConnectorTerminal, request: DisputeAcceptRequest): Promise<ConnectorResult> {
    const { disputes, merchantAccount } = adyenServices(env.config, terminal);
    try {
      const accepted = await disputes.acceptDispute({
        disputePspReference: request.providerReference,
        merchantAccountCode: merchantAccount,
      });
      const refused = disputeRefusal(accepted?.disputeServiceResult, request.providerReference, 'acceptDispute');
      if (refused) return refused;
    } catch (error) {
      return refusedResult(readFailure(error, 'acceptDispute'), request.providerReference);
    }
    return { status: 'succeeded', providerReference: request.providerReference, rawStatus: 'accepted' };
  }

  parseNotification(env: ConnectorEnv, terminal: ConnectorTerminal, request: NotificationRequest): Promise<ParsedNotification> {
    try {
      return Promise.resolve(parseAdyenNotification(env.clock, terminal, request));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  checkCredentials(credentials: Record<string, string>, livemode: boolean): CredentialProblem | null {
    return checkAdyenCredentials(credentials, livemode);
  }
}

function readAnswer(answer: AdyenPaymentAnswer, fallbackReference: string | null, operation: string): ConnectorResult {
  if (!answer || typeof answer !== 'object' || typeof answer.resultCode !== 'string') {
    // Adyen answered 2xx with nothing we can read: it may have acted, the outcome is unknown
    throw new ConnectorError(`Adyen ${operation} answered without a resultCode`, true);
  }
  return paymentResult(answer, fallbackReference);
}

function disputeRefusal(
  result: { success?: boolean; errorMessage?: string } | undefined,
  providerReference: string,
  operation: string,
): ConnectorResult | null {
  if (result?.success === true) return null;
  return {
    status: 'declined',
    providerReference,
    rawStatus: `${operation}_refused`,
    declineCode: 'dispute_refused',
    message: result?.errorMessage ?? `Adyen refused ${operation}.`,
  };
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const PREFIX = /^[A-Za-z0-9][A-Za-z0-9-]{0,99}$/;

/** An Adyen terminal's credentials: apiKey, merchantAccount, hmacKey (hex), and liveEndpointUrlPrefix on live terminals only. */
export function checkAdyenCredentials(credentials: Record<string, string>, livemode: boolean): CredentialProblem | null {
  for (const field of ['apiKey', 'merchantAccount', 'hmacKey'] as const) {
    const value = credentials[field];
    if (typeof value !== 'string' || value.trim() === '') {
      return { code: 'INVALID_CREDENTIALS', field, message: `${field} is required for an Adyen terminal.` };
    }
  }
  if (!HEX.test(credentials.hmacKey!)) {
    return { code: 'INVALID_CREDENTIALS', field: 'hmacKey', message: 'hmacKey must be the hexadecimal HMAC key of the Adyen webhook.' };
  }
  const prefix = credentials.liveEndpointUrlPrefix;
  const hasPrefix = typeof prefix === 'string' && prefix.trim() !== '';
  if (livemode && !hasPrefix) {
    return {
      code: 'CREDENTIALS_MODE_MISMATCH',
      field: 'liveEndpointUrlPrefix',
      message: "A live Adyen terminal needs liveEndpointUrlPrefix (the prefix of the company's live endpoints).",
    };
  }
  if (!livemode && hasPrefix) {
    return {
      code: 'CREDENTIALS_MODE_MISMATCH',
      field: 'liveEndpointUrlPrefix',
      message: "liveEndpointUrlPrefix is for live terminals only: a sandbox terminal talks to Adyen's test environment.",
    };
  }
  if (hasPrefix && !PREFIX.test(prefix)) {
    return {
      code: 'INVALID_CREDENTIALS',
      field: 'liveEndpointUrlPrefix',
      message: 'liveEndpointUrlPrefix must be letters, digits and hyphens.',
    };
  }
  return null;
}
