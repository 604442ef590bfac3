import crypto from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { hmacValidator } from '@adyen/api-library';
import { testTls } from '../helpers/receiver';

/**
 * An in-process fake of Adyen's Checkout API (v72, the library's version), its Disputes API (v30) and its standard
 * notifications, over HTTPS with the tests' self-signed certificate (point a terminal's integration at `baseUrl`, with
 * `connectorCaFile: testTls().caFile` and `connectorAllowCidrs: ['127.0.0.0/8']`).
 *
 * It checks `X-API-Key` (401 with Adyen's error body), honours `Idempotency-Key` (the same key answers the first
 * answer again, whatever the body), records every request, and answers by card number (FAKE_ADYEN_CARDS):
 *
 * | card                 | answer                                                        |
 * |----------------------|---------------------------------------------------------------|
 * | 4111111111111111     | Authorised                                                    |
 * | 5555555555554444     | Authorised                                                    |
 * | 4000000000000002     | Refused, refusalReasonCode 2 (Refused)                        |
 * | 4000000000009995     | Refused, 12 (Not enough balance)                              |
 * | 4000000000000069     | Refused, 6 (Expired Card)                                     |
 * | 4000000000000127     | Refused, 24 (CVC Declined)                                    |
 * | 4000000000009987     | Refused, 5 (Blocked Card)                                     |
 * | 4000000000000259     | Refused, 20 (FRAUD)                                           |
 * | 4000000000000119     | Error, refusalReasonCode 4 (Acquirer Error)                   |
 * | 4000000000000036     | Received (the AUTHORISATION notification tells)               |
 * | 4212345678901245     | RedirectShopper to `/3ds/<psp>` (3DS2 challenge)              |
 * | any other            | 422 errorCode 101 (Invalid card number)                       |
 *
 * An Authorised card with `threeDS2RequestData.threeDSRequestorChallengeInd: '04'` (a challenge asked for) is
 * redirected too. The fake's 3DS page `GET /3ds/<psp>?outcome=pass|fail` redirects (302) to the payment's returnUrl
 * with `redirectResult`; `/payments/details` with it answers Authorised (pass) or Refused 11 (fail).
 * Captures, cancels and refunds of a known pspReference answer 201 `status: received`.
 */

export const FAKE_ADYEN_CARDS: Readonly<Record<string, { resultCode: string; refusalReasonCode?: string; refusalReason?: string }>> = {
  '4111111111111111': { resultCode: 'Authorised' },
  '5555555555554444': { resultCode: 'Authorised' },
  '4000000000000002': { resultCode: 'Refused', refusalReasonCode: '2', refusalReason: 'Refused' },
  '4000000000009995': { resultCode: 'Refused', refusalReasonCode: '12', refusalReason: 'Not enough balance' },
  '4000000000000069': { resultCode: 'Refused', refusalReasonCode: '6', refusalReason: 'Expired Card' },
  '4000000000000127': { resultCode: 'Refused', refusalReasonCode: '24', refusalReason: 'CVC Declined' },
  '4000000000009987': { resultCode: 'Refused', refusalReasonCode: '5', refusalReason: 'Blocked Card' },
  '4000000000000259': { resultCode: 'Refused', refusalReasonCode: '20', refusalReason: 'FRAUD' },
  '4000000000000119': { resultCode: 'Error', refusalReasonCode: '4', refusalReason: 'Acquirer Error' },
  '4000000000000036': { resultCode: 'Received' },
  '4212345678901245': { resultCode: 'RedirectShopper' },
};

export const CHECKOUT_VERSION = '/v72';
export const DISPUTES_PATH = '/ca/services/DisputeService/v30';

export interface FakeAdyenRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export interface FakeAdyenPayment {
  pspReference: string;
  reference: string;
  amount: { currency: string; value: number };
  resultCode: string;
  manualCapture: boolean;
  returnUrl?: string;
}

export interface FakeNotification {
  headers: Record<string, string>;
  body: string;
  /** the parsed batch, to tamper with in a test (then JSON.stringify it again) */
  json: { live: string; notificationItems: Array<{ NotificationRequestItem: Record<string, unknown> }> };
}

export interface NotificationFields {
  pspReference: string;
  originalReference?: string;
  merchantReference?: string;
  amount?: { currency: string; value: number };
  success?: boolean;
  reason?: string;
  additionalData?: Record<string, string>;
  eventDate?: string;
}

type Reply = { status: number; body: unknown; headers?: Record<string, string> };

