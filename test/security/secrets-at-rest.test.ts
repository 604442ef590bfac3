import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createMoneyHarness, payWithCard, type MoneyHarness } from '../helpers/money';
import { appendCanaries, archiveDatabase, dialectName, homeSecrets, onPostgres, SECRET_SCAN_DIR, TEST_TOKEN_SECRET } from '../helpers/db';
import { runCli } from '../helpers/cli';
import { startServe, stopAllServes, type ServeProcess } from '../helpers/serve';
import { testTls } from '../helpers/receiver';
import { withdrawalSettings } from '../helpers/withdrawals';
import { fundMerchant } from '../helpers/funding';
import { acceptInvitation } from '../../src/services/access/invitations';
import { formatFinding, scanDirectories } from './scan-secrets';
import { randomIban, randomPan } from './secret-samples';

/**
 * Secrets at rest (issue 10 item 5): a workload through the real API (in process and in a `serve` child process on the
 * same database) and the real CLI mints every kind of secret: API keys (create, rotate, CLI), webhook signing secrets
 * (create, admin create, rotate, CLI), terminal credentials (create, rotate, CLI, a refused extra field), checkout
 * client secrets, card payments with full card numbers (API, hosted page, 3DS challenge and frictionless cards, a
 * client-secret caller), invitation tokens, user access tokens, withdrawal methods with an IBAN and a US account number
 * (saved, changed, paid out through the provider). Every value it chose or was given is a canary. At the end the
 * database is archived (the SQLite file, or a pg_dump) next to the logs of every process (debug level), and the scanner
 * (./scan-secrets.ts) must find no secret, no card number and no canary in any of it.
 *
 * Under PAYPLANE_SECRET_SCAN_DIR (CI) the directory is inside it, so the run's own scan sees these canaries too.
 */

jest.setTimeout(180_000);

const CARD_PROVIDER = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';
const own = SECRET_SCAN_DIR
  ? path.join(SECRET_SCAN_DIR, `secrets-at-rest-${dialectName}-${crypto.randomBytes(4).toString('hex')}`)
  : fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-secrets-at-rest-'));
const logs = path.join(own, 'logs');

/** every value that must be found nowhere, by label */
const canaries: Record<string, string> = {};
function canary<T extends string>(label: string, value: T): T {
  canaries[label] = value;
  return value;
}
const word = (label: string) => canary(label, `${label.replace(/[^a-z]+/gi, '-')}-${crypto.randomBytes(12).toString('base64url')}`);

let m: MoneyHarness;
let server: ServeProcess;
let cliEnv: Record<string, string>;
const tenantKey = () => m.sandbox.tenantKey.secretKey;
const merchantKey = () => m.sandbox.merchantKey.secretKey;

beforeAll(async () => {
  fs.mkdirSync(logs, { recursive: true });
  m = await createMoneyHarness({ config: { logLevel: 'debug', logFile: path.join(logs, 'jest-%p.log') } });
  canary('sandbox tenant key', tenantKey());
  canary('sandbox merchant key', merchantKey());
  canary('sandbox platform token', m.sandbox.platformToken);
  canary('money harness endpoint secret', m.endpoint.secret);
  cliEnv = {
    DATABASE_URL: m.db.url,
    PAYPLANE_HOME: m.db.home,
    PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET,
    PAYPLANE_LOG_LEVEL: 'debug',
    PAYPLANE_LOG_FILE: path.join(logs, 'cli-%p.log'),
  };
});
afterAll(async () => {
  await stopAllServes();
  await m?.close();
  if (!SECRET_SCAN_DIR) fs.rmSync(own, { recursive: true, force: true });
});

const pay = (app: Parameters<typeof request>[0], id: string, form: Record<string, string>) =>
  request(app).post(`/checkout/${id}/pay`).type('form').send(form);
const cardForm = (key: string, number: string) => ({
  key,
  number,
  expMonth: '12',
  expYear: '2030',
  cvc: '737',
  holderName: 'Ada Lovelace',
});

