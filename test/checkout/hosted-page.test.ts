import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { useMoneyHarness, openSession } from '../helpers/money';
import { dialectName } from '../helpers/db';
import { eur } from '../helpers/amounts';
import { createApp } from '../../src/http/app';
import { refreshSeconds } from '../../src/http/pages/checkout';
import { startSandboxWorker } from '../../src/services/sandbox/acquirer';

const m = useMoneyHarness();
let merchantKey: string;

const SUCCESS = 'https://shop.example/thanks?order=1';
const CANCEL = 'https://shop.example/cart';

beforeAll(async () => {
  merchantKey = m.sandbox.merchantKey.secretKey;
});

async function session(body: object = {}) {
  const data = await openSession(
    m,
    {
      amount: eur(4990),
      successUrl: SUCCESS,
      cancelUrl: CANCEL,
      lineItems: [
        { id: 'shirt', label: 'Shirt <script>alert(1)</script>', unitAmount: eur(2000), quantity: 2 },
        { id: 'cap', label: 'Cap "quoted"', unitAmount: eur(990), quantity: 1 },
      ],
      ...body,
    },
    merchantKey,
  );
  return { ...data, path: new URL(data.url).pathname + new URL(data.url).search };
}

const page = (path: string) => request(m.app).get(path);
const pay = (id: string, form: Record<string, string>) => request(m.app).post(`/checkout/${id}/pay`).type('form').send(form);
const card = (key: string, number: string) => ({ key, number, expMonth: '12', expYear: '2030', cvc: '123', holderName: 'Ada Lovelace' });
const paymentOf = async (sessionId: string) => {
  const s = await m.as(merchantKey).get(`/v1/checkout-sessions/${sessionId}`);
  return {
    session: s.body.data,
    payment: s.body.data.paymentId ? (await m.as(merchantKey).get(`/v1/payments/${s.body.data.paymentId}`)).body.data : null,
  };
};

function expectSecureHtml(res: request.Response): void {
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  expect(res.headers['content-security-policy']).not.toContain('script-src');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['cache-control']).toBe('no-store');
}