function pspReference(): string {
  // Adyen's are 16 characters
  return crypto.randomBytes(8).toString('hex').toUpperCase();
}

function adyenError(status: number, errorCode: string, message: string, errorType: string): Reply {
  return { status, body: { status, errorCode, message, errorType } };
}

export class AdyenFake {
  readonly apiKey: string;
  readonly merchantAccount: string;
  readonly hmacKey: string;
  readonly live: boolean;
  /** every request, in order (credentials included: this is a test double) */
  readonly requests: FakeAdyenRequest[] = [];
  readonly payments = new Map<string, FakeAdyenPayment>();
  /** modifications by their pspReference: kind, the payment's pspReference, our reference, amount */
  readonly modifications = new Map<
    string,
    { kind: string; paymentPspReference: string; reference: string; amount?: { currency: string; value: number } }
  >();
  /** disputes the fake opened (chargeback notifications), by the dispute's pspReference, with what the merchant did */
  readonly disputes = new Map<string, { paymentPspReference: string; actions: string[] }>();
  private readonly idempotent = new Map<string, Reply>();
  private readonly redirectResults = new Map<string, { pspReference: string; passed: boolean }>();
  private holds: Array<{ path: RegExp; count: number }> = [];
  private lost: Array<{ path: RegExp; count: number }> = [];
  private failures: Array<{ path: RegExp; status: number }> = [];
  private held: Array<import('node:http').ServerResponse> = [];
  private server?: https.Server;
  baseUrl = '';

  constructor(options: { apiKey?: string; merchantAccount?: string; hmacKey?: string; live?: boolean } = {}) {
    this.apiKey = options.apiKey ?? `AQE_test_${crypto.randomBytes(12).toString('hex')}`;
    this.merchantAccount = options.merchantAccount ?? 'PayplaneTestECOM';
    this.hmacKey = options.hmacKey ?? crypto.randomBytes(32).toString('hex').toUpperCase();
    this.live = options.live ?? false;
  }

  /** The credentials of a terminal that talks to this fake. */
  credentials(): Record<string, string> {
    return { apiKey: this.apiKey, merchantAccount: this.merchantAccount, hmacKey: this.hmacKey };
  }