describe(`secrets at rest (${dialectName})`, () => {
  test('API keys: created and rotated over HTTP; the secret is answered once', async () => {
    const created = await m
      .as(tenantKey())
      .post('/v1/api-keys', { name: 'Reporting', merchantId: m.sandbox.merchantId, permissions: ['payments:payments:view'] });
    expect(created.status).toBe(201);
    const secret = canary('API key created', created.body.data.secretKey as string);
    expect((await m.as(secret).get('/v1/payments')).status).toBe(200);
    const rotated = await m
      .as(tenantKey())
      .post(`/v1/api-keys/${created.body.data.id}/rotate`, { graceHours: 1 })
      .set('Idempotency-Key', `rot-${crypto.randomUUID()}`);
    expect(rotated.status).toBe(201);
    canary('API key rotated', rotated.body.data.secretKey as string);
    const tenantOwned = await m.as(tenantKey()).post('/v1/api-keys', { name: 'Ops' }).set('Idempotency-Key', `key-${crypto.randomUUID()}`);
    expect(tenantOwned.status).toBe(201);
    canary('API key created with an Idempotency-Key', tenantOwned.body.data.secretKey as string);
  });

  test('webhook endpoints: merchant and admin create, rotate-secret', async () => {
    const url = m.receiver.url();
    const merchantEndpoint = await m
      .as(merchantKey())
      .post('/v1/webhooks/endpoints', { url, events: ['payment.*'] })
      .set('Idempotency-Key', `we-${crypto.randomUUID()}`);
    expect(merchantEndpoint.status).toBe(201);
    canary('webhook secret (merchant endpoint)', merchantEndpoint.body.data.secret as string);
    const admin = await m.as(tenantKey()).post('/v1/admin/webhook-endpoints', { url, events: ['*'] });
    expect(admin.status).toBe(201);
    canary('webhook secret (admin endpoint)', admin.body.data.secret as string);
    const rotated = await m
      .as(tenantKey())
      .post(`/v1/admin/webhook-endpoints/${admin.body.data.id}/rotate-secret`, {})
      .set('Idempotency-Key', `wr-${crypto.randomUUID()}`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    canary('webhook secret (rotated)', rotated.body.data.secret as string);
  });

  test('terminal credentials: created, rotated, and refused ones; sealed where they are kept', async () => {
    const body = {
      providerIntegrationId: CARD_PROVIDER,
      name: 'Secrets EU',
      mcc: '5999',
      supportedCurrencies: ['EUR'],
      supportedBrands: ['visa', 'mastercard'],
      credentials: { merchantAccount: word('terminal merchantAccount'), apiKey: word('terminal apiKey') },
    };
    const created = await m.as(tenantKey()).post('/v1/admin/terminals', body).set('Idempotency-Key', `t-${crypto.randomUUID()}`);
    expect(created.status).toBe(201);
    const binding = await m.rt.db.models.CredentialBinding.findByPk(created.body.data.credentialBindingId);
    expect(JSON.parse(m.rt.sealer.open(binding!.get('credentialsSealed') as string))).toEqual(body.credentials);
    const rotated = await m.as(tenantKey()).post(`/v1/admin/terminals/${created.body.data.id}/rotate-credentials`, {
      credentials: { merchantAccount: word('rotated merchantAccount'), apiKey: word('rotated apiKey') },
    });
    expect(rotated.status).toBe(200);
    // a refused request: an unknown credential field and a missing one (the values must not be echoed, logged or kept)
    const refused = await m
      .as(tenantKey())
      .post('/v1/admin/terminals', { ...body, credentials: { apiKey: word('refused apiKey'), password: word('refused password') } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).not.toContain(canaries['refused apiKey']);
    expect(JSON.stringify(refused.body)).not.toContain(canaries['refused password']);
    const bad = await m.as(tenantKey()).post(`/v1/admin/terminals/${created.body.data.id}/rotate-credentials`, {
      credentials: { merchantAccount: word('refused rotation') },
    });
    expect(bad.status).toBe(400);
  });

  test('card payments in process: API, a client-secret caller, the hosted page, 3DS challenge and frictionless cards', async () => {
    // a card no sandbox scenario knows: refused by the acquirer, its number still went through the payment path
    const visa = canary('card number (API, merchant key)', randomPan('4'));
    const declined = await payWithCard(m, visa);
    expect(declined.payment).toMatchObject({ status: 'failed', card: { last4: visa.slice(-4) } });
    canary('client secret (API session)', declined.clientSecret);
    const spaced = await payWithCard(m, '4242 4242 4242 4242', { asTenant: true });
    expect(spaced.payment.status).toBe('captured');
    const frictionless = await payWithCard(m, '4000000000003220');
    expect(frictionless.payment.status).toBe('captured');

    // the customer's own caller: the session's clientSecret as bearer
    const session = await m
      .as(merchantKey())
      .post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 2_500 }, successUrl: 'https://shop.example/ok' });
    expect(session.status).toBe(201);
    const clientSecret = canary('client secret (customer caller)', session.body.data.clientSecret as string);
    const mastercard = canary('card number (client secret caller)', randomPan('51'));
    const completed = await m.as(clientSecret).post(`/v1/checkout-sessions/${session.body.data.id}/complete`, {
      paymentMethod: { type: 'card', card: { number: mastercard, expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Grace Hopper' } },
    });
    expect(completed.status).toBe(200);
    await m.settle();

    // the hosted page: the 3DS challenge card, the challenge answered on the sandbox page
    const hosted = await m
      .as(merchantKey())
      .post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 4_200 }, successUrl: 'https://shop.example/ok' });
    const hostedSecret = canary('client secret (hosted page)', hosted.body.data.clientSecret as string);
    const paid = await pay(m.app, hosted.body.data.id, cardForm(hostedSecret, '4000 0027 6000 3184'));
    expect(paid.status).toBe(303);
    expect(paid.headers.location).toMatch(/\/sandbox\/3ds\//);
    const challenge = new URL(paid.headers.location, 'http://local').pathname;
    expect((await request(m.app).get(challenge)).status).toBe(200);
    const answered = await request(m.app).post(challenge).type('form').send({ action: 'complete' });
    expect(answered.status).toBe(303);
    await m.settle();
    const after = await m.as(merchantKey()).get(`/v1/checkout-sessions/${hosted.body.data.id}`);
    expect(after.body.data).toMatchObject({ status: 'complete', paymentStatus: 'captured' });
    // another hosted payment with a random card
    const other = await m
      .as(merchantKey())
      .post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 1_000 }, successUrl: 'https://shop.example/ok' });
    canary('client secret (hosted page, declined)', other.body.data.clientSecret as string);
    const amex = canary('card number (hosted page)', randomPan('37', 15));
    expect((await pay(m.app, other.body.data.id, cardForm(other.body.data.clientSecret, amex))).status).toBe(303);
    await m.settle();
  });

  test('invitations and user access tokens (CLI)', async () => {
    const role = await m.as(tenantKey()).post('/v1/roles', { name: 'Secrets viewer', permissions: ['access:users:view'] });
    expect(role.status).toBe(201);
    const invited = await m
      .as(tenantKey())
      .post('/v1/users/invite', { email: 'secrets@example.com', displayName: 'Secrets', roleIds: [role.body.data.id] });
    expect(invited.status).toBe(201);
    canary('invitation token', invited.body.data.invitation.token as string);
    const resent = await m
      .as(tenantKey())
      .post(`/v1/invitations/${invited.body.data.invitation.id}/resend`)
      .set('Idempotency-Key', `inv-${crypto.randomUUID()}`);
    expect(resent.status).toBe(200);
    const token = canary('invitation token (resent)', resent.body.data.invitation?.token ?? resent.body.data.token);
    // accepted in process: the harness's clock issued it (the CLI's is the wall clock)
    const accepted = await acceptInvitation(m.rt, token, 'idp|secrets');
    expect(accepted.user).toMatchObject({ status: 'active' });
    const issued = await runCli(['tokens', 'issue', '--user', invited.body.data.user.id, '--json'], cliEnv);
    expect(issued.status).toBe(0);
    const jwt = canary('user access token (CLI)', issued.json().token as string);
    // the CLI issued it by the wall clock: the app reads it at that time (a token issued in the future is refused)
    if (m.clock.now().getTime() < Date.now()) m.clock.set(new Date());
    expect((await m.as(jwt).get('/v1/users')).status).toBe(200);
  });

  test('API keys, webhook endpoints and terminals through the CLI', async () => {
    const key = await runCli(['keys', 'create', '--tenant', m.sandbox.tenantId, '--name', 'CLI key', '--json'], cliEnv);
    expect(key.status).toBe(0);
    canary('API key (CLI)', key.json().secretKey as string);
    const rotated = await runCli(['keys', 'rotate', key.json().id, '--json'], cliEnv);
    expect(rotated.status).toBe(0);
    canary('API key rotated (CLI)', rotated.json().secretKey as string);
    const endpoint = await runCli(
      ['webhooks', 'endpoints', 'create', '--tenant', m.sandbox.tenantId, '--url', 'https://hooks.example/cli', '--event', '*', '--json'],
      cliEnv,
    );
    expect(endpoint.status).toBe(0);
    canary('webhook secret (CLI)', endpoint.json().secret as string);
    const terminal = await runCli(
      [
        'terminals',
        'create',
        '--tenant',
        m.sandbox.tenantId,
        '--provider',
        CARD_PROVIDER,
        '--name',
        'CLI terminal',
        '--currency',
        'EUR',
        '--credential',
        `merchantAccount=${word('CLI merchantAccount')}`,
        '--credential',
        `apiKey=${word('CLI apiKey')}`,
        '--json',
      ],
      cliEnv,
    );
    expect(terminal.status).toBe(0);
    expect(terminal.stdout).not.toContain(canaries['CLI apiKey']);
  });

  test('withdrawal methods: an IBAN and a US account number, saved, changed and paid out through the provider', async () => {
    await withdrawalSettings(m, { withdrawalCoolingPeriodHours: 0 });
    const iban = canary('IBAN', randomIban());
    const method = await m.as(merchantKey()).post('/v1/merchant-withdrawal-methods', {
      methodType: 'bank_account',
      label: 'Main',
      details: { iban, accountHolderName: 'Sandbox Merchant GmbH' },
    });
    expect(method.status).toBe(201);
    expect(JSON.stringify(method.body)).not.toContain(iban);
    const changed = await m.as(merchantKey()).patch(`/v1/merchant-withdrawal-methods/${method.body.data.id}`, {
      details: { iban: canary('IBAN (changed)', randomIban()), accountHolderName: 'Sandbox Merchant GmbH' },
    });
    expect(changed.status).toBe(200);
    const us = await m.as(merchantKey()).post('/v1/merchant-withdrawal-methods', {
      methodType: 'us_bank_account',
      label: 'US',
      details: {
        routingNumber: '021000021',
        accountNumber: canary('US account number', `9${Array.from({ length: 16 }, () => crypto.randomInt(10)).join('')}`),
        accountHolderName: 'Sandbox Merchant Inc',
        accountType: 'checking',
      },
    });
    expect(us.status).toBe(201);
    await fundMerchant(m, 50_000);
    const withdrawal = await m
      .as(merchantKey())
      .post('/v1/withdrawals', { amount: { currency: 'EUR', valueMinor: 10_000 }, withdrawalMethodId: method.body.data.id })
      .set('Idempotency-Key', `wd-${crypto.randomUUID()}`);
    expect(withdrawal.status).toBe(201);
    expect((await m.as(tenantKey()).post(`/v1/withdrawals/${withdrawal.body.data.id}/approve`)).status).toBe(200);
    const executed = await runCli(['withdrawals', 'execute', withdrawal.body.data.id, '--via-provider', '--json'], cliEnv);
    expect(executed.status).toBe(0);
    expect(executed.json()).toMatchObject({ status: 'completed' });
    await m.settle();
  });

  test('a serve child process on the same database: keys, a terminal, webhook endpoints, checkout and the hosted page with card numbers, 3DS', async () => {
    server = await startServe(m.db, {
      PAYPLANE_LOG_LEVEL: 'debug',
      PAYPLANE_LOG_FILE: path.join(logs, 'serve-%p.log'),
      PAYPLANE_SANDBOX_DELAY_MS: '0',
      PAYPLANE_WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32',
      PAYPLANE_WEBHOOK_CA_FILE: testTls().caFile,
    });
    const call = async (pathname: string, credential: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await server.request(pathname, { credential, body, headers });
      return { status: res.status, body: (await res.json()) as { data: Record<string, any> } };
    };
    const key = await call('/v1/api-keys', tenantKey(), { name: 'Serve key' });
    expect(key.status).toBe(201);
    canary('API key (serve)', key.body.data.secretKey);
    const endpoint = await call('/v1/webhooks/endpoints', merchantKey(), { url: m.receiver.url(), events: ['*'] });
    expect(endpoint.status).toBe(201);
    canary('webhook secret (serve)', endpoint.body.data.secret);
    const terminal = await call('/v1/admin/terminals', tenantKey(), {
      providerIntegrationId: CARD_PROVIDER,
      name: 'Serve terminal',
      supportedCurrencies: ['USD'],
      credentials: { merchantAccount: word('serve merchantAccount'), apiKey: word('serve apiKey') },
    });
    expect(terminal.status).toBe(201);

    const session = async (valueMinor: number) => {
      const s = await call('/v1/checkout-sessions', merchantKey(), {
        amount: { currency: 'EUR', valueMinor },
        successUrl: 'https://shop.example/ok',
      });
      expect(s.status).toBe(201);
      return { id: s.body.data.id as string, key: canary(`client secret (serve ${valueMinor})`, s.body.data.clientSecret as string) };
    };
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      redirect: 'manual' as const,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    // the API with a client-secret caller and a random card
    const a = await session(1_100);
    const completed = await call(`/v1/checkout-sessions/${a.id}/complete`, a.key, {
      paymentMethod: {
        type: 'card',
        card: { number: canary('card number (serve API)', randomPan('4')), expMonth: 12, expYear: 2030, cvc: '321' },
      },
    });
    expect(completed.status).toBe(200);
    // the hosted page: a random card, then the 3DS challenge card answered on the sandbox page
    const b = await session(1_200);
    const paidB = await fetch(
      `${server.url}/checkout/${b.id}/pay`,
      form(cardForm(b.key, canary('card number (serve hosted page)', randomPan('55')))),
    );
    expect(paidB.status).toBe(303);
    const c = await session(1_300);
    const paidC = await fetch(`${server.url}/checkout/${c.id}/pay`, form(cardForm(c.key, '4000002760003184')));
    expect(paidC.status).toBe(303);
    const challenge = new URL(paidC.headers.get('location')!, server.url);
    expect(challenge.pathname).toMatch(/^\/sandbox\/3ds\//);
    expect((await fetch(challenge)).status).toBe(200);
    expect((await fetch(challenge, form({ action: 'complete' }))).status).toBe(303);
    // the serve process's acquirer answers: wait until the challenged payment is captured
    const deadline = Date.now() + 30_000;
    for (;;) {
      const s = await call(`/v1/checkout-sessions/${c.id}`, merchantKey());
      if (s.body.data.paymentStatus === 'captured') break;
      if (Date.now() > deadline) throw new Error(`the 3DS payment did not settle: ${JSON.stringify(s.body.data)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await server.stop()).toBe(0);
  });

  test('no secret, card number or canary is in the database (archived as it is on disk) nor in any log', async () => {
    await m.settle();
    const archived = await archiveDatabase(m.db, own);
    expect(archived.length).toBeGreaterThan(0);
    const home = homeSecrets(m.db);
    // the master key exists: something was sealed with it
    expect(Object.keys(home).some((label) => label.startsWith('master-key'))).toBe(true);
    appendCanaries(own, { ...canaries, ...home });

    const result = await scanDirectories([own]);
    const names = result.files.map((f) => path.relative(own, f.path));
    expect(result.files.filter((f) => f.type === (onPostgres ? 'dump' : 'sqlite'))).toHaveLength(1);
    // the logs of this process and of the serve process, at debug: every request is there
    const jestLog = names.find((n) => /^logs\/jest-\d+\.log$/.test(n));
    const serveLog = names.find((n) => /^logs\/serve-\d+\.log$/.test(n));
    expect(jestLog).toBeDefined();
    expect(serveLog).toBeDefined();
    expect(fs.readFileSync(path.join(own, jestLog!), 'utf8')).toMatch(/"operation":"createTerminal"/);
    expect(fs.readFileSync(path.join(own, serveLog!), 'utf8')).toMatch(/"operation":"completeCheckoutSession"/);
    expect(result.canaries).toBe(new Set([...Object.values(canaries), ...Object.values(home)].filter((v) => v.length >= 8)).size);
    expect(result.canaries).toBeGreaterThan(40);

    expect(result.findings.map((f) => formatFinding(f, own))).toEqual([]);
  });
});