describe(`hosted checkout page (${dialectName})`, () => {
  test('the page shows merchant, escaped line items, totals and a card form; a bad key is a 404 page', async () => {
    const s = await session();
    const res = await page(s.path);
    expect(res.status).toBe(200);
    expectSecureHtml(res);
    expect(res.text).toContain('Sandbox Merchant');
    expect(res.text).toContain('Shirt &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain('Cap &quot;quoted&quot;');
    expect(res.text).toContain('€49.90');
    expect(res.text).toContain(`action="/checkout/${s.id}/pay"`);
    expect(res.text).toContain(`href="${CANCEL}"`);

    const other = await session();
    for (const path of [
      `/checkout/${s.id}`,
      `/checkout/${s.id}?key=nope`,
      `/checkout/${s.id}?key=${other.clientSecret}`,
      `/checkout/not-a-uuid?key=${s.clientSecret}`,
    ]) {
      const bad = await page(path);
      expect(bad.status).toBe(404);
      expectSecureHtml(bad);
      expect(bad.text).toContain('Checkout not found');
    }
    const badPay = await pay(s.id, card(other.clientSecret, '4242424242424242'));
    expect(badPay.status).toBe(404);
  });

  test('invalid card input shows the form again with the reason, nothing is paid', async () => {
    const s = await session();
    const res = await pay(s.id, { ...card(s.clientSecret, '4242 4242 4242 4241'), holderName: '<b>Ada</b>' });
    expect(res.status).toBe(400);
    expectSecureHtml(res);
    expect(res.text).toContain('data-testid="error"');
    expect(res.text).toContain('Card number');
    expect(res.text).toContain('value="&lt;b&gt;Ada&lt;/b&gt;"');
    expect(res.text).not.toContain('4242 4242 4242 4241');
    const malformed = await pay(s.id, { key: s.clientSecret, number: 'abc', expMonth: '13', expYear: '30x' });
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain('Enter the card number');
    expect(malformed.text).toContain('Enter the expiry month');
    expect(malformed.text).toContain('Enter the expiry year');
    expect((await paymentOf(s.id)).session).toMatchObject({ status: 'open', paymentId: null });
  });

  test('4242: pay, the status view refreshes while processing, then the customer goes to successUrl', async () => {
    const s = await session();
    const res = await pay(s.id, card(s.clientSecret, '4242424242424242'));
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(s.path);
    const processing = await page(s.path);
    expect(processing.status).toBe(200);
    // no answer within the answer's wait (nothing delivers the acquirer's answer here): refreshed every second
    expect(processing.headers.refresh).toBe('1');
    expect(processing.text).toContain('being processed');
    // a second click while the payment is in flight starts nothing: back to the status view
    const again = await pay(s.id, card(s.clientSecret, '4242424242424242'));
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe(s.path);
    await m.settle();
    const done = await page(s.path);
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(SUCCESS);
    const { session: after, payment } = await paymentOf(s.id);
    expect(after).toMatchObject({ status: 'complete', paymentStatus: 'captured' });
    expect(payment).toMatchObject({ status: 'captured', checkoutSessionId: s.id, amount: eur(4990) });
    const types = m
      .events()
      .filter((e) => e.data.id === s.id || e.data.id === payment.id)
      .map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['checkout.session.created', 'payment.captured', 'checkout.session.completed']));
  });

  test("the status view waits for the acquirer's answer: paid within it, the first page after paying sends the customer on, no refresh", async () => {
    const worker = startSandboxWorker(m.rt, { pollMs: 20 });
    try {
      const s = await session();
      const res = await pay(s.id, card(s.clientSecret, '4242424242424242'));
      expect(res.status).toBe(303);
      const started = Date.now();
      const done = await page(res.headers.location);
      expect(done.status).toBe(303);
      expect(done.headers.location).toBe(SUCCESS);
      expect(done.headers.refresh).toBeUndefined();
      // answered as soon as the acquirer's answer was applied, well within the answer's wait
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await worker.stop();
    }
  });

  test('the refresh backs off while a payment stays in flight: 1 s, then 2 s past 10 s, 5 s past a minute', () => {
    expect([0, 9_999, 10_000, 59_999, 60_000, 3_600_000].map(refreshSeconds)).toEqual([1, 1, 2, 2, 5, 5]);
  });

  test('a decline shows the reason and the form again; another card then pays', async () => {
    const s = await session();
    expect((await pay(s.id, card(s.clientSecret, '4000000000009995'))).status).toBe(303);
    await m.settle();
    const declined = await page(s.path);
    expect(declined.status).toBe(200);
    expect(declined.text).toContain('insufficient funds');
    expect(declined.text).toContain('id="pay"');
    expect((await paymentOf(s.id)).session).toMatchObject({ status: 'open', paymentStatus: 'failed' });
    expect((await pay(s.id, card(s.clientSecret, '5555555555554444'))).status).toBe(303);
    await m.settle();
    expect((await page(s.path)).headers.location).toBe(SUCCESS);
  });

  test('3DS challenge: the form sends the customer to the challenge page, which returns to the status view', async () => {
    const s = await session();
    const res = await pay(s.id, card(s.clientSecret, '4000002760003184'));
    expect(res.status).toBe(303);
    const challenge = new URL(res.headers.location, 'http://localhost');
    expect(challenge.pathname).toMatch(/^\/sandbox\/3ds\//);
    // meanwhile the page shows the way back to the challenge
    const waiting = await page(s.path);
    expect(waiting.text).toContain('id="continue"');
    const answered = await request(m.app).post(challenge.pathname).type('form').send({ action: 'complete' });
    expect(answered.status).toBe(303);
    // absolute (a provider elsewhere sends the customer back), to this session's status view: the key is not in the
    // URL (the provider keeps it, so does the payment) but in the cookie the pay form set for this page only
    const back = new URL(answered.headers.location);
    expect(back.pathname + back.search).toBe(`/checkout/${s.id}`);
    const cookie = res.headers['set-cookie']?.[0] ?? '';
    expect(cookie).toMatch(
      new RegExp(`^payplane_checkout_key=[^;]+; Max-Age=\\d+; Path=/checkout/${s.id}; Expires=[^;]+; HttpOnly; SameSite=Lax$`),
    );
    expect((await request(m.app).get(back.pathname)).status).toBe(404);
    const returned = await request(m.app).get(back.pathname).set('Cookie', cookie.split(';')[0]);
    expect(returned.status).toBe(200);
    expect(returned.text).toContain('data-testid="status"');
    await m.settle();
    expect((await page(s.path)).headers.location).toBe(SUCCESS);
    const { payment } = await paymentOf(s.id);
    expect(payment.status).toBe('captured');
  });

  test('expired and paid sessions; without successUrl the page thanks the customer', async () => {
    const s = await session();
    await m.as(merchantKey).post(`/v1/checkout-sessions/${s.id}/expire`);
    const expired = await page(s.path);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain('expired');
    expect((await pay(s.id, card(s.clientSecret, '4242424242424242'))).headers.location).toBe(s.path);

    const plain = await session({ successUrl: undefined, cancelUrl: undefined });
    expect((await page(plain.path)).text).not.toContain('id="cancel"');
    await pay(plain.id, card(plain.clientSecret, '4242424242424242'));
    await m.settle();
    const thanks = await page(plain.path);
    expect(thanks.status).toBe(200);
    expect(thanks.text).toContain('payment was received');
  });

  test('the key is never logged', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write: (chunk, _enc, done) => {
        lines.push(String(chunk));
        done();
      },
    });
    const app = createApp({ ...m.rt, logger: pino({ level: 'debug' }, sink) });
    const s = await session();
    await request(app).get(s.path);
    await request(app).post(`/checkout/${s.id}/pay`).type('form').send(card(s.clientSecret, '4000000000000002'));
    await request(app).get(`/checkout/${s.id}?key=${s.clientSecret}x`);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const secretPart = s.clientSecret.split('_secret_')[1];
    expect(lines.join('\n')).not.toContain(secretPart);
    expect(lines.join('\n')).not.toContain('4000000000000002');
    await m.settle();
  });
});
