import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { createTestRuntime, dialectName, type TestRuntime } from '../helpers/db';
import { ManualClock } from '../../src/domain/clock';
import {
  connectorFor,
  ConnectorError,
  SandboxCardConnector,
  SandboxPayoutConnector,
  type ConnectorEnv,
  type ConnectorTerminal,
  type ProviderOutcome,
} from '../../src/connectors';
import { runDueSandboxOperations, startSandboxWorker } from '../../src/services/sandbox/acquirer';
import { handleProviderOutcome } from '../../src/services/payments/outcomes';
import type { SandboxOperationRow } from '../../src/db/models';

jest.mock('../../src/services/payments/outcomes', () => ({ handleProviderOutcome: jest.fn() }));
const handler = handleProviderOutcome as jest.MockedFunction<typeof handleProviderOutcome>;

const CARD = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';
const DELAY = 300;
let t: TestRuntime;
let clock: ManualClock;
let env: ConnectorEnv;
const connector = connectorFor('sandbox-card');
const terminal: ConnectorTerminal = {
  terminalId: crypto.randomUUID(),
  providerIntegrationId: CARD,
  connectorBaseUrl: 'https://connectors.payplane.local/sandbox-card',
  livemode: false,
  credentials: { merchantAccount: 'm', apiKey: 'k' },
  mcc: '5999',
  descriptor: null,
};
const tenantId = crypto.randomUUID();

beforeAll(async () => {
  clock = new ManualClock('2026-03-01T12:00:00.000Z');
  t = await createTestRuntime({ clock, config: { sandboxDelayMs: DELAY, publicBaseUrl: 'https://pay.example' } });
  env = { db: t.rt.db, clock, config: t.rt.config };
});
afterAll(() => t.close());
beforeEach(() => {
  handler.mockReset();
  handler.mockResolvedValue(undefined);
});

