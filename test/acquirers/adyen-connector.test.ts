import crypto from 'node:crypto';
import { AdyenConnector } from '../../src/connectors/adyen';
import { adyenServices } from '../../src/connectors/adyen/client';
import { textPdf } from '../../src/connectors/adyen/evidence-pdf';
import { connectorFor } from '../../src/connectors/registry';
import { ConnectorError, NotificationRejected, type AuthorizeRequest, type NotificationItem } from '../../src/connectors/types';
import type { FakeNotification } from '../fakes/adyen';
import { adyenConnectorWorld, type AdyenConnectorWorld } from '../helpers/adyen-connector';

// The Adyen connector on the official library, against the in-process fake of Adyen's API (no database).

let w: AdyenConnectorWorld;
const adyen = new AdyenConnector();

beforeAll(async () => {
  w = await adyenConnectorWorld({ timeoutMs: 700 });
});
afterAll(async () => {
  await w.fake.stop();
});

function authorizeRequest(number: string, extra: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  return {
    reference: crypto.randomUUID(),
    tenantId: '00000000-0000-4000-8000-0000000000aa',
    livemode: false,
    amount: { currency: 'EUR', valueMinor: 2599 },
    capture: true,
    paymentMethod: { type: 'card', card: { number, expMonth: 3, expYear: 2030, cvc: '737', holderName: 'Ada Lovelace' } },
    actionReturnUrl: 'https://payplane.example/v1/return/abc',
    returnUrl: 'https://merchant.example/done',
    ...extra,
  };
}

async function authorized(capture = false): Promise<{ psp: string; reference: string }> {
  const request = authorizeRequest('4111111111111111', { capture });
  const result = await adyen.authorize(w.env, w.terminal, request);
  expect(result.status).toBe('succeeded');
  return { psp: result.providerReference!, reference: request.reference };
}

function parse(n: FakeNotification | { body: string; headers: Record<string, string> }) {
  return adyen.parseNotification(w.env, w.terminal, { headers: n.headers, rawBody: Buffer.from(n.body) });
}

