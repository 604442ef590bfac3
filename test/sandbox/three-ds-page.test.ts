import crypto from 'node:crypto';
import request from 'supertest';
import type { Express } from 'express';
import { createTestRuntime, dialectName, type TestRuntime } from '../helpers/db';
import { ManualClock } from '../../src/domain/clock';
import { createApp } from '../../src/http/app';
import { connectorFor, type ConnectorEnv, type ConnectorTerminal } from '../../src/connectors';
import { runDueSandboxOperations } from '../../src/services/sandbox/acquirer';
import { handleProviderOutcome } from '../../src/services/payments/outcomes';
import { formatAmount } from '../../src/http/pages/sandbox-3ds';

jest.mock('../../src/services/payments/outcomes', () => ({
  ...jest.requireActual('../../src/services/payments/outcomes'),
  handleProviderOutcome: jest.fn(),
}));
const handler = handleProviderOutcome as jest.MockedFunction<typeof handleProviderOutcome>;

const DELAY = 250;
const CARD = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';
let t: TestRuntime;
let clock: ManualClock;
let env: ConnectorEnv;
let app: Express;
const tenantId = crypto.randomUUID();
const terminal: ConnectorTerminal = {
  terminalId: crypto.randomUUID(),
  providerIntegrationId: CARD,
  connectorBaseUrl: 'https://connectors.payplane.local/sandbox-card',
  livemode: false,
  credentials: {},
  mcc: null,
  descriptor: null,
};

beforeAll(async () => {
  clock = new ManualClock('2026-03-01T12:00:00.000Z');
  t = await createTestRuntime({ clock, config: { sandboxDelayMs: DELAY } });
  env = { db: t.rt.db, clock, config: t.rt.config };
  app = createApp(t.rt);
});
afterAll(() => t.close());
beforeEach(() => {
  handler.mockReset();
  handler.mockResolvedValue(undefined);
});