function authorize(number: string, extra: { capture?: boolean; reference?: string; amount?: number } = {}) {
  return connector.authorize(env, terminal, {
    reference: extra.reference ?? crypto.randomUUID(),
    tenantId,
    livemode: false,
    returnUrl: 'https://shop.example/return',
    amount: { currency: 'EUR', valueMinor: extra.amount ?? 1000 },
    capture: extra.capture ?? true,
    paymentMethod: { type: 'card', card: { number, expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ada' } },
  });
}

/** Advances the clock by the acquirer's delay and delivers what is due: the outcomes the handler received. */
async function settle(): Promise<ProviderOutcome[]> {
  clock.advance(DELAY);
  await runDueSandboxOperations(t.rt);
  return handler.mock.calls.map((c) => c[1]);
}

async function operations(): Promise<SandboxOperationRow[]> {
  return (await t.rt.db.models.SandboxOperation.findAll()).map((r) => r.get({ plain: true }) as SandboxOperationRow);
}

const cases: [string, Record<string, unknown>][] = [
  ['4242424242424242', { status: 'succeeded', rawStatus: 'CAPTURED' }],
  ['5555555555554444', { status: 'succeeded' }],
  ['4000000000000002', { status: 'declined', declineCode: 'card_declined' }],
  ['4000000000009995', { status: 'declined', declineCode: 'insufficient_funds' }],
  ['4000000000009987', { status: 'declined', declineCode: 'lost_card' }],
  ['4000000000000069', { status: 'declined', declineCode: 'expired_card' }],
  ['4000000000000127', { status: 'declined', declineCode: 'incorrect_cvc' }],
  ['4000000000000119', { status: 'failed', declineCode: 'processing_error' }],
  [
    '4000000000003220',
    {
      status: 'succeeded',
      threeDSResult: expect.objectContaining({
        status: 'authenticated',
        challengeFlow: 'frictionless',
        challenged: false,
        liabilityShift: true,
      }),
    },
  ],
  ['4000000000000077', { status: 'succeeded', fundsAvailableImmediately: true }],
  ['4000000000005126', { status: 'succeeded' }],
  ['4111111111111111', { status: 'declined', declineCode: 'card_not_supported' }],
  ['378282246310005', { status: 'declined', declineCode: 'card_not_supported' }],
];

describe(`sandbox card acquirer (${dialectName})`, () => {
  test('the registry serves the sandbox providers in-process', () => {
    expect(connectorFor('sandbox-card')).toBeInstanceOf(SandboxCardConnector);
    expect(connectorFor('sandbox-payout')).toBeInstanceOf(SandboxPayoutConnector);
  });

  test.each(cases)('card %s: pending now, its outcome delivered asynchronously once the delay has passed', async (number, expected) => {
    const reference = crypto.randomUUID();
    const answer = await authorize(number, { reference });
    expect(answer).toEqual({ status: 'pending', providerReference: expect.stringMatching(/^sbx_[0-9a-f]{24}$/), rawStatus: 'RECEIVED' });

    // not due before now + delay
    clock.advance(DELAY - 1);
    expect(await runDueSandboxOperations(t.rt)).toBe(0);
    expect(handler).not.toHaveBeenCalled();

    clock.advance(1);
    expect(await runDueSandboxOperations(t.rt)).toBe(1);
    expect(handler).toHaveBeenCalledTimes(1);
    const [rt, outcome] = handler.mock.calls[0];
    expect(rt).toBe(t.rt);
    expect(outcome).toEqual({
      providerIntegrationId: CARD,
      operation: 'authorize',
      reference,
      providerReference: answer.providerReference,
      tenantId,
      livemode: false,
      result: expect.objectContaining({ providerReference: answer.providerReference, ...expected }),
    });
    if (expected.status !== 'succeeded' || number === '4242424242424242' || number === '4000000000000077') {
      expect(outcome.result.threeDSResult).toBeUndefined();
    }
    // delivered once: nothing more to do
    clock.advance(60_000);
    expect(await runDueSandboxOperations(t.rt)).toBe(0);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  test('manual capture: the authorization is approved without capture, then capture and void answer synchronously', async () => {
    const auth = await authorize('4242424242424242', { capture: false, amount: 5000 });
    const [outcome] = await settle();
    expect(outcome.result).toMatchObject({ status: 'succeeded', rawStatus: 'AUTHORISED' });
    const ref = auth.providerReference!;
    await expect(
      connector.capture(env, terminal, { reference: 'c1', providerReference: ref, amount: { currency: 'EUR', valueMinor: 5001 } }),
    ).resolves.toMatchObject({ status: 'failed', declineCode: 'amount_exceeds_authorized' });
    await expect(
      connector.capture(env, terminal, { reference: 'c1', providerReference: ref, amount: { currency: 'EUR', valueMinor: 4000 } }),
    ).resolves.toEqual({ status: 'succeeded', providerReference: ref, rawStatus: 'CAPTURED', message: 'Captured.' });
    await expect(connector.void(env, terminal, { reference: 'v1', providerReference: ref })).resolves.toMatchObject({
      status: 'succeeded',
      providerReference: ref,
    });
    // a capture of a declined authorization or of an unknown reference fails (never invented)
    const declined = await authorize('4000000000000002');
    await settle();
    await expect(
      connector.capture(env, terminal, {
        reference: 'c2',
        providerReference: declined.providerReference!,
        amount: { currency: 'EUR', valueMinor: 1000 },
      }),
    ).resolves.toMatchObject({ status: 'failed', declineCode: 'payment_not_authorized' });
    await expect(connector.void(env, terminal, { reference: 'v2', providerReference: 'sbx_unknown' })).resolves.toMatchObject({
      status: 'failed',
      declineCode: 'payment_not_found',
    });
    // the funds-at-once card says so at capture too
    const instant = await authorize('4000000000000077', { capture: false });
    await settle();
    await expect(
      connector.capture(env, terminal, {
        reference: 'c3',
        providerReference: instant.providerReference!,
        amount: { currency: 'EUR', valueMinor: 1000 },
      }),
    ).resolves.toMatchObject({ status: 'succeeded', fundsAvailableImmediately: true });
  });

  test("refunds: pending, then succeeded asynchronously; a 4000000000005126 payment's refund fails asynchronously", async () => {
    const good = await authorize('4242424242424242');
    const bad = await authorize('4000000000005126');
    await settle();
    handler.mockClear();

    const refundOf = (providerReference: string, valueMinor = 400) =>
      connector.refund(env, terminal, {
        reference: crypto.randomUUID(),
        tenantId,
        livemode: false,
        providerReference,
        amount: { currency: 'EUR', valueMinor },
      });
    const r1 = await refundOf(good.providerReference!);
    const r2 = await refundOf(bad.providerReference!);
    expect(r1).toEqual({ status: 'pending', providerReference: expect.stringMatching(/^sbxrf_/), rawStatus: 'RECEIVED' });
    expect(r2).toMatchObject({ status: 'pending' });
    expect(await runDueSandboxOperations(t.rt)).toBe(0);

    const outcomes = await settle();
    expect(outcomes).toHaveLength(2);
    const byRef = new Map(outcomes.map((o) => [o.providerReference, o]));
    expect(byRef.get(r1.providerReference!)).toMatchObject({
      operation: 'refund',
      tenantId,
      providerIntegrationId: CARD,
      result: { status: 'succeeded' },
    });
    expect(byRef.get(r2.providerReference!)).toMatchObject({
      operation: 'refund',
      result: { status: 'failed', declineCode: 'refund_failed' },
    });

    // a refund the acquirer cannot make is refused at once
    await expect(refundOf('sbx_unknown')).resolves.toMatchObject({ status: 'failed', declineCode: 'payment_not_found' });
    await expect(refundOf(good.providerReference!, 1001)).resolves.toMatchObject({
      status: 'failed',
      declineCode: 'amount_exceeds_payment',
    });
  });

  test('one reference, one operation: a repeated authorize or refund answers the same provider reference', async () => {
    const reference = crypto.randomUUID();
    const [a, b] = await Promise.all([authorize('4242424242424242', { reference }), authorize('4242424242424242', { reference })]);
    expect(a.providerReference).toBe(b.providerReference);
    const again = await authorize('4242424242424242', { reference });
    expect(again.providerReference).toBe(a.providerReference);
    expect((await operations()).filter((o) => o.reference === reference)).toHaveLength(1);
    const outcomes = await settle();
    expect(outcomes.filter((o) => o.reference === reference)).toHaveLength(1);

    const refund = {
      reference: crypto.randomUUID(),
      tenantId,
      livemode: false,
      providerReference: a.providerReference!,
      amount: { currency: 'EUR', valueMinor: 100 },
    };
    const [r1, r2] = await Promise.all([connector.refund(env, terminal, refund), connector.refund(env, terminal, refund)]);
    expect(r1).toMatchObject({ status: 'pending' });
    expect(r2.providerReference).toBe(r1.providerReference);
    expect((await connector.refund(env, terminal, refund)).providerReference).toBe(r1.providerReference);
    expect((await operations()).filter((o) => o.reference === refund.reference)).toHaveLength(1);
    handler.mockClear();
    expect((await settle()).map((o) => o.reference)).toEqual([refund.reference]);
  });

  test('sandbox only: a live-mode authorize or refund is a ConnectorError', async () => {
    await expect(
      connector.authorize(env, terminal, {
        reference: crypto.randomUUID(),
        tenantId,
        livemode: true,
        amount: { currency: 'EUR', valueMinor: 1 },
        capture: true,
        paymentMethod: { type: 'card', card: { number: '4242424242424242', expMonth: 12, expYear: 2030 } },
      }),
    ).rejects.toBeInstanceOf(ConnectorError);
    await expect(
      connector.refund(env, terminal, {
        reference: 'r',
        tenantId,
        livemode: true,
        providerReference: 'x',
        amount: { currency: 'EUR', valueMinor: 1 },
      }),
    ).rejects.toBeInstanceOf(ConnectorError);
  });

  test('claims: two workers running at once deliver each due outcome exactly once', async () => {
    const references = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const reference = crypto.randomUUID();
      references.add(reference);
      await authorize(i % 2 ? '4242424242424242' : '4000000000000002', { reference });
    }
    // a slow handler keeps claims held while the other worker looks
    handler.mockImplementation(() => new Promise((resolve) => setTimeout(resolve, 5)));
    clock.advance(DELAY);
    const counts = await Promise.all([
      runDueSandboxOperations(t.rt, { batchSize: 7 }),
      runDueSandboxOperations(t.rt, { batchSize: 7 }),
      runDueSandboxOperations(t.rt, { batchSize: 7 }),
      runDueSandboxOperations(t.rt, { batchSize: 7 }),
    ]);
    let total = counts.reduce((a, b) => a + b, 0);
    while (total < 30) {
      const more = await Promise.all([runDueSandboxOperations(t.rt, { batchSize: 7 }), runDueSandboxOperations(t.rt, { batchSize: 7 })]);
      if (more[0] + more[1] === 0) break;
      total += more[0] + more[1];
    }
    expect(total).toBe(30);
    const delivered = handler.mock.calls.map((c) => c[1].reference);
    expect(delivered).toHaveLength(30);
    expect(new Set(delivered)).toEqual(references);
    const rows = (await operations()).filter((o) => references.has(o.reference));
    expect(rows.every((o) => o.status === 'done' && o.doneAt && o.lockedBy === null && o.attempts === 1)).toBe(true);
  });

  test('a claim held by a worker is not taken by another until its lease runs out', async () => {
    const reference = crypto.randomUUID();
    await authorize('4242424242424242', { reference });
    clock.advance(DELAY);
    // a worker that claims and dies: its handler never returns
    handler.mockImplementationOnce(() => new Promise(() => undefined));
    void runDueSandboxOperations(t.rt, { workerId: 'dead-worker', leaseMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(handler).toHaveBeenCalledTimes(1);
    expect(await runDueSandboxOperations(t.rt)).toBe(0);
    clock.advance(30_000);
    expect(await runDueSandboxOperations(t.rt)).toBe(1);
    expect(handler.mock.calls.map((c) => c[1].reference)).toEqual([reference, reference]);
  });

  test('a failing handler leaves the operation to be delivered again later', async () => {
    const reference = crypto.randomUUID();
    await authorize('4000000000009995', { reference });
    handler.mockRejectedValueOnce(new Error('database went away'));
    clock.advance(DELAY);
    expect(await runDueSandboxOperations(t.rt)).toBe(0);
    let [row] = (await operations()).filter((o) => o.reference === reference);
    expect(row).toMatchObject({ status: 'scheduled', doneAt: null, attempts: 1, lastError: 'database went away', lockedBy: null });
    // retried after a back-off, not in a hot loop
    expect(await runDueSandboxOperations(t.rt)).toBe(0);
    clock.advance(1000);
    expect(await runDueSandboxOperations(t.rt)).toBe(1);
    expect(handler).toHaveBeenCalledTimes(2);
    expect(handler.mock.calls[1][1]).toMatchObject({ reference, result: { status: 'declined', declineCode: 'insufficient_funds' } });
    [row] = (await operations()).filter((o) => o.reference === reference);
    expect(row).toMatchObject({ status: 'done', attempts: 2, lastError: null });
  });

  test('the operation is marked done in the transaction that applies its outcome: rolled back with it, kept when what follows fails', async () => {
    // the outcome's transaction fails after the mark: the mark goes with it, and the operation is due again
    const rolledBack = crypto.randomUUID();
    await authorize('4242424242424242', { reference: rolledBack });
    handler.mockImplementationOnce(async (_rt, _outcome, settle) => {
      await t.rt.db.transaction(async (transaction) => {
        await settle!(transaction);
        throw new Error('the outcome could not be applied');
      });
    });
    clock.advance(DELAY);
    expect(await runDueSandboxOperations(t.rt)).toBe(0);
    let [row] = (await operations()).filter((o) => o.reference === rolledBack);
    expect(row).toMatchObject({
      status: 'scheduled',
      doneAt: null,
      attempts: 1,
      lastError: 'the outcome could not be applied',
      lockedBy: null,
    });
    clock.advance(1000);
    expect(await runDueSandboxOperations(t.rt)).toBe(1);
    [row] = (await operations()).filter((o) => o.reference === rolledBack);
    expect(row).toMatchObject({ status: 'done', attempts: 2, lastError: null });

    // the outcome committed and what came after it failed (a cascade's next attempt): done, not delivered again
    const committed = crypto.randomUUID();
    await authorize('4242424242424242', { reference: committed });
    handler.mockImplementationOnce(async (_rt, _outcome, settle) => {
      await t.rt.db.transaction((transaction) => settle!(transaction));
      throw new Error('the next attempt could not be sent');
    });
    clock.advance(DELAY);
    expect(await runDueSandboxOperations(t.rt)).toBe(1);
    [row] = (await operations()).filter((o) => o.reference === committed);
    expect(row).toMatchObject({ status: 'done', attempts: 1, lastError: null, lockedBy: null });
    clock.advance(60_000);
    handler.mockClear();
    await runDueSandboxOperations(t.rt);
    expect(handler.mock.calls.map((c) => c[1].reference)).not.toContain(committed);
  });

  test('the 3DS challenge card asks for the challenge page; an abandoned challenge fails after its lifetime', async () => {
    const reference = crypto.randomUUID();
    const answer = await authorize('4000002760003184', { reference });
    expect(answer).toEqual({
      status: 'requires_action',
      providerReference: expect.any(String),
      rawStatus: 'CHALLENGE_REQUIRED',
      action: { type: 'redirect', url: expect.stringMatching(/^https:\/\/pay\.example\/sandbox\/3ds\/[A-Za-z0-9_-]{32}$/) },
    });
    // nothing is delivered while the page is open
    clock.advance(10 * 60_000);
    expect(await runDueSandboxOperations(t.rt)).toBe(0);
    clock.advance(5 * 60_000);
    expect(await runDueSandboxOperations(t.rt)).toBe(1);
    expect(handler.mock.calls[0][1]).toMatchObject({
      reference,
      result: {
        status: 'declined',
        declineCode: 'authentication_failed',
        threeDSResult: { challenged: true, challengeCancelled: true, liabilityShift: false },
      },
    });
    // only the hash of the page's token is kept
    const token = answer.action!.url.split('/').pop()!;
    const [row] = (await operations()).filter((o) => o.reference === reference);
    expect(row.challengeTokenHash).toBe(crypto.createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token);
  });

  test('without a public URL, the challenge URL is on the origin of the request, else on the address serve listens at', async () => {
    const authorize = (origin?: string) =>
      connector.authorize(
        { ...env, config: { ...env.config, publicBaseUrl: undefined, listenUrl: 'http://127.0.0.1:4343' }, origin },
        terminal,
        {
          reference: crypto.randomUUID(),
          tenantId,
          livemode: false,
          amount: { currency: 'EUR', valueMinor: 1 },
          capture: true,
          paymentMethod: { type: 'card', card: { number: '4000002760003184', expMonth: 12, expYear: 2030 } },
        },
      );
    expect((await authorize('https://api.example.test')).action!.url).toMatch(
      /^https:\/\/api\.example\.test\/sandbox\/3ds\/[A-Za-z0-9_-]+$/,
    );
    expect((await authorize()).action!.url).toMatch(/^http:\/\/127\.0\.0\.1:4343\/sandbox\/3ds\/[A-Za-z0-9_-]+$/);
  });

  test('never stores a card number or cvc', async () => {
    const raw = await t.rt.db.sequelize.query('SELECT * FROM sandbox_acquirer_operations', { type: QueryTypes.SELECT });
    expect(raw.length).toBeGreaterThan(20);
    const text = JSON.stringify(raw);
    for (const number of cases.map((c) => c[0]).concat(['4000002760003184'])) {
      expect(text).not.toContain(number);
      expect(text).not.toContain(number.slice(0, 12));
    }
    expect(text).not.toContain('"123"');
  });

  test('the job delivers at once when the connector records an operation (no waiting for a poll)', async () => {
    const zeroDelay = { ...env, config: { ...env.config, sandboxDelayMs: 0 } };
    const worker = startSandboxWorker(t.rt, { pollMs: 60_000 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100)); // the first round found nothing and sleeps
      handler.mockClear();
      const reference = crypto.randomUUID();
      await connector.authorize(zeroDelay, terminal, {
        reference,
        tenantId,
        livemode: false,
        amount: { currency: 'EUR', valueMinor: 1 },
        capture: true,
        paymentMethod: { type: 'card', card: { number: '4242424242424242', expMonth: 12, expYear: 2030 } },
      });
      const started = Date.now();
      while (handler.mock.calls.length === 0 && Date.now() - started < 5000) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(handler.mock.calls.map((c) => c[1].reference)).toEqual([reference]);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await worker.stop();
    }
  });
});

describe(`sandbox payout provider (${dialectName})`, () => {
  const payouts = new SandboxPayoutConnector();
  const request = {
    reference: 'po_1',
    tenantId,
    livemode: false,
    amount: { currency: 'EUR', valueMinor: 2500 },
    destination: { type: 'bank_account', details: { iban: 'DE89370400440532013000' } },
  };
  test('a payout succeeds synchronously with a provider reference, the same for the same reference', async () => {
    const first = await payouts.payout(env, terminal, request);
    expect(first).toEqual({
      status: 'succeeded',
      providerReference: expect.stringMatching(/^sbpo_[0-9a-f]{24}$/),
      rawStatus: 'PAID',
      message: 'Paid out.',
    });
    expect((await payouts.payout(env, terminal, request)).providerReference).toBe(first.providerReference);
    expect((await payouts.payout(env, terminal, { ...request, reference: 'po_2' })).providerReference).not.toBe(first.providerReference);
    await expect(payouts.payout(env, terminal, { ...request, amount: { currency: 'EUR', valueMinor: 0 } })).resolves.toMatchObject({
      status: 'failed',
    });
    await expect(payouts.payout(env, terminal, { ...request, livemode: true })).rejects.toBeInstanceOf(ConnectorError);
    await expect(payouts.authorize()).resolves.toMatchObject({ status: 'failed', declineCode: 'operation_not_supported' });
  });
});