describe('authorize', () => {
  it('sends the card, our reference as reference and Idempotency-Key, and reads Authorised as succeeded', async () => {
    const request = authorizeRequest('4111111111111111', { capture: false });
    const result = await adyen.authorize(w.env, w.terminal, request);
    expect(result).toMatchObject({ status: 'succeeded', rawStatus: 'Authorised' });
    expect(result.providerReference).toMatch(/^[0-9A-F]{16}$/);
    const [sent] = w.fake.requestsTo(/\/v72\/payments$/).filter((r) => r.body.reference === request.reference);
    expect(sent!.headers['idempotency-key']).toBe(request.reference);
    expect(sent!.headers['x-api-key']).toBe(w.terminal.credentials.apiKey);
    expect(sent!.body).toMatchObject({
      amount: { currency: 'EUR', value: 2599 },
      merchantAccount: w.fake.merchantAccount,
      paymentMethod: {
        type: 'scheme',
        number: '4111111111111111',
        expiryMonth: '03',
        expiryYear: '2030',
        cvc: '737',
        holderName: 'Ada Lovelace',
      },
      returnUrl: 'https://payplane.example/v1/return/abc',
      additionalData: { manualCapture: 'true' },
      shopperInteraction: 'Ecommerce',
      channel: 'Web',
    });
    expect(w.fake.payments.get(result.providerReference!)!.manualCapture).toBe(true);
  });

  it('asks for an automatic capture at once when the payment captures', async () => {
    const request = authorizeRequest('5555555555554444', { capture: true });
    const result = await adyen.authorize(w.env, w.terminal, request);
    expect(result.status).toBe('succeeded');
    const [sent] = w.fake.requestsTo(/\/v72\/payments$/).filter((r) => r.body.reference === request.reference);
    expect(sent!.body.captureDelayHours).toBe(0);
    expect(sent!.body.additionalData).toBeUndefined();
  });

  it.each([
    ['4000000000000002', 'card_declined', '2', 'Refused'],
    ['4000000000009995', 'insufficient_funds', '12', 'Not enough balance'],
    ['4000000000000069', 'expired_card', '6', 'Expired Card'],
    ['4000000000000127', 'incorrect_cvc', '24', 'CVC Declined'],
    ['4000000000009987', 'card_declined', '5', 'Blocked Card'],
    ['4000000000000259', 'fraudulent', '20', 'FRAUD'],
  ])('card %s is declined %s (refusalReasonCode %s)', async (number, declineCode, rawCode, message) => {
    const result = await adyen.authorize(w.env, w.terminal, authorizeRequest(number));
    expect(result).toMatchObject({ status: 'declined', declineCode, rawCode, message, rawStatus: 'Refused' });
    expect(result.providerReference).toBeTruthy();
  });

  it('reads resultCode Error as failed processing_error, Received as pending', async () => {
    const error = await adyen.authorize(w.env, w.terminal, authorizeRequest('4000000000000119'));
    expect(error).toMatchObject({ status: 'failed', declineCode: 'processing_error', rawStatus: 'Error', rawCode: '4' });
    const received = await adyen.authorize(w.env, w.terminal, authorizeRequest('4000000000000036'));
    expect(received).toMatchObject({ status: 'pending', rawStatus: 'Received' });
    expect(received.providerReference).toBeTruthy();
  });

  it('reads a 422 validation error as failed with Adyen errorCode', async () => {
    const result = await adyen.authorize(w.env, w.terminal, authorizeRequest('4000000000001234'));
    expect(result).toMatchObject({ status: 'failed', rawCode: '101', declineCode: 'processing_error', message: 'Invalid card number' });
  });

  it('refuses a payment method that is not a card without calling Adyen', async () => {
    const before = w.fake.requests.length;
    await expect(
      adyen.authorize(w.env, w.terminal, { ...authorizeRequest('4111111111111111'), paymentMethod: { type: 'sepa' } }),
    ).rejects.toMatchObject({
      name: 'ConnectorError',
      retryable: false,
    });
    expect(w.fake.requests.length).toBe(before);
  });

  it('answers a replayed reference with the first answer (Idempotency-Key), never a second payment', async () => {
    const request = authorizeRequest('4111111111111111');
    const first = await adyen.authorize(w.env, w.terminal, request);
    const again = await adyen.authorize(w.env, w.terminal, {
      ...request,
      paymentMethod: { type: 'card', card: { number: '4000000000000002', expMonth: 3, expYear: 2030 } },
    });
    expect(again).toEqual(first);
    expect([...w.fake.payments.values()].filter((p) => p.reference === request.reference)).toHaveLength(1);
  });
});

describe('errors without an answer', () => {
  it('a 5xx is a retryable ConnectorError (the outcome is unknown)', async () => {
    w.fake.failOnce(/\/v72\/payments$/, 500);
    const error = await adyen.authorize(w.env, w.terminal, authorizeRequest('4111111111111111')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).retryable).toBe(true);
    expect((error as ConnectorError).message).not.toContain(w.terminal.credentials.apiKey!);
  });

  it('a held answer times out as a retryable ConnectorError, and the same reference then gets one payment', async () => {
    const request = authorizeRequest('4111111111111111');
    w.fake.hold(/\/v72\/payments$/);
    const started = Date.now();
    const error = await adyen.authorize(w.env, w.terminal, request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    const retried = await adyen.authorize(w.env, w.terminal, request);
    expect(retried.status).toBe('succeeded');
  });

  it('401 (a wrong API key) is a ConnectorError that is not retryable', async () => {
    const terminal = { ...w.terminal, credentials: { ...w.terminal.credentials, apiKey: 'AQE_wrong' } };
    const error = await adyen.authorize(w.env, terminal, authorizeRequest('4111111111111111')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).retryable).toBe(false);
    expect((error as ConnectorError).message).not.toContain('AQE_wrong');
  });

  it('403 (another merchant account) is not retryable; a private base URL not allowed is refused before any call', async () => {
    const other = { ...w.terminal, credentials: { ...w.terminal.credentials, merchantAccount: 'SomeoneElseECOM' } };
    await expect(adyen.authorize(w.env, other, authorizeRequest('4111111111111111'))).rejects.toMatchObject({ retryable: false });
    const before = w.fake.requests.length;
    const strict = { ...w.env, config: { ...w.config, connectorAllowCidrs: [] } };
    await expect(adyen.authorize(strict, w.terminal, authorizeRequest('4111111111111111'))).rejects.toMatchObject({
      name: 'ConnectorError',
      retryable: false,
    });
    expect(w.fake.requests.length).toBe(before);
  });
});

