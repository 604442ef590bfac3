import { useMoneyHarness, openSession, payWithCard, testCard } from '../helpers/money';
import { eur } from '../helpers/amounts';
import { expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { ConnectorError, connectorFor, registerConnector, type Connector } from '../../src/connectors';
import type { ConnectorResult, LookupRequest } from '../../src/connectors/types';
import { handleProviderOutcome } from '../../src/services/payments/outcomes';
import { OPERATION_MAX_TRIES, PAYMENT_OPERATION_LEASE_MS } from '../../src/services/payments/payments';
import { recoverStalledCalls } from '../../src/services/payments/recovery';
import { LOST_ANSWER_DEADLINE_MS } from '../../src/services/provider-call';
import type { PaymentAttemptRow, PaymentRow } from '../../src/db/models';

/**
 * Answers never lost (issue 34): an authorization or refund whose answer was lost is looked up at its acquirer, never
 * sent again; captures and cancels an acquirer accepts for later are settled by its notification; a late approval is
 * voided durably; a capture whose call cannot start is abandoned after its tries; the acquirer's own codes are kept for
 * tenants. Test connectors: the sandbox acquirer with its operations replaced (registerConnector), counting its calls.
 */

const m = useMoneyHarness({ ledger: 'afterEach' });
const sandboxCard = connectorFor('sandbox-card');
afterEach(() => {
  registerConnector('sandbox-card', sandboxCard);
});

const SANDBOX_PROVIDER = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';
const STALE_MS = 3 * 60_000;
const merchant = () => m.as(m.sandbox.merchantKey.secretKey);
const tenant = () => m.as(m.sandbox.tenantKey.secretKey);
const payment = async (id: string) => (await m.rt.db.models.Payment.findByPk(id))!.get({ plain: true }) as PaymentRow;
const attemptsOf = async (paymentId: string) =>
  (await m.rt.db.models.PaymentAttempt.findAll({ where: { paymentId }, order: [['sequence', 'ASC']] })).map(
    (a) => a.get({ plain: true }) as PaymentAttemptRow,
  );

type Operation = 'authorize' | 'capture' | 'void' | 'refund';
type Calls = Record<Operation, string[]> & { lookup: LookupRequest[] };
type Replacement = (request: { reference: string }, original: () => Promise<ConnectorResult>) => Promise<ConnectorResult>;

/** The sandbox acquirer with some operations replaced (`lookup: null`: it offers no look-up); every call counted. */
function acquirer(
  replaced: Partial<Record<Operation, Replacement>> & { lookup?: ((request: LookupRequest) => Promise<ConnectorResult | null>) | null },
): Calls {
  const calls: Calls = { authorize: [], capture: [], void: [], refund: [], lookup: [] };
  const connector = Object.create(sandboxCard) as Connector;
  for (const operation of ['authorize', 'capture', 'void', 'refund'] as const) {
    connector[operation] = async (env: never, terminal: never, request: { reference: string }) => {
      calls[operation].push(request.reference);
      const original = () =>
        (sandboxCard[operation] as (...args: unknown[]) => Promise<ConnectorResult>).call(sandboxCard, env, terminal, request);
      const own = replaced[operation];
      return own ? own(request, original) : original();
    };
  }
  if (replaced.lookup === null) Object.defineProperty(connector, 'lookup', { value: undefined });
  else
    connector.lookup = async (env, terminal, request) => {
      calls.lookup.push(request);
      return replaced.lookup ? replaced.lookup(request) : sandboxCard.lookup!(env, terminal, request);
    };
  registerConnector('sandbox-card', connector);
  return calls;
}

const timeout = async (): Promise<never> => {
  throw new ConnectorError('connector authorize call failed: TimeoutError', true);
};

/** A payment whose one attempt's answer was lost (pending, no provider reference); `crash`: its request died (500). */
async function lostAuthorization(captureMethod: 'automatic' | 'manual' = 'automatic', crash = false) {
  const session = await openSession(m, {
    amount: eur(10_000),
    captureMethod,
    successUrl: 'https://shop.example/ok',
    cancelUrl: 'https://shop.example/cancel',
  });
  const completed = await merchant().post(`/v1/checkout-sessions/${session.id}/complete`, {
    paymentMethod: { type: 'card', card: testCard('4242424242424242') },
  });
  expect(completed.status).toBe(crash ? 500 : 200);
  const [row] = (await m.rt.db.models.Payment.findAll({ where: { checkoutSessionId: session.id } })).map(
    (p) => p.get({ plain: true }) as PaymentRow,
  );
  const [attempt] = await attemptsOf(row.id);
  expect(attempt).toMatchObject({ status: 'pending', providerReference: null });
  expect(row.status).toBe('processing');
  return { paymentId: row.id, attempt };
}

const approval = (providerReference: string): ConnectorResult => ({ status: 'succeeded', providerReference, rawStatus: 'Authorised' });

describe(`answers never lost (${dialectName})`, () => {
  beforeAll(async () => {
    // a second sandbox terminal for the cascade, and cascading on for the merchant's checkout profile
    const profiles = await tenant().get(`/v1/admin/integration-profiles?merchantId=${m.sandbox.merchantId}`);
    await tenant().patch(`/v1/admin/integration-profiles/${profiles.body.data[0].id}`, { cascadingEnabled: true });
  });

  test('an authorization lost to a timeout is settled by the look-up, never sent again', async () => {
    const calls = acquirer({ authorize: timeout, lookup: async (request) => approval(`acq-${request.reference}`) });
    const { paymentId, attempt } = await lostAuthorization();
    expect(await recoverStalledCalls(m.rt)).toBe(0); // not stale yet
    m.clock.advance(STALE_MS);
    expect(await recoverStalledCalls(m.rt)).toBe(1);
    expect(await recoverStalledCalls(m.rt)).toBe(0);
    expect(calls.authorize).toEqual([attempt.id]);
    expect(calls.lookup).toEqual([
      expect.objectContaining({
        operation: 'authorize',
        reference: attempt.id,
        providerReference: null,
        amount: { currency: 'EUR', valueMinor: 10_000 },
      }),
    ]);
    expect(await payment(paymentId)).toMatchObject({ status: 'captured', providerReference: `acq-${attempt.id}` });
    expect(Number((await payment(paymentId)).capturedMinor)).toBe(10_000);
    expect((await attemptsOf(paymentId)).map((a) => a.status)).toEqual(['succeeded']);
  });

  test("a crash between the call and its record is settled the same way; the acquirer's own code is kept for tenants, not merchants", async () => {
    const calls = acquirer({
      authorize: async () => {
        throw new Error('process died after the provider was called');
      },
      lookup: async (request) => ({
        status: 'declined',
        providerReference: `acq-${request.reference}`,
        rawStatus: 'Refused',
        declineCode: 'insufficient_funds',
        rawCode: '51',
        message: 'Not enough balance',
      }),
    });
    const { paymentId, attempt } = await lostAuthorization('automatic', true);
    m.clock.advance(STALE_MS);
    expect(await recoverStalledCalls(m.rt)).toBe(1);
    expect(calls.authorize).toEqual([attempt.id]);
    expect((await attemptsOf(paymentId))[0]).toMatchObject({
      status: 'declined',
      declineCode: 'insufficient_funds',
      providerDeclineCode: '51',
    });
    const seenByTenant = (await tenant().get(`/v1/payments/${paymentId}`)).body.data;
    expect(seenByTenant).toMatchObject({ status: 'failed', errorCode: 'insufficient_funds', providerDeclineCode: '51' });
    const seenByMerchant = (await merchant().get(`/v1/payments/${paymentId}`)).body.data;
    expect(seenByMerchant).toMatchObject({ status: 'failed', errorCode: 'insufficient_funds' });
    expect(seenByMerchant).not.toHaveProperty('providerDeclineCode');
    expect(seenByMerchant).not.toHaveProperty('lastOperationError');
  });

  test("the sandbox acquirer's own look-up finds an authorization it got before the process died: settled by its delivery", async () => {
    const calls = acquirer({
      authorize: async (_request, original) => {
        await original();
        throw new Error('process died after the provider was called');
      },
    });
    const { paymentId, attempt } = await lostAuthorization('automatic', true);
    m.clock.advance(STALE_MS);
    expect(await recoverStalledCalls(m.rt)).toBe(1);
    expect(calls.lookup).toEqual([expect.objectContaining({ operation: 'authorize', reference: attempt.id })]);
    // found still scheduled at the acquirer: its reference recorded, its answer delivered as usual
    expect((await attemptsOf(paymentId))[0]).toMatchObject({ status: 'pending', providerReference: expect.stringMatching(/^sbx/) });
    await m.settle();
    expect((await payment(paymentId)).status).toBe('captured');
    expect(calls.authorize).toEqual([attempt.id]);
  });

  test('a refund lost to a timeout is settled by the look-up, never sent again', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242');
    const calls = acquirer({
      refund: async () => {
        throw new ConnectorError('connector refund call failed: TimeoutError', true);
      },
      lookup: async (request) => ({ status: 'succeeded', providerReference: `re-${request.reference}`, rawStatus: 'succeeded' }),
    });
    const created = await merchant().post(`/v1/payments/${paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 2_500 } });
    expect([created.status, created.body.data.status]).toEqual([201, 'pending']);
    m.clock.advance(STALE_MS);
    expect(await recoverStalledCalls(m.rt)).toBe(1);
    expect(calls.refund).toEqual([created.body.data.id]);
    expect(calls.lookup).toEqual([
      expect.objectContaining({ operation: 'refund', reference: created.body.data.id, providerReference: expect.any(String) }),
    ]);
    expect((await merchant().get(`/v1/refunds/${created.body.data.id}`)).body.data.status).toBe('succeeded');
    const row = await payment(paymentId);
    expect([row.status, Number(row.refundedMinor), Number(row.refundPendingMinor)]).toEqual(['partially_refunded', 2_500, 0]);
  });

  test('unknown at the provider: the attempt fails as provider_unavailable and cascades to the next terminal', async () => {
    const backup = await tenant().post('/v1/admin/terminals', {
      providerIntegrationId: SANDBOX_PROVIDER,
      name: 'Backup',
      supportedCurrencies: ['EUR'],
      credentials: { merchantAccount: 'backup', apiKey: 'k' },
    });
    expect(backup.status).toBe(201);
    try {
      const calls = acquirer({ authorize: timeout, lookup: async () => null });
      const { paymentId, attempt } = await lostAuthorization();
      // the next terminal answers (the sandbox acquirer's own authorize)
      acquirer({ lookup: async () => null });
      m.clock.advance(STALE_MS);
      expect(await recoverStalledCalls(m.rt)).toBe(1);
      await m.settle();
      expect(calls.authorize).toEqual([attempt.id]);
      const attempts = await attemptsOf(paymentId);
      expect(attempts.map((a) => [a.status, a.declineCode])).toEqual([
        ['failed', 'provider_unavailable'],
        ['succeeded', null],
      ]);
      expect(attempts[1].terminalId).toBe(backup.body.data.id);
      expect((await payment(paymentId)).status).toBe('captured');
    } finally {
      // the backup terminal leaves the routing of the other tests
      await m.rt.db.models.Terminal.destroy({ where: { id: backup.body.data.id } });
    }
  });

  test('an acquirer without a look-up is waited for: its notification settles the attempt; past the deadline it fails', async () => {
    const calls = acquirer({ authorize: timeout, lookup: null });
    const waited = await lostAuthorization('manual');
    const overdue = await lostAuthorization('manual');
    m.clock.advance(STALE_MS);
    expect(await recoverStalledCalls(m.rt)).toBe(0);
    expect((await attemptsOf(waited.paymentId))[0]).toMatchObject({ status: 'pending', providerReference: null });
    // the acquirer's notification of the first
    await handleProviderOutcome(m.rt, {
      providerIntegrationId: SANDBOX_PROVIDER,
      operation: 'authorize',
      reference: waited.attempt.id,
      providerReference: 'psp-waited',
      tenantId: m.sandbox.tenantId,
      livemode: false,
      result: approval('psp-waited'),
    });
    expect(await payment(waited.paymentId)).toMatchObject({ status: 'requires_capture', providerReference: 'psp-waited' });
    // the second never notified: failed once the deadline passed (no look-up, no notification)
    m.clock.advance(LOST_ANSWER_DEADLINE_MS);
    expect(await recoverStalledCalls(m.rt)).toBe(1);
    expect(await payment(overdue.paymentId)).toMatchObject({ status: 'failed', errorCode: 'provider_unavailable' });
    expect(calls.authorize).toEqual([waited.attempt.id, overdue.attempt.id]);
  });

  /** A payment canceled while its authorization was pending, then approved by the acquirer after all (a late approval). */
  async function lateApproval(): Promise<{ paymentId: string; attemptId: string }> {
    const paid = await payWithCard(m, '4242424242424242', { captureMethod: 'manual', settle: false });
    const [attempt] = await attemptsOf(paid.paymentId);
    expect((await merchant().post(`/v1/payments/${paid.paymentId}/cancel`)).body.data.status).toBe('voided');
    await handleProviderOutcome(m.rt, {
      providerIntegrationId: SANDBOX_PROVIDER,
      operation: 'authorize',
      reference: attempt.id,
      providerReference: `late-${attempt.id}`,
      tenantId: m.sandbox.tenantId,
      livemode: false,
      result: approval(`late-${attempt.id}`),
    });
    return { paymentId: paid.paymentId, attemptId: attempt.id };
  }
  const pendingAuthorization = async (request: { reference: string }): Promise<ConnectorResult> => ({
    status: 'pending',
    providerReference: `late-${request.reference}`,
    rawStatus: 'RECEIVED',
  });

  test("a late approval's void accepted for later is done by its notification", async () => {
    const calls = acquirer({
      authorize: pendingAuthorization,
      void: async () => ({ status: 'pending', providerReference: null, rawStatus: 'received' }),
    });
    const { paymentId, attemptId } = await lateApproval();
    expect(calls.void).toEqual([attemptId]);
    expect((await attemptsOf(paymentId))[0]).toMatchObject({ lateVoidStatus: 'pending', lateVoidTries: 1, lateVoidError: null });
    // its notification awaited: nothing sent meanwhile
    m.clock.advance(60 * 60_000);
    await recoverStalledCalls(m.rt);
    expect(calls.void).toEqual([attemptId]);
    await handleProviderOutcome(m.rt, {
      providerIntegrationId: SANDBOX_PROVIDER,
      operation: 'void',
      reference: attemptId,
      providerReference: `late-${attemptId}`,
      tenantId: m.sandbox.tenantId,
      livemode: false,
      result: { status: 'succeeded', providerReference: `late-${attemptId}`, rawStatus: 'CANCELLATION' },
    });
    expect((await attemptsOf(paymentId))[0]).toMatchObject({ lateVoidStatus: 'done', lateVoidNextAt: null });
  });

  test("a late approval's void that keeps failing is given up after its tries, the reason kept", async () => {
    const calls = acquirer({
      authorize: pendingAuthorization,
      void: async () => ({
        status: 'failed',
        providerReference: null,
        declineCode: 'processing_error',
        rawCode: '905',
        message: 'Unavailable',
      }),
    });
    const { paymentId, attemptId } = await lateApproval();
    for (let i = 0; i < 10; i++) {
      m.clock.advance(60 * 60_000);
      await recoverStalledCalls(m.rt);
    }
    expect(calls.void).toEqual(Array.from({ length: 5 }, () => attemptId));
    expect((await attemptsOf(paymentId))[0]).toMatchObject({
      lateVoidStatus: 'failed',
      lateVoidTries: 5,
      lateVoidNextAt: null,
      lateVoidError: expect.stringMatching(
        /given up after 5 tries: the provider refused the void \(processing_error \/ 905\): Unavailable/,
      ),
    });
  });

  test('a late approval after a cancel is voided: retried after the void fails once, done once', async () => {
    let voids = 0;
    const calls = acquirer({
      authorize: async (request) => ({ status: 'pending', providerReference: `late-${request.reference}`, rawStatus: 'RECEIVED' }),
      void: async () => {
        voids++;
        if (voids === 1) throw new ConnectorError('connector void call failed: TimeoutError', true);
        return { status: 'succeeded', providerReference: null, rawStatus: 'CANCELLED' };
      },
    });
    // canceled, then the acquirer approves after all
    const late = await lateApproval();
    const paid = { paymentId: late.paymentId };
    const attempt = { id: late.attemptId };
    expect(calls.void).toEqual([attempt.id]);
    expect((await attemptsOf(paid.paymentId))[0]).toMatchObject({
      status: 'succeeded',
      lateVoidStatus: 'pending',
      lateVoidTries: 1,
      lateVoidError: expect.stringContaining('TimeoutError'),
    });
    expect(await recoverStalledCalls(m.rt)).toBe(0); // its backoff holds
    m.clock.advance(61_000);
    expect(await recoverStalledCalls(m.rt)).toBe(1);
    m.clock.advance(10 * 60_000);
    expect(await recoverStalledCalls(m.rt)).toBe(0);
    expect(calls.void).toEqual([attempt.id, attempt.id]);
    expect((await attemptsOf(paid.paymentId))[0]).toMatchObject({ lateVoidStatus: 'done', lateVoidTries: 2, lateVoidError: null });
    expect((await payment(paid.paymentId)).status).toBe('voided');
  });

  test('a capture answered pending leaves the payment unchanged (200); its notification captures and books it once', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    const calls = acquirer({ capture: async () => ({ status: 'pending', providerReference: null, rawStatus: 'received' }) });
    const mark = m.events().length;
    const answered = await merchant().post(`/v1/payments/${paymentId}/capture`, {});
    expect(answered.status).toBe(200);
    expect(answered.body.data.status).toBe('requires_capture');
    expect((await tenant().get(`/v1/payments/${paymentId}`)).body.data).toMatchObject({
      status: 'requires_capture',
      providerStatus: 'capture_pending',
    });
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/cancel`), 409, 'PAYMENT_OPERATION_IN_PROGRESS');
    const accepted = await payment(paymentId);
    expect(accepted.pendingOperation).toMatchObject({ kind: 'capture', acceptedAt: expect.any(String) });
    // sent with the operation's own id as reference
    expect(calls.capture).toEqual([accepted.pendingOperation!.id]);
    const notification = {
      providerIntegrationId: SANDBOX_PROVIDER,
      operation: 'capture' as const,
      reference: accepted.pendingOperation!.reference!,
      providerReference: accepted.providerReference!,
      tenantId: m.sandbox.tenantId,
      livemode: false,
      result: { status: 'succeeded' as const, providerReference: accepted.providerReference, rawStatus: 'CAPTURE' },
    };
    await handleProviderOutcome(m.rt, notification);
    await handleProviderOutcome(m.rt, notification);
    const captured = await payment(paymentId);
    expect(captured).toMatchObject({ status: 'captured', pendingOperation: null });
    expect(Number(captured.capturedMinor)).toBe(10_000);
    await m.settle();
    const types = m
      .events()
      .slice(mark)
      .filter((e) => e.data.id === paymentId)
      .map((e) => e.type)
      .sort();
    expect(types).toEqual(['payment.captured', 'payment.succeeded']);
    const postings = await m.rt.db.models.LedgerEntry.count({ where: { sourceId: paymentId } });
    expect(postings).toBeGreaterThan(0);
    // the notification applied again booked nothing more
    await handleProviderOutcome(m.rt, notification);
    expect(await m.rt.db.models.LedgerEntry.count({ where: { sourceId: paymentId } })).toBe(postings);
  });

  test('an accepted capture whose notification is overdue is looked up and captured', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    const calls = acquirer({
      capture: async () => ({ status: 'pending', providerReference: null, rawStatus: 'received' }),
      lookup: async (request) =>
        request.operation === 'capture'
          ? { status: 'succeeded', providerReference: request.providerReference, rawStatus: 'CAPTURED' }
          : null,
    });
    expect((await merchant().post(`/v1/payments/${paymentId}/capture`, {})).body.data.status).toBe('requires_capture');
    const accepted = await payment(paymentId);
    m.clock.advance(PAYMENT_OPERATION_LEASE_MS + 1_000);
    expect(await recoverStalledCalls(m.rt)).toBe(0); // its notification's wait still holds
    m.clock.advance(24 * 60 * 60_000);
    expect(await recoverStalledCalls(m.rt)).toBe(1);
    expect(calls.capture).toHaveLength(1);
    expect(calls.lookup).toEqual([
      expect.objectContaining({
        operation: 'capture',
        reference: accepted.pendingOperation!.id,
        providerReference: accepted.providerReference,
      }),
    ]);
    const captured = await payment(paymentId);
    expect([captured.status, Number(captured.capturedMinor), captured.pendingOperation]).toEqual(['captured', 10_000, null]);
  });

  test('a cancel answered pending and then refused in its notification: the payment unchanged, the reason kept and audited', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    acquirer({ void: async () => ({ status: 'pending', providerReference: null, rawStatus: 'received' }), lookup: null });
    expect((await merchant().post(`/v1/payments/${paymentId}/cancel`)).body.data.status).toBe('requires_capture');
    const accepted = await payment(paymentId);
    // its notification overdue and no look-up offered: it keeps waiting
    m.clock.advance(25 * 60 * 60_000);
    await recoverStalledCalls(m.rt);
    expect((await payment(paymentId)).pendingOperation).toMatchObject({ id: accepted.pendingOperation!.id });
    await handleProviderOutcome(m.rt, {
      providerIntegrationId: SANDBOX_PROVIDER,
      operation: 'void',
      reference: accepted.pendingOperation!.reference!,
      providerReference: accepted.providerReference!,
      tenantId: m.sandbox.tenantId,
      livemode: false,
      result: { status: 'failed', providerReference: accepted.providerReference, rawCode: 'NOT_CANCELLABLE', message: 'Already settled' },
    });
    expect(await payment(paymentId)).toMatchObject({ status: 'requires_capture', pendingOperation: null, pendingOperationUntil: null });
    const seen = (await tenant().get(`/v1/payments/${paymentId}`)).body.data;
    expect(seen.lastOperationError).toMatch(/cancel .* was refused by the provider \(NOT_CANCELLABLE\): Already settled/);
    expect(seen.providerStatus).toBe('void_refused');
    expect(await m.rt.db.models.AuditEntry.count({ where: { targetId: paymentId, action: 'payment.operation_refused' } })).toBe(1);
    // it may be canceled again, and the earlier failure is no longer shown
    registerConnector('sandbox-card', sandboxCard);
    expect((await merchant().post(`/v1/payments/${paymentId}/cancel`)).body.data.status).toBe('voided');
    expect((await payment(paymentId)).lastOperationError).toBeNull();
  });

  test('a capture whose credentials cannot be opened stops after 5 tries, the reason visible to tenants', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    const row = await payment(paymentId);
    const terminal = (await m.rt.db.models.Terminal.findByPk(row.terminalId!))!.get({ plain: true }) as { credentialBindingId: string };
    const Binding = m.rt.db.models.CredentialBinding;
    const binding = (await Binding.findByPk(terminal.credentialBindingId))!.get({ plain: true }) as { credentialsSealed: string };
    const calls = acquirer({});
    await Binding.update({ credentialsSealed: 'not-a-sealed-value' }, { where: { id: terminal.credentialBindingId } });
    try {
      const first = await merchant().post(`/v1/payments/${paymentId}/capture`, {});
      expect(first.status).toBeGreaterThanOrEqual(500);
      for (let tries = 1; tries < OPERATION_MAX_TRIES; tries++) {
        m.clock.advance(PAYMENT_OPERATION_LEASE_MS + 1_000);
        expect(await recoverStalledCalls(m.rt)).toBe(0);
        expect((await payment(paymentId)).pendingOperation).toMatchObject({ kind: 'capture', tries, lastError: expect.any(String) });
      }
      m.clock.advance(PAYMENT_OPERATION_LEASE_MS + 1_000);
      expect(await recoverStalledCalls(m.rt)).toBe(1);
      m.clock.advance(PAYMENT_OPERATION_LEASE_MS + 1_000);
      expect(await recoverStalledCalls(m.rt)).toBe(0);
    } finally {
      await Binding.update({ credentialsSealed: binding.credentialsSealed }, { where: { id: terminal.credentialBindingId } });
    }
    expect(calls.capture).toEqual([]);
    expect(await payment(paymentId)).toMatchObject({ status: 'requires_capture', pendingOperation: null, pendingOperationUntil: null });
    const seen = (await tenant().get(`/v1/payments/${paymentId}`)).body.data;
    expect(seen.lastOperationError).toMatch(/capture .* was abandoned after 5 tries/);
    expect(seen.lastOperationError).not.toContain('not-a-sealed-value');
    expect(await m.rt.db.models.AuditEntry.count({ where: { targetId: paymentId, action: 'payment.operation_abandoned' } })).toBe(1);
    // the credentials back, it is captured
    expect((await merchant().post(`/v1/payments/${paymentId}/capture`, {})).body.data.status).toBe('captured');
  });
});
