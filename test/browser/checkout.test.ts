import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { createTestRuntime, dialectName, type TestRuntime } from '../helpers/db';
import { describeWhenPresent } from '../helpers/prerequisite';
import { Receiver, testTls } from '../helpers/receiver';
import { eur } from '../helpers/amounts';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { startServer, type RunningServer } from '../../src/http/server';
import { startJobs } from '../../src/jobs';
import { Dispatcher } from '../../src/services/webhooks/dispatcher';

/**
 * The hosted checkout page in a real Chromium (playwright-core driving the Debian `chromium` package) against a
 * real server with its background jobs (sandbox acquirer answering at once, checkout expiry, ledger release) and
 * the webhook dispatcher delivering to a local HTTPS receiver. Screenshots go to test/artifacts/.
 */

type Playwright = any;

function findChromium(): string | null {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium'];
  return candidates.find((c): c is string => Boolean(c) && fs.existsSync(c!)) ?? null;
}

function loadPlaywright(): Playwright | null {
  try {
    return require('playwright-core');
  } catch {
    return null;
  }
}

const chromiumPath = findChromium();
const playwright = loadPlaywright();
const missing = !chromiumPath
  ? 'no chromium binary (apt-get install -y chromium, or set CHROMIUM_PATH)'
  : !playwright
    ? 'playwright-core is not installed'
    : null;
const describeBrowser = describeWhenPresent('the browser checkout test', missing);

const ARTIFACTS = path.join(__dirname, '..', 'artifacts');