describe('3DS by redirect', () => {
  it('answers requires_action with the redirect, then completeAction reads details: pass is succeeded', async () => {
    const request = authorizeRequest('4212345678901245');
    const result = await adyen.authorize(w.env, w.terminal, request);
    expect(result).toMatchObject({ status: 'requires_action', rawStatus: 'RedirectShopper', action: { type: 'redirect' } });
    expect(new URL(result.action!.url).pathname).toMatch(/^\/3ds\//);
    const back = new URL(await w.fake.completeChallenge(result.action!.url, 'pass'));
    expect(back.origin + back.pathname).toBe('https://payplane.example/v1/return/abc');
    const params = Object.fromEntries(back.searchParams);
    const done = await adyen.completeAction(w.env, w.terminal, {
      reference: request.reference,
      providerReference: result.providerReference,
      tenantId: request.tenantId,
      livemode: false,
      params,
    });
    expect(done).toMatchObject({ status: 'succeeded', rawStatus: 'Authorised' });
    expect(done.providerReference).toMatch(/^[0-9A-F]{16}$/);
    const [details] = w.fake
      .requestsTo(/\/v72\/payments\/details$/)
      .filter((r) => (r.body.details as Record<string, string>).redirectResult === params.redirectResult);
    expect(details!.body).toEqual({ details: { redirectResult: params.redirectResult } });
  });

  it('a failed challenge is declined authentication_failed (refusalReasonCode 11)', async () => {
    const request = authorizeRequest('4212345678901245');
    const result = await adyen.authorize(w.env, w.terminal, request);
    const back = new URL(await w.fake.completeChallenge(result.action!.url, 'fail'));
    const done = await adyen.completeAction(w.env, w.terminal, {
      reference: request.reference,
      providerReference: null,
      tenantId: request.tenantId,
      livemode: false,
      params: Object.fromEntries(back.searchParams),
    });
    expect(done).toMatchObject({ status: 'declined', declineCode: 'authentication_failed', rawCode: '11' });
  });

  it('a forced challenge asks Adyen for one (threeDSRequestorChallengeInd 04) and is redirected', async () => {
    const request = authorizeRequest('4111111111111111', { forceThreeDsChallenge: true });
    const result = await adyen.authorize(w.env, w.terminal, request);
    expect(result.status).toBe('requires_action');
    const [sent] = w.fake.requestsTo(/\/v72\/payments$/).filter((r) => r.body.reference === request.reference);
    expect(sent!.body).toMatchObject({
      threeDS2RequestData: { threeDSRequestorChallengeInd: '04' },
      authenticationData: { attemptAuthentication: 'always' },
    });
  });

  it("a return carrying another payment's redirectResult is refused: never this attempt's answer", async () => {
    const mine = authorizeRequest('4212345678901245');
    const theirs = authorizeRequest('4212345678901245');
    await adyen.authorize(w.env, w.terminal, mine);
    const other = await adyen.authorize(w.env, w.terminal, theirs);
    const back = new URL(await w.fake.completeChallenge(other.action!.url, 'pass'));
    const borrowed = adyen.completeAction(w.env, w.terminal, {
      reference: mine.reference,
      providerReference: null,
      tenantId: mine.tenantId,
      livemode: false,
      params: Object.fromEntries(back.searchParams),
    });
    await expect(borrowed).rejects.toMatchObject({ name: 'ConnectorError', retryable: false });
  });

  it('a return without redirectResult is refused before any call; an unknown one is failed with its errorCode', async () => {
    const base = { reference: crypto.randomUUID(), providerReference: null, tenantId: 't', livemode: false };
    await expect(adyen.completeAction(w.env, w.terminal, { ...base, params: {} })).rejects.toMatchObject({ retryable: false });
    const unknown = await adyen.completeAction(w.env, w.terminal, { ...base, params: { redirectResult: 'bogus' } });
    expect(unknown).toMatchObject({ status: 'failed', rawCode: '101' });
  });
});

describe('captures, cancels and refunds', () => {
  it('a capture is answered pending (received), the authorization keeps its reference', async () => {
    const { psp } = await authorized(false);
    const reference = crypto.randomUUID();
    const result = await adyen.capture(w.env, w.terminal, {
      reference,
      providerReference: psp,
      amount: { currency: 'EUR', valueMinor: 2000 },
    });
    expect(result).toEqual({ status: 'pending', providerReference: psp, rawStatus: 'received' });
    const [sent] = w.fake.requestsTo(new RegExp(`/v72/payments/${psp}/captures$`));
    expect(sent!.body).toEqual({ amount: { currency: 'EUR', value: 2000 }, merchantAccount: w.fake.merchantAccount, reference });
    expect(sent!.headers['idempotency-key']).toBe(`capture-${reference}`);
  });

  it('a cancel is answered pending; capture and cancel with the same reference are not confused', async () => {
    const { psp } = await authorized(false);
    const reference = crypto.randomUUID();
    await adyen.capture(w.env, w.terminal, { reference, providerReference: psp, amount: { currency: 'EUR', valueMinor: 100 } });
    const result = await adyen.void(w.env, w.terminal, { reference, providerReference: psp });
    expect(result).toEqual({ status: 'pending', providerReference: psp, rawStatus: 'received' });
    expect(w.fake.modificationsOf(psp, 'cancels')).toHaveLength(1);
    expect(w.fake.requestsTo(new RegExp(`/v72/payments/${psp}/cancels$`))[0]!.headers['idempotency-key']).toBe(`cancel-${reference}`);
  });

  it('several partial refunds: each pending with its own pspReference, a replayed refund is the same refund', async () => {
    const { psp } = await authorized(true);
    const refs = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const results = [];
    for (const reference of refs) {
      results.push(
        await adyen.refund(w.env, w.terminal, {
          reference,
          tenantId: 't',
          livemode: false,
          providerReference: psp,
          amount: { currency: 'EUR', valueMinor: 500 },
        }),
      );
    }
    for (const r of results) expect(r).toMatchObject({ status: 'pending', rawStatus: 'received' });
    const pspRefs = results.map((r) => r.providerReference);
    expect(new Set(pspRefs).size).toBe(3);
    expect(pspRefs).not.toContain(psp);
    expect(w.fake.modificationsOf(psp, 'refunds')).toEqual(pspRefs);
    const replay = await adyen.refund(w.env, w.terminal, {
      reference: refs[0]!,
      tenantId: 't',
      livemode: false,
      providerReference: psp,
      amount: { currency: 'EUR', valueMinor: 500 },
    });
    expect(replay).toEqual(results[0]);
    expect(w.fake.modificationsOf(psp, 'refunds')).toHaveLength(3);
  });

  it('a refund of an unknown payment is failed with its errorCode; a payout is not offered', async () => {
    const result = await adyen.refund(w.env, w.terminal, {
      reference: crypto.randomUUID(),
      tenantId: 't',
      livemode: false,
      providerReference: 'NOPE000000000000',
      amount: { currency: 'EUR', valueMinor: 1 },
    });
    expect(result).toMatchObject({ status: 'failed', rawCode: '167', providerReference: null });
    await expect(
      adyen.payout(w.env, w.terminal, {
        reference: 'p',
        tenantId: 't',
        livemode: false,
        amount: { currency: 'EUR', valueMinor: 1 },
        destination: { type: 'bank', details: {} },
      }),
    ).rejects.toMatchObject({ name: 'ConnectorError', retryable: false });
  });

  it('a 5xx on a refund is retryable', async () => {
    const { psp } = await authorized(true);
    w.fake.failOnce(/\/refunds$/, 503);
    await expect(
      adyen.refund(w.env, w.terminal, {
        reference: crypto.randomUUID(),
        tenantId: 't',
        livemode: false,
        providerReference: psp,
        amount: { currency: 'EUR', valueMinor: 1 },
      }),
    ).rejects.toMatchObject({ name: 'ConnectorError', retryable: true });
  });
});

describe('notifications', () => {
  it('reads AUTHORISATION (success and refusal), answers [accepted], with Adyen duplicate key as eventId', async () => {
    const { psp, reference } = await authorized(false);
    const declined = await adyen.authorize(w.env, w.terminal, authorizeRequest('4000000000009995'));
    const parsed = await parse(
      w.fake.notification(w.fake.authorisation(psp, true), w.fake.authorisation(declined.providerReference!, false, 'Not enough balance')),
    );
    expect(parsed.reply).toEqual({ status: 200, contentType: 'text/plain', body: '[accepted]' });
    expect(parsed.items[0]).toEqual({
      eventId: `AUTHORISATION:${psp}:true`,
      type: 'AUTHORISATION',
      kind: 'outcome',
      operation: 'authorize',
      reference,
      providerReference: psp,
      result: { status: 'succeeded', providerReference: psp, rawStatus: 'Authorised', message: 'Authorised.' },
    });
    expect(parsed.items[1]).toMatchObject({
      eventId: `AUTHORISATION:${declined.providerReference}:false`,
      operation: 'authorize',
      result: { status: 'declined', declineCode: 'insufficient_funds', rawCode: '12' },
    });
  });

  it('reads CAPTURE, CAPTURE_FAILED and CANCELLATION by our reference and the authorization pspReference', async () => {
    const { psp } = await authorized(false);
    const captureRef = crypto.randomUUID();
    await adyen.capture(w.env, w.terminal, {
      reference: captureRef,
      providerReference: psp,
      amount: { currency: 'EUR', valueMinor: 2599 },
    });
    const [capturePsp] = w.fake.modificationsOf(psp, 'captures');
    const voidRef = crypto.randomUUID();
    await adyen.void(w.env, w.terminal, { reference: voidRef, providerReference: psp });
    const [cancelPsp] = w.fake.modificationsOf(psp, 'cancels');
    const parsed = await parse(
      w.fake.notification(
        w.fake.modificationOutcome(capturePsp!),
        w.fake.modificationOutcome(capturePsp!, false, 'CAPTURE_FAILED'),
        w.fake.modificationOutcome(cancelPsp!),
      ),
    );
    expect(parsed.items[0]).toMatchObject({
      eventId: `CAPTURE:${capturePsp}:true`,
      kind: 'outcome',
      operation: 'capture',
      reference: captureRef,
      providerReference: psp,
      result: { status: 'succeeded' },
    });
    expect(parsed.items[1]).toMatchObject({ operation: 'capture', result: { status: 'failed', declineCode: 'capture_failed' } });
    expect(parsed.items[2]).toMatchObject({
      operation: 'void',
      reference: voidRef,
      providerReference: psp,
      result: { status: 'succeeded' },
    });
  });

  it('reads REFUND and REFUND_FAILED: our refund id, the refund pspReference, the payment one as originalReference', async () => {
    const { psp } = await authorized(true);
    const refundId = crypto.randomUUID();
    const refund = await adyen.refund(w.env, w.terminal, {
      reference: refundId,
      tenantId: 't',
      livemode: false,
      providerReference: psp,
      amount: { currency: 'EUR', valueMinor: 700 },
    });
    const parsed = await parse(
      w.fake.notification(
        w.fake.modificationOutcome(refund.providerReference!),
        w.fake.modificationOutcome(refund.providerReference!, false, 'REFUND_FAILED'),
      ),
    );
    expect(parsed.items[0]).toEqual({
      eventId: `REFUND:${refund.providerReference}:true`,
      type: 'REFUND',
      kind: 'outcome',
      operation: 'refund',
      reference: refundId,
      providerReference: refund.providerReference,
      paymentProviderReference: psp,
      result: { status: 'succeeded', providerReference: refund.providerReference, rawStatus: 'REFUND', message: 'Refunded.' },
    });
    expect(parsed.items[1]).toMatchObject({
      operation: 'refund',
      reference: refundId,
      result: { status: 'failed', declineCode: 'refund_failed' },
    });
  });

  it('reads CHARGEBACK as a dispute opened, CHARGEBACK_REVERSED as won, SECOND_CHARGEBACK as lost; others ignored', async () => {
    const { psp } = await authorized(true);
    const opened = w.fake.chargeback(psp, { amount: { currency: 'EUR', value: 2599 }, defensePeriodEndsAt: '2026-12-20T10:15:30+01:00' });
    const noDeadline = w.fake.chargeback(psp, { reason: 'Merchandise/Services Not Received', chargebackReasonCode: '13.1' });
    const noc = w.fake.notificationItem('NOTIFICATION_OF_CHARGEBACK', {
      pspReference: opened.disputePspReference,
      originalReference: psp,
      amount: { currency: 'EUR', value: 2599 },
    });
    const report = w.fake.notificationItem('REPORT_AVAILABLE', { pspReference: 'settlement_detail_report_batch_1.csv' });
    const parsed = await parse(
      w.fake.notification(
        opened.item,
        noDeadline.item,
        w.fake.disputeDecision(opened.disputePspReference, 'won'),
        w.fake.disputeDecision(noDeadline.disputePspReference, 'lost'),
        noc,
        report,
      ),
    );
    expect(parsed.items[0]).toEqual({
      eventId: `CHARGEBACK:${opened.disputePspReference}:true`,
      type: 'CHARGEBACK',
      kind: 'dispute',
      notice: {
        type: 'opened',
        paymentProviderReference: psp,
        providerReference: opened.disputePspReference,
        amount: { currency: 'EUR', valueMinor: 2599 },
        reason: 'fraudulent',
        evidenceDueBy: '2026-12-20T09:15:30.000Z',
      },
    });
    expect(parsed.items[1]).toMatchObject({
      notice: {
        type: 'opened',
        reason: 'product_not_received',
        evidenceDueBy: new Date(w.clock.now().getTime() + 7 * 86_400_000).toISOString(),
      },
    });
    expect(parsed.items[2]).toMatchObject({
      kind: 'dispute',
      notice: { type: 'decided', providerReference: opened.disputePspReference, outcome: 'won' },
    });
    expect(parsed.items[3]).toMatchObject({
      kind: 'dispute',
      notice: { type: 'decided', providerReference: noDeadline.disputePspReference, outcome: 'lost' },
    });
    expect(parsed.items.slice(4).map((i: NotificationItem) => i.kind)).toEqual(['ignored', 'ignored']);
  });

  it('rejects the whole batch when one item is forged, signed with another key, unsigned or of the wrong mode', async () => {
    const { psp } = await authorized(false);
    const good = w.fake.authorisation(psp, true);
    const forged = { ...w.fake.authorisation(psp, true), amount: { currency: 'EUR', value: 1 } };
    await expect(parse(w.fake.notification(good, forged))).rejects.toBeInstanceOf(NotificationRejected);
    const unsigned = { ...good, additionalData: {} };
    await expect(parse(w.fake.notification(unsigned))).rejects.toBeInstanceOf(NotificationRejected);
    const otherKey = { ...w.terminal, credentials: { ...w.terminal.credentials, hmacKey: crypto.randomBytes(32).toString('hex') } };
    const n = w.fake.notification(good);
    await expect(adyen.parseNotification(w.env, otherKey, { headers: n.headers, rawBody: Buffer.from(n.body) })).rejects.toBeInstanceOf(
      NotificationRejected,
    );
    const liveBatch = { ...n.json, live: 'true' };
    await expect(parse({ headers: n.headers, body: JSON.stringify(liveBatch) })).rejects.toBeInstanceOf(NotificationRejected);
    await expect(parse({ headers: n.headers, body: 'not json' })).rejects.toBeInstanceOf(NotificationRejected);
    await expect(parse({ headers: n.headers, body: '{"live":"false","notificationItems":[]}' })).rejects.toBeInstanceOf(
      NotificationRejected,
    );
    await expect(
      parse({ headers: n.headers, body: '{"live":"false","notificationItems":[{"NotificationRequestItem":{"pspReference":1}}]}' }),
    ).rejects.toBeInstanceOf(NotificationRejected);
  });

  it("ignores an item of another merchant account (a company-level webhook's)", async () => {
    const item = w.fake.notificationItem('AUTHORISATION', { pspReference: 'A'.repeat(16), amount: { currency: 'EUR', value: 1 } });
    const terminal = { ...w.terminal, credentials: { ...w.terminal.credentials, merchantAccount: 'OtherECOM' } };
    const n = w.fake.notification(item);
    const parsed = await adyen.parseNotification(w.env, terminal, { headers: n.headers, rawBody: Buffer.from(n.body) });
    expect(parsed.items).toEqual([{ eventId: `AUTHORISATION:${'A'.repeat(16)}:true`, type: 'AUTHORISATION', kind: 'ignored' }]);
  });
});

describe('disputes', () => {
  it('the evidence document is a well-formed PDF: every cross-reference points at its object, text escaped and wrapped', () => {
    const pdf = textPdf(['a (b) \\ c é', 'x '.repeat(200), ...Array.from({ length: 80 }, (_, i) => `line ${i}`)]).toString('latin1');
    const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(pdf)![1]);
    expect(pdf.slice(startxref, startxref + 4)).toBe('xref');
    const entries = pdf
      .slice(startxref)
      .split('\n')
      .filter((l) => / 00000 n $/.test(l));
    expect(entries.length).toBeGreaterThan(4);
    entries.forEach((entry, i) => expect(pdf.slice(Number(entry.slice(0, 10))).startsWith(`${i + 1} 0 obj`)).toBe(true));
    expect(pdf).toContain('(a \\(b\\) \\\\ c ?) Tj');
    expect(pdf).toContain('/Count 2');
    for (const [, length, stream] of pdf.matchAll(/<< \/Length (\d+) >>\nstream\n([\s\S]*?)\nendstream/g)) {
      expect(Buffer.byteLength(stream!, 'latin1')).toBe(Number(length));
    }
  });

  const base = { tenantId: 't', livemode: false, reference: 'dispute-1' };

  it('defends with the evidence as a document, then defendDispute: pending until the decision', async () => {
    const { psp } = await authorized(true);
    const { disputePspReference } = w.fake.chargeback(psp);
    const result = await adyen.disputeEvidence(w.env, w.terminal, {
      ...base,
      providerReference: disputePspReference,
      paymentProviderReference: psp,
      evidence: { productDescription: 'A book', uncategorizedText: 'Delivered on time' },
    });
    expect(result).toEqual({ status: 'pending', providerReference: disputePspReference, rawStatus: 'defended' });
    expect(w.fake.disputes.get(disputePspReference)!.actions).toEqual(['supplyDefenseDocument', 'defendDispute']);
    const [supplied] = w.fake
      .requestsTo(/\/ca\/services\/DisputeService\/v30\/supplyDefenseDocument$/)
      .filter((r) => r.body.disputePspReference === disputePspReference);
    const doc = (supplied!.body.defenseDocuments as Array<Record<string, string>>)[0]!;
    expect(doc.contentType).toBe('application/pdf');
    const pdf = Buffer.from(doc.content!, 'base64').toString('latin1');
    expect(pdf.startsWith('%PDF-1.4')).toBe(true);
    expect(pdf).toContain('(productDescription: A book) Tj');
    expect(pdf).toContain('(uncategorizedText: Delivered on time) Tj');
    expect(doc.defenseDocumentTypeCode).toBe('DefenseMaterial');
    expect(supplied!.body.merchantAccountCode).toBe(w.fake.merchantAccount);
  });

  it('accepts a dispute (succeeded); a second accept or an unknown dispute is declined with Adyen message', async () => {
    const { psp } = await authorized(true);
    const { disputePspReference } = w.fake.chargeback(psp);
    const request = { ...base, providerReference: disputePspReference, paymentProviderReference: psp };
    expect(await adyen.disputeAccept(w.env, w.terminal, request)).toEqual({
      status: 'succeeded',
      providerReference: disputePspReference,
      rawStatus: 'accepted',
    });
    expect(await adyen.disputeAccept(w.env, w.terminal, request)).toMatchObject({
      status: 'declined',
      message: 'Dispute is already closed for defense',
    });
    const unknown = await adyen.disputeAccept(w.env, w.terminal, { ...request, providerReference: 'UNKNOWN000000000' });
    expect(unknown).toMatchObject({ status: 'declined', message: 'Could not find dispute' });
  });
});