/** Authorizes with the challenge card: the page's path and our reference. */
async function challenge(
  options: { returnUrl?: string; amount?: number; currency?: string } = {},
): Promise<{ path: string; reference: string }> {
  const reference = crypto.randomUUID();
  const answer = await connectorFor('sandbox-card').authorize(env, terminal, {
    reference,
    tenantId,
    livemode: false,
    returnUrl: options.returnUrl,
    capture: true,
    amount: { currency: options.currency ?? 'EUR', valueMinor: options.amount ?? 1999 },
    paymentMethod: { type: 'card', card: { number: '4000002760003184', expMonth: 12, expYear: 2030, cvc: '123' } },
  });
  expect(answer.status).toBe('requires_action');
  // the page's URL is absolute (every URL handed out is): the app under test is asked for its path
  const url = new URL(answer.action!.url);
  expect(url.pathname).toMatch(/^\/sandbox\/3ds\//);
  return { path: `${url.pathname}${url.search}`, reference };
}

const answer = (path: string, action: string) => request(app).post(path).type('form').send({ action });

describe(`sandbox 3DS challenge page (${dialectName})`, () => {
  test('the page shows the amount and the two buttons; Complete redirects to the return URL and schedules an approved, challenged 3DS result', async () => {
    const { path, reference } = await challenge({ returnUrl: 'https://shop.example/checkout/return?session=abc', amount: 123456 });
    const page = await request(app).get(path);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.text).toContain('€1,234.56');
    expect(page.text).toMatch(/<form method="post">/);
    expect(page.text).toMatch(/<button[^>]+name="action" value="complete"[^>]*>Complete<\/button>/);
    expect(page.text).toMatch(/<button[^>]+name="action" value="fail"[^>]*>Fail<\/button>/);

    const done = await answer(path, 'complete');
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe('https://shop.example/checkout/return?session=abc');

    // due after the acquirer's delay, not before
    clock.advance(DELAY - 1);
    expect(await runDueSandboxOperations(t.rt)).toBe(0);
    clock.advance(1);
    expect(await runDueSandboxOperations(t.rt)).toBe(1);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(handler.mock.calls[0][1]).toMatchObject({
      operation: 'authorize',
      reference,
      tenantId,
      livemode: false,
      result: {
        status: 'succeeded',
        threeDSResult: {
          status: 'authenticated',
          challenged: true,
          challengeFlow: 'challenge',
          liabilityShift: true,
          challengeCancelled: false,
          eci: '05',
        },
      },
    });

    // a used token is refused, on the page and on a second answer
    expect((await request(app).get(path)).status).toBe(409);
    const again = await answer(path, 'fail');
    expect(again.status).toBe(409);
    expect(again.text).toContain('already answered');
    clock.advance(60_000);
    expect(await runDueSandboxOperations(t.rt)).toBe(0);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  test('Fail schedules a decline authentication_failed; without a return URL a plain done page', async () => {
    const { path, reference } = await challenge();
    const done = await answer(path, 'fail');
    expect(done.status).toBe(200);
    expect(done.text).toContain('Authentication failed.');
    clock.advance(DELAY);
    expect(await runDueSandboxOperations(t.rt)).toBe(1);
    expect(handler.mock.calls[0][1]).toMatchObject({
      reference,
      result: {
        status: 'declined',
        declineCode: 'authentication_failed',
        threeDSResult: { status: 'failed', challenged: true, liabilityShift: false, challengeCancelled: false },
      },
    });
  });

  test('two answers at once: one wins, the other is refused', async () => {
    const { path, reference } = await challenge({ returnUrl: '/checkout/xyz' });
    const results = await Promise.all([answer(path, 'complete'), answer(path, 'fail')]);
    expect(results.map((r) => r.status).sort()).toEqual([303, 409]);
    expect(results.find((r) => r.status === 303)!.headers.location).toBe('/checkout/xyz');
    clock.advance(DELAY);
    expect(await runDueSandboxOperations(t.rt)).toBe(1);
    expect(handler.mock.calls.map((c) => c[1].reference)).toEqual([reference]);
  });

  test('an expired challenge is refused (410) and fails as abandoned', async () => {
    const { path, reference } = await challenge({ returnUrl: 'https://shop.example/r' });
    clock.advance(15 * 60_000);
    expect((await request(app).get(path)).status).toBe(410);
    expect((await answer(path, 'complete')).status).toBe(410);
    expect(await runDueSandboxOperations(t.rt)).toBe(1);
    expect(handler.mock.calls[0][1]).toMatchObject({
      reference,
      result: { status: 'declined', declineCode: 'authentication_failed', threeDSResult: { challengeCancelled: true } },
    });
    // still refused as expired once the outcome went out
    expect((await request(app).get(path)).status).toBe(410);
  });

  test('unknown tokens, bad answers and unsafe return URLs', async () => {
    expect((await request(app).get(`/sandbox/3ds/${crypto.randomBytes(24).toString('base64url')}`)).status).toBe(404);
    expect((await request(app).get('/sandbox/3ds/short')).status).toBe(404);
    expect((await answer(`/sandbox/3ds/${crypto.randomBytes(24).toString('base64url')}`, 'complete')).status).toBe(404);

    const { path } = await challenge({ returnUrl: 'javascript:alert(1)' });
    expect((await answer(path, 'maybe')).status).toBe(400);
    expect((await request(app).post(path).type('form').send('')).status).toBe(400);
    // still open after the bad answers; a javascript: return URL is never followed
    const done = await answer(path, 'complete');
    expect(done.status).toBe(200);
    expect(done.headers.location).toBeUndefined();
    expect(done.text).toContain('Authentication completed.');
    clock.advance(DELAY);
    await runDueSandboxOperations(t.rt);
  });

  test("amounts are shown from minor units with the currency's decimals", () => {
    // the checkout page's format (issue 24 item 12): the currency's symbol, its own decimals, a fixed locale
    expect(formatAmount('EUR', 5)).toBe('€0.05');
    expect(formatAmount('USD', 100000000)).toBe('$1,000,000.00');
    expect(formatAmount('JPY', 1500)).toBe('¥1,500');
    expect(formatAmount('KWD', 1234)).toBe('KWD\u00a01.234');
  });
});