/** the merchant's shop: where the customer lands after paying or cancelling */
async function startShop(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Shop</title><h1 id="shop">${req.url?.startsWith('/thanks') ? 'Thank you for your order' : 'Your cart'}</h1>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describeBrowser(`hosted checkout in Chromium (${dialectName})`, () => {
  jest.setTimeout(90_000);
  let t: TestRuntime;
  let sandbox: SandboxCredentials;
  let server: RunningServer;
  let jobs: { stop(): Promise<void> };
  let dispatcher: Dispatcher;
  let receiver: Receiver;
  let shop: { url: string; close(): Promise<void> };
  let webhook: Webhook;
  let browser: Playwright;

  const api = async (method: string, urlPath: string, body?: object) => {
    const res = await fetch(`${server.url}${urlPath}`, {
      method,
      headers: { Authorization: `Bearer ${sandbox.merchantKey.secretKey}`, 'Content-Type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as { data: Record<string, any> };
    if (!res.ok) throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };

  /** the events the merchant endpoint received, each signature verified */
  const received = () =>
    receiver.received.map((r) => {
      webhook.verify(r.raw, {
        'webhook-id': r.headers['webhook-id'],
        'webhook-timestamp': r.headers['webhook-timestamp'],
        'webhook-signature': r.headers['webhook-signature'],
      });
      return r.body.events[0];
    });

  beforeAll(async () => {
    t = await createTestRuntime({ config: { sandboxDelayMs: 0 } });
    sandbox = await createSandbox(t.rt);
    receiver = await new Receiver().start();
    shop = await startShop();
    server = await startServer(t.rt, 0, '127.0.0.1');
    jobs = startJobs(t.rt);
    dispatcher = new Dispatcher(t.rt, { pollMs: 100, transport: { allowCidrs: ['127.0.0.1/32', '::1/128'], caFile: testTls().caFile } });
    dispatcher.start();
    const endpoint = await api('POST', '/v1/webhooks/endpoints', { url: receiver.url(), events: ['payment.*', 'checkout.session.*'] });
    webhook = new Webhook(endpoint.secret as string);
    browser = await playwright.chromium.launch({ executablePath: chromiumPath!, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await jobs?.stop();
    await dispatcher?.stop();
    await server?.close(1000);
    await shop?.close();
    await receiver?.close();
    await t?.close();
  });

  async function checkout(label: string, body: object = {}) {
    const session = await api('POST', '/v1/checkout-sessions', {
      amount: eur(3480),
      successUrl: `${shop.url}/thanks`,
      cancelUrl: `${shop.url}/cart`,
      merchantReference: `browser-${label}`,
      lineItems: [
        { id: 'mug', label: 'Payplane mug', unitAmount: eur(1290), quantity: 2 },
        { id: 'cap', label: 'Cap', unitAmount: eur(900), quantity: 1 },
      ],
      ...body,
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    // every answer the browser gets from our server is a success: no 404 (the favicon), no 5xx
    const failed: string[] = [];
    page.on('response', (r: Playwright) => {
      if (r.url().startsWith(server.url) && r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    (page as { failedRequests?: string[] }).failedRequests = failed;
    const response = await page.goto(session.url as string);
    expect(response.status()).toBe(200);
    expect(await page.textContent('[data-testid="merchant"]')).toBe('Sandbox Merchant');
    expect(await page.textContent('[data-testid="total"]')).toBe('€34.80');
    expect(await page.locator('table.summary').textContent()).toContain('Payplane mug');
    return { session, context, page };
  }

  async function fillCard(page: Playwright, number: string) {
    await page.fill('#number', number.replace(/(\d{4})(?=\d)/g, '$1 '));
    await page.fill('#expMonth', '12');
    await page.fill('#expYear', '2030');
    await page.fill('#cvc', '123');
    await page.fill('#holderName', 'Ada Lovelace');
  }

  async function expectPaid(sessionId: string) {
    const after = await api('GET', `/v1/checkout-sessions/${sessionId}`);
    expect(after).toMatchObject({ status: 'complete', paymentStatus: 'captured' });
    const payment = await api('GET', `/v1/payments/${after.paymentId}`);
    expect(payment).toMatchObject({ status: 'captured', checkoutSessionId: sessionId, amount: eur(3480) });
    const events = await until('the webhooks', async () => {
      const got = received();
      const captured = got.find((e) => e.type === 'payment.captured' && e.data.id === payment.id);
      const completed = got.find((e) => e.type === 'checkout.session.completed' && e.data.id === sessionId);
      return captured && completed ? got : null;
    });
    return { payment, events };
  }

  test('pay with 4242 4242 4242 4242: the customer lands on successUrl, the payment is captured, the webhook arrives', async () => {
    const { session, context, page } = await checkout('4242');
    await fillCard(page, '4242424242424242');
    await page.screenshot({ path: path.join(ARTIFACTS, 'checkout-page.png'), fullPage: true });
    await Promise.all([page.waitForURL(`${shop.url}/thanks`, { timeout: 30_000 }), page.click('#pay')]);
    expect(await page.textContent('#shop')).toBe('Thank you for your order');
    const { payment } = await expectPaid(session.id);
    expect(payment.threeDSResult).toBeNull();
    await context.close();
  });

  test('pay with 4000 0027 6000 3184: the 3DS challenge page is passed, then successUrl; captured with the webhook', async () => {
    const { session, context, page } = await checkout('3ds');
    await fillCard(page, '4000002760003184');
    await Promise.all([page.waitForURL(/\/sandbox\/3ds\//, { timeout: 30_000 }), page.click('#pay')]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'checkout-3ds-challenge.png'), fullPage: true });
    await Promise.all([page.waitForURL(`${shop.url}/thanks`, { timeout: 30_000 }), page.click('#complete')]);
    const { payment } = await expectPaid(session.id);
    expect(payment.threeDSResult).toMatchObject({ challenged: true });
    await context.close();
  });

  test('a declined card shows the reason on the page; cancel returns to the shop', async () => {
    const { session, context, page } = await checkout('decline');
    await fillCard(page, '4000000000000002');
    await page.click('#pay');
    await page.waitForSelector('[data-testid="error"]', { timeout: 30_000 });
    expect(await page.textContent('[data-testid="error"]')).toContain('declined');
    await page.screenshot({ path: path.join(ARTIFACTS, 'checkout-declined.png'), fullPage: true });
    expect(await api('GET', `/v1/checkout-sessions/${session.id}`)).toMatchObject({ status: 'open', paymentStatus: 'failed' });
    await Promise.all([page.waitForURL(`${shop.url}/cart`), page.click('#cancel')]);
    await context.close();
  });

  test('issue 24 item 12: an invalid card number is marked and focused, the name kept; then {CHECKOUT_SESSION_ID} in successUrl is filled in', async () => {
    const { session, context, page } = await checkout('invalid', { successUrl: `${shop.url}/thanks?session={CHECKOUT_SESSION_ID}` });
    await fillCard(page, '4242424242424241'); // the check digit is wrong: refused by the server, not by the browser
    await page.click('#pay');
    await page.waitForSelector('[data-testid="error"]', { timeout: 30_000 });
    expect(await page.getAttribute('#number', 'aria-invalid')).toBe('true');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('number');
    expect(await page.inputValue('#number')).toBe('');
    expect(await page.inputValue('#cvc')).toBe('');
    expect(await page.inputValue('#holderName')).toBe('Ada Lovelace');
    expect(await page.inputValue('#expYear')).toBe('2030');
    await page.screenshot({ path: path.join(ARTIFACTS, 'checkout-invalid-field.png'), fullPage: true });
    await page.fill('#number', '4242 4242 4242 4242');
    await page.fill('#cvc', '123');
    await Promise.all([page.waitForURL(`${shop.url}/thanks?session=${session.id}`, { timeout: 30_000 }), page.click('#pay')]);
    expect(await page.textContent('#shop')).toBe('Thank you for your order');
    await expectPaid(session.id);
    // nothing the browser fetched failed but the refused form itself: no favicon 404 (the pages name an inline icon)
    expect((page as { failedRequests?: string[] }).failedRequests).toEqual([`400 /checkout/${session.id}/pay`]);
    // and a browser asking for it anyway is answered
    expect((await page.request.get(`${server.url}/favicon.ico`)).status()).toBe(204);
    await context.close();
  });
});