  async start(): Promise<this> {
    const { key, cert } = testTls();
    this.server = https.createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.held = [];
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** The next `count` requests whose path matches are never answered (the caller times out). */
  hold(path: RegExp, count = 1): void {
    this.holds.push({ path, count });
  }

  /**
   * The next `count` requests whose path matches are done (a payment made, a modification received) but their answers
   * never sent: the caller times out, as when Adyen took a call whose answer was lost.
   */
  loseAnswer(path: RegExp, count = 1): void {
    this.lost.push({ path, count });
  }

  /** The next request whose path matches is answered `status` (500 by default) with Adyen's error body, once. */
  failOnce(path: RegExp, status = 500): void {
    this.failures.push({ path, status });
  }

  /** The requests to a path (a pattern), in order. */
  requestsTo(path: RegExp): FakeAdyenRequest[] {
    return this.requests.filter((r) => path.test(r.path));
  }

  /** The fake's 3DS page: where the customer goes, and the returnUrl with redirectResult it sends them to. */
  async completeChallenge(url: string, outcome: 'pass' | 'fail'): Promise<string> {
    const target = new URL(url);
    target.searchParams.set('outcome', outcome);
    const location = await new Promise<string>((resolve, reject) => {
      const req = https.request(target, { method: 'GET', ca: testTls().cert }, (res) => {
        res.resume();
        if (res.statusCode !== 302 || !res.headers.location) reject(new Error(`3DS page answered ${res.statusCode}`));
        else resolve(res.headers.location);
      });
      req.on('error', reject);
      req.end();
    });
    return location;
  }

  private handle(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, raw: string): void {
    const url = new URL(req.url ?? '/', 'https://fake.adyen');
    let body: Record<string, unknown>;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return this.send(res, adyenError(400, '702', 'Unexpected input: invalid JSON', 'validation'));
    }
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body });
    const hold = this.holds.find((h) => h.path.test(url.pathname) && h.count > 0);
    if (hold) {
      hold.count -= 1;
      this.holds = this.holds.filter((h) => h.count > 0);
      this.held.push(res);
      return;
    }
    const failure = this.failures.findIndex((f) => f.path.test(url.pathname));
    if (failure >= 0) {
      const { status } = this.failures[failure]!;
      this.failures.splice(failure, 1);
      return this.send(res, adyenError(status, '905', 'Payment details are not supported', 'internal'));
    }
    if (req.method === 'GET' && url.pathname.startsWith('/3ds/')) return this.send(res, this.challengePage(url));
    if (req.headers['x-api-key'] !== this.apiKey) {
      return this.send(res, adyenError(401, '000', 'HTTP Status Response - Unauthorized', 'security'));
    }
    const key = req.headers['idempotency-key'];
    const idemKey = typeof key === 'string' ? key : undefined;
    if (idemKey && this.idempotent.has(idemKey)) {
      const first = this.idempotent.get(idemKey)!;
      return this.send(res, { ...first, headers: { ...first.headers, 'Idempotency-Key': key as string } });
    }
    const reply = this.route(req.method ?? 'GET', url.pathname, body);
    if (idemKey && reply.status < 500) this.idempotent.set(idemKey, reply);
    const lost = this.lost.find((l) => l.path.test(url.pathname) && l.count > 0);
    if (lost) {
      lost.count -= 1;
      this.lost = this.lost.filter((l) => l.count > 0);
      this.held.push(res);
      return;
    }
    this.send(res, reply);
  }

  private send(res: import('node:http').ServerResponse, reply: Reply): void {
    if (res.destroyed) return;
    if (reply.status === 302) {
      res.writeHead(302, reply.headers);
      res.end();
      return;
    }
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify(reply.body));
  }

  private route(method: string, path: string, body: Record<string, unknown>): Reply {
    if (method !== 'POST') return adyenError(405, '000', 'Method not allowed', 'validation');
    if (body.merchantAccount !== undefined || body.merchantAccountCode !== undefined) {
      const account = body.merchantAccount ?? body.merchantAccountCode;
      if (account !== this.merchantAccount) return adyenError(403, '901', 'Invalid Merchant Account', 'security');
    }
    if (path === `${CHECKOUT_VERSION}/payments`) return this.payment(body);
    if (path === `${CHECKOUT_VERSION}/payments/details`) return this.details(body);
    const modification = new RegExp(`^${CHECKOUT_VERSION}/payments/([^/]+)/(captures|refunds|cancels)$`).exec(path);
    if (modification) return this.modify(decodeURIComponent(modification[1]!), modification[2]!, body);
    if (path.startsWith(`${DISPUTES_PATH}/`)) return this.dispute(path.slice(DISPUTES_PATH.length + 1), body);
    return adyenError(404, '000', 'Not found', 'validation');
  }

  private payment(body: Record<string, unknown>): Reply {
    const method = body.paymentMethod as Record<string, string> | undefined;
    const amount = body.amount as { currency: string; value: number } | undefined;
    if (!body.merchantAccount) return adyenError(422, '702', 'Required field merchantAccount is missing', 'validation');
    if (!body.reference) return adyenError(422, '130', 'Required field reference is missing', 'validation');
    if (!amount || typeof amount.value !== 'number' || !amount.currency) return adyenError(422, '100', 'No amount specified', 'validation');
    if (!method || method.type !== 'scheme' || !method.number) return adyenError(422, '000', 'Unsupported payment method', 'validation');
    const card = FAKE_ADYEN_CARDS[method.number];
    if (!card) return adyenError(422, '101', 'Invalid card number', 'validation');
    const psp = pspReference();
    const challengeAsked = (body.threeDS2RequestData as Record<string, string> | undefined)?.threeDSRequestorChallengeInd === '04';
    const redirect = card.resultCode === 'RedirectShopper' || (card.resultCode === 'Authorised' && challengeAsked);
    const resultCode = redirect ? 'RedirectShopper' : card.resultCode;
    const additional = body.additionalData as Record<string, string> | undefined;
    this.payments.set(psp, {
      pspReference: psp,
      reference: String(body.reference),
      amount,
      resultCode,
      manualCapture: additional?.manualCapture === 'true',
      ...(typeof body.returnUrl === 'string' ? { returnUrl: body.returnUrl } : {}),
    });
    const answer: Record<string, unknown> = {
      pspReference: psp,
      resultCode,
      merchantReference: body.reference,
      amount,
    };
    if (redirect) {
      if (typeof body.returnUrl !== 'string') return adyenError(422, '14_012', 'Required field returnUrl is missing', 'validation');
      answer.action = {
        paymentMethodType: 'scheme',
        url: `${this.baseUrl}/3ds/${psp}`,
        method: 'GET',
        type: 'redirect',
      };
      delete answer.pspReference; // Adyen gives the pspReference with the final answer (details)
    }
    if (card.refusalReasonCode && !redirect) {
      answer.refusalReason = card.refusalReason;
      answer.refusalReasonCode = card.refusalReasonCode;
    }
    return { status: 200, body: answer };
  }

  private challengePage(url: URL): Reply {
    const psp = decodeURIComponent(url.pathname.slice('/3ds/'.length));
    const payment = this.payments.get(psp);
    if (!payment || !payment.returnUrl) return { status: 404, body: { message: 'no such challenge' } };
    const redirectResult = crypto.randomBytes(24).toString('base64url');
    this.redirectResults.set(redirectResult, { pspReference: psp, passed: url.searchParams.get('outcome') !== 'fail' });
    const target = new URL(payment.returnUrl);
    target.searchParams.set('redirectResult', redirectResult);
    return { status: 302, body: null, headers: { location: target.toString() } };
  }

  private details(body: Record<string, unknown>): Reply {
    const details = body.details as Record<string, string> | undefined;
    const found = details?.redirectResult ? this.redirectResults.get(details.redirectResult) : undefined;
    if (!found) return adyenError(422, '101', 'Invalid redirectResult', 'validation');
    const payment = this.payments.get(found.pspReference)!;
    payment.resultCode = found.passed ? 'Authorised' : 'Refused';
    return {
      status: 200,
      body: found.passed
        ? { pspReference: payment.pspReference, resultCode: 'Authorised', merchantReference: payment.reference, amount: payment.amount }
        : {
            pspReference: payment.pspReference,
            resultCode: 'Refused',
            refusalReason: '3D Not Authenticated',
            refusalReasonCode: '11',
            merchantReference: payment.reference,
          },
    };
  }

  private modify(paymentPsp: string, kind: string, body: Record<string, unknown>): Reply {
    const payment = this.payments.get(paymentPsp);
    if (!payment) return adyenError(422, '167', 'Original pspReference required for this operation', 'validation');
    const amount = body.amount as { currency: string; value: number } | undefined;
    if (kind !== 'cancels' && (!amount || typeof amount.value !== 'number')) {
      return adyenError(422, '100', 'No amount specified', 'validation');
    }
    const psp = pspReference();
    this.modifications.set(psp, {
      kind,
      paymentPspReference: paymentPsp,
      reference: String(body.reference ?? ''),
      ...(amount ? { amount } : {}),
    });
    return {
      status: 201,
      body: {
        merchantAccount: this.merchantAccount,
        paymentPspReference: paymentPsp,
        pspReference: psp,
        reference: body.reference,
        status: 'received',
        ...(amount ? { amount } : {}),
      },
    };
  }

  private dispute(operation: string, body: Record<string, unknown>): Reply {
    const dispute = this.disputes.get(String(body.disputePspReference));
    if (!['supplyDefenseDocument', 'defendDispute', 'acceptDispute'].includes(operation)) {
      return adyenError(404, '000', 'Not found', 'validation');
    }
    if (!dispute) return { status: 200, body: { disputeServiceResult: { success: false, errorMessage: 'Could not find dispute' } } };
    if (dispute.actions.includes('acceptDispute') || dispute.actions.includes('defendDispute')) {
      return { status: 200, body: { disputeServiceResult: { success: false, errorMessage: 'Dispute is already closed for defense' } } };
    }
    if (operation === 'supplyDefenseDocument' && !Array.isArray(body.defenseDocuments)) {
      return { status: 200, body: { disputeServiceResult: { success: false, errorMessage: 'No defense documents' } } };
    }
    dispute.actions.push(operation);
    return { status: 200, body: { disputeServiceResult: { success: true } } };
  }

  // ---- notifications

  /** One HMAC-signed item of a notification (the signature over Adyen's signed fields, with this fake's key). */
  notificationItem(eventCode: string, fields: NotificationFields): Record<string, unknown> {
    const item: Record<string, unknown> = {
      additionalData: { ...(fields.additionalData ?? {}) },
      amount: fields.amount ?? { currency: 'EUR', value: 0 },
      eventCode,
      eventDate: fields.eventDate ?? new Date().toISOString(),
      merchantAccountCode: this.merchantAccount,
      merchantReference: fields.merchantReference ?? '',
      pspReference: fields.pspReference,
      success: String(fields.success ?? true),
      ...(fields.originalReference ? { originalReference: fields.originalReference } : {}),
      ...(fields.reason !== undefined ? { reason: fields.reason } : {}),
      paymentMethod: 'visa',
    };
    (item.additionalData as Record<string, string>).hmacSignature = new hmacValidator().calculateHmac(item as never, this.hmacKey);
    return item;
  }

  /** A notification batch of items, as Adyen POSTs it. */
  notification(...items: Array<Record<string, unknown>>): FakeNotification {
    const json = { live: String(this.live), notificationItems: items.map((item) => ({ NotificationRequestItem: item })) };
    return { headers: { 'content-type': 'application/json' }, body: JSON.stringify(json), json };
  }

  /** AUTHORISATION of a payment the fake answered (success, or a refusal with its reason). */
  authorisation(psp: string, success = true, reason?: string): Record<string, unknown> {
    const payment = this.payments.get(psp);
    return this.notificationItem('AUTHORISATION', {
      pspReference: psp,
      merchantReference: payment?.reference ?? '',
      amount: payment?.amount,
      success,
      ...(reason ? { reason } : {}),
    });
  }

  /** The outcome of a capture, refund or cancel the fake received (CAPTURE, REFUND, CANCELLATION or their failures). */
  modificationOutcome(modificationPsp: string, success = true, eventCode?: string): Record<string, unknown> {
    const m = this.modifications.get(modificationPsp);
    if (!m) throw new Error(`the fake received no modification ${modificationPsp}`);
    const code = eventCode ?? { captures: 'CAPTURE', refunds: 'REFUND', cancels: 'CANCELLATION' }[m.kind]!;
    const payment = this.payments.get(m.paymentPspReference)!;
    return this.notificationItem(code, {
      pspReference: modificationPsp,
      originalReference: m.paymentPspReference,
      merchantReference: m.reference,
      amount: m.amount ?? payment.amount,
      success,
      ...(success ? {} : { reason: 'Modification refused by the acquirer' }),
    });
  }

  /** The modifications the fake received of a payment, of one kind, in order. */
  modificationsOf(paymentPsp: string, kind: 'captures' | 'refunds' | 'cancels'): string[] {
    return [...this.modifications.entries()].filter(([, m]) => m.paymentPspReference === paymentPsp && m.kind === kind).map(([psp]) => psp);
  }

  /** CHARGEBACK of a payment: opens a dispute at the fake (its pspReference returned with the item). */
  chargeback(
    paymentPsp: string,
    options: {
      amount?: { currency: string; value: number };
      reason?: string;
      defensePeriodEndsAt?: string;
      chargebackReasonCode?: string;
    } = {},
  ): { disputePspReference: string; item: Record<string, unknown> } {
    const payment = this.payments.get(paymentPsp);
    const disputePsp = pspReference();
    this.disputes.set(disputePsp, { paymentPspReference: paymentPsp, actions: [] });
    const item = this.notificationItem('CHARGEBACK', {
      pspReference: disputePsp,
      originalReference: paymentPsp,
      merchantReference: payment?.reference ?? '',
      amount: options.amount ?? payment?.amount,
      reason: options.reason ?? 'Fraudulent transaction',
      additionalData: {
        ...(options.defensePeriodEndsAt ? { defensePeriodEndsAt: options.defensePeriodEndsAt } : {}),
        chargebackReasonCode: options.chargebackReasonCode ?? '10.4',
        chargebackSchemeCode: 'visa',
        disputeStatus: 'Undefended',
      },
    });
    return { disputePspReference: disputePsp, item };
  }

  /** A decision of a dispute: CHARGEBACK_REVERSED (won) or SECOND_CHARGEBACK (lost). */
  disputeDecision(disputePsp: string, outcome: 'won' | 'lost'): Record<string, unknown> {
    const dispute = this.disputes.get(disputePsp);
    const payment = dispute ? this.payments.get(dispute.paymentPspReference) : undefined;
    return this.notificationItem(outcome === 'won' ? 'CHARGEBACK_REVERSED' : 'SECOND_CHARGEBACK', {
      pspReference: disputePsp,
      ...(dispute ? { originalReference: dispute.paymentPspReference } : {}),
      merchantReference: payment?.reference ?? '',
      amount: payment?.amount,
      success: true,
      additionalData: { disputeStatus: outcome === 'won' ? 'Won' : 'Lost' },
    });
  }

  /** POSTs a notification to a URL (the platform's notification endpoint); the answer's status and body. */
  async post(url: string, notification: FakeNotification): Promise<{ status: number; contentType: string | null; body: string }> {
    const res = await fetch(url, { method: 'POST', headers: notification.headers, body: notification.body });
    return { status: res.status, contentType: res.headers.get('content-type'), body: await res.text() };
  }
}