describe('checkCredentials and the registry', () => {
  const good = {
    apiKey: 'AQE_key',
    merchantAccount: 'PayplaneECOM',
    hmacKey: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056',
  };

  it.each([
    [{ ...good }, false, null],
    [{ ...good, liveEndpointUrlPrefix: '1797a841fbb37ca7-AdyenDemo' }, true, null],
    [{ ...good }, true, { code: 'CREDENTIALS_MODE_MISMATCH', field: 'liveEndpointUrlPrefix' }],
    [{ ...good, liveEndpointUrlPrefix: 'abc-Company' }, false, { code: 'CREDENTIALS_MODE_MISMATCH', field: 'liveEndpointUrlPrefix' }],
    [{ ...good, liveEndpointUrlPrefix: 'evil.example/x' }, true, { code: 'INVALID_CREDENTIALS', field: 'liveEndpointUrlPrefix' }],
    [{ ...good, hmacKey: 'not-hex' }, false, { code: 'INVALID_CREDENTIALS', field: 'hmacKey' }],
    [{ ...good, hmacKey: 'ABC' }, false, { code: 'INVALID_CREDENTIALS', field: 'hmacKey' }],
    [{ ...good, apiKey: '' }, false, { code: 'INVALID_CREDENTIALS', field: 'apiKey' }],
    [{ merchantAccount: ' ', hmacKey: 'AB', apiKey: 'k' }, false, { code: 'INVALID_CREDENTIALS', field: 'merchantAccount' }],
  ])('%j on livemode %s: %j', (credentials, livemode, expected) => {
    const problem = adyen.checkCredentials(credentials as Record<string, string>, livemode);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toMatchObject(expected);
  });

  it('the registry serves adyen with this connector (no lookup: the notification settles a lost answer)', async () => {
    const registered = connectorFor('adyen');
    expect(registered.kind).toBe('adyen');
    expect(registered.lookup).toBeUndefined();
    expect(registered.checkCredentials!(good, false)).toBeNull();
    const result = await registered.authorize(w.env, w.terminal, authorizeRequest('4111111111111111'));
    expect(result.status).toBe('succeeded');
  });

  it('a live terminal on Adyen default URL without its prefix is refused before any call', async () => {
    const live = { ...w.terminal, livemode: true, connectorBaseUrl: 'https://checkout-test.adyen.com' };
    await expect(adyen.authorize(w.env, live, authorizeRequest('4111111111111111'))).rejects.toMatchObject({
      name: 'ConnectorError',
      retryable: false,
    });
  });

  it("a live terminal on Adyen's default URL talks to the live endpoints of its prefix; another URL keeps the library's versions", () => {
    const live = {
      ...w.terminal,
      livemode: true,
      connectorBaseUrl: 'https://checkout-test.adyen.com',
      credentials: { ...w.terminal.credentials, liveEndpointUrlPrefix: '1797a841fbb37ca7-AdyenDemo' },
    };
    const base = (service: object) => (service as { baseUrl: string }).baseUrl;
    const onLive = adyenServices(w.config, live);
    expect(base(onLive.payments)).toBe('https://1797a841fbb37ca7-AdyenDemo-checkout-live.adyenpayments.com/checkout/v72');
    expect(base(onLive.disputes)).toBe('https://ca-live.adyen.com/ca/services/DisputeService/v30');
    const onTest = adyenServices(w.config, { ...w.terminal, connectorBaseUrl: 'https://checkout-test.adyen.com' });
    expect(base(onTest.modifications)).toBe('https://checkout-test.adyen.com/v72');
    const onFake = adyenServices(w.config, { ...live, connectorBaseUrl: `${w.fake.baseUrl}/` });
    expect(base(onFake.payments)).toBe(`${w.fake.baseUrl}/v72`);
    expect(base(onFake.disputes)).toBe(`${w.fake.baseUrl}/ca/services/DisputeService/v30`);
  });

  it('a live terminal reads live notifications only', async () => {
    const { psp } = await authorized(false);
    const live = { ...w.terminal, livemode: true };
    const n = w.fake.notification(w.fake.authorisation(psp, true));
    await expect(adyen.parseNotification(w.env, live, { headers: n.headers, rawBody: Buffer.from(n.body) })).rejects.toBeInstanceOf(
      NotificationRejected,
    );
    const liveBody = JSON.stringify({ ...n.json, live: 'true' });
    const parsed = await adyen.parseNotification(w.env, live, { headers: n.headers, rawBody: Buffer.from(liveBody) });
    expect(parsed.items[0]).toMatchObject({ kind: 'outcome', operation: 'authorize', providerReference: psp });
  });
});
