import request from 'supertest';
import { useMoneyHarness, openSession } from '../helpers/money';
import { dialectName } from '../helpers/db';
import { eur } from '../helpers/amounts';

// Issue 24 item 12, "The hosted page": the {CHECKOUT_SESSION_ID} placeholder of successUrl and cancelUrl, the paid
// page, invalid card fields marked, one money format on the checkout and 3DS pages, no 404 for the favicon, the
// merchant's name once. Driven over HTTP as a browser drives the pages: GET the page, POST the form, follow Location.

const m = useMoneyHarness();
let merchantKey: string;

const MERCHANT = 'Sandbox Merchant';

beforeAll(async () => {
  merchantKey = m.sandbox.merchantKey.secretKey;
});

interface Created {
  id: string;
  clientSecret: string;
  url: string;
  successUrl: string | null;
  cancelUrl: string | null;
  /** the hosted page's path with its ?key= */
  path: string;
}

async function session(body: object = {}): Promise<Created> {
  const data = (await openSession(
    m,
    {
      amount: eur(4990),
      lineItems: [
        { id: 'shirt', label: 'Shirt', unitAmount: eur(2000), quantity: 2 },
        { id: 'cap', label: 'Cap', unitAmount: eur(990), quantity: 1 },
      ],
      ...body,
    },
    merchantKey,
  )) as Omit<Created, 'path'>;
  const url = new URL(data.url);
  return { ...data, path: url.pathname + url.search };
}

const page = (path: string, cookie?: string) => (cookie ? request(m.app).get(path).set('Cookie', cookie) : request(m.app).get(path));
const pay = (id: string, form: Record<string, string>) => request(m.app).post(`/checkout/${id}/pay`).type('form').send(form);
const card = (key: string, number: string) => ({ key, number, expMonth: '12', expYear: '2030', cvc: '123', holderName: 'Ada Lovelace' });

/** what the customer sees: the page's <body> */
const bodyOf = (html: string) => /<body>([\s\S]*)<\/body>/.exec(html)?.[1] ?? '';
/** the <input> of that id, as written in the page */
const inputTag = (html: string, id: string) => {
  const tag = new RegExp(`<input id="${id}"[^>]*>`).exec(html)?.[0];
  if (!tag) throw new Error(`no input #${id} in the page`);
  return tag;
};
/** the href of the link of that id, decoded as a browser reads the attribute */
const linkHref = (html: string, id: string) => {
  const href = new RegExp(`<a id="${id}" href="([^"]*)"`).exec(html)?.[1];
  return (
    href
      ?.replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'") ?? null
  );
};
const count = (text: string, part: string) => text.split(part).length - 1;

describe(`hosted checkout page, issue 24 item 12 (${dialectName})`, () => {
  describe('1. successUrl and cancelUrl may carry {CHECKOUT_SESSION_ID}', () => {
    const SUCCESS = 'https://shop.example/thanks?session={CHECKOUT_SESSION_ID}&from=payplane';
    const CANCEL = 'https://shop.example/cart/{CHECKOUT_SESSION_ID}';

    test('accepted at create, stored and read back as given, and what is read can be sent back', async () => {
      const s = await session({ successUrl: SUCCESS, cancelUrl: CANCEL });
      expect(s.successUrl).toBe(SUCCESS);
      expect(s.cancelUrl).toBe(CANCEL);
      const read = (await m.as(merchantKey).get(`/v1/checkout-sessions/${s.id}`)).body.data;
      expect(read).toMatchObject({ successUrl: SUCCESS, cancelUrl: CANCEL });
      const listed = (await m.as(merchantKey).get('/v1/checkout-sessions?limit=100')).body.data.find((x: { id: string }) => x.id === s.id);
      expect(listed).toMatchObject({ successUrl: SUCCESS, cancelUrl: CANCEL });
      // the client sends back what it read: accepted again, unchanged
      const again = await session({ successUrl: read.successUrl, cancelUrl: read.cancelUrl });
      expect(again).toMatchObject({ successUrl: SUCCESS, cancelUrl: CANCEL });
      // the percent-encoded form (what `new URL` makes of braces in a path) is accepted and kept too
      const encoded = await session({ successUrl: 'https://shop.example/orders/%7BCHECKOUT_SESSION_ID%7D/thanks' });
      expect(encoded.successUrl).toBe('https://shop.example/orders/%7BCHECKOUT_SESSION_ID%7D/thanks');
      // still an http(s) URL, still refused otherwise
      const bad = await m
        .as(merchantKey)
        .post('/v1/checkout-sessions', { amount: eur(100), successUrl: 'javascript:{CHECKOUT_SESSION_ID}' });
      expect(bad.status).toBe(400);
    });

    test("the hosted page: the cancel link, the redirect after payment and the paid page's return link carry the session id", async () => {
      const s = await session({ successUrl: SUCCESS, cancelUrl: CANCEL, merchantReference: 'order-1' });
      const form = await page(s.path);
      expect(form.status).toBe(200);
      expect(linkHref(form.text, 'cancel')).toBe(`https://shop.example/cart/${s.id}`);
      expect(form.text).not.toContain('CHECKOUT_SESSION_ID');

      expect((await pay(s.id, card(s.clientSecret, '4242424242424242'))).status).toBe(303);
      await m.settle();
      const done = await page(s.path);
      expect(done.status).toBe(303);
      expect(done.headers.location).toBe(`https://shop.example/thanks?session=${s.id}&from=payplane`);
      // the answer's body is the paid page, with the same way back
      expect(linkHref(done.text, 'return')).toBe(`https://shop.example/thanks?session=${s.id}&from=payplane`);
      expect(done.text).not.toContain('CHECKOUT_SESSION_ID');
      // the session still reads as given
      expect((await m.as(merchantKey).get(`/v1/checkout-sessions/${s.id}`)).body.data.successUrl).toBe(SUCCESS);
    });

    test('the placeholder in a path, plain or percent-encoded, is replaced too', async () => {
      for (const given of [
        'https://shop.example/orders/{CHECKOUT_SESSION_ID}/thanks',
        'https://shop.example/orders/%7BCHECKOUT_SESSION_ID%7D/thanks',
      ]) {
        const s = await session({ successUrl: given });
        await pay(s.id, card(s.clientSecret, '4242424242424242'));
        await m.settle();
        const done = await page(s.path);
        expect(done.status).toBe(303);
        expect(done.headers.location).toBe(`https://shop.example/orders/${s.id}/thanks`);
      }
    });

    test('3DS through the hosted page: back to the status view, then to successUrl with the id', async () => {
      const s = await session({ successUrl: SUCCESS });
      const paid = await pay(s.id, card(s.clientSecret, '4000002760003184'));
      expect(paid.status).toBe(303);
      const challenge = new URL(paid.headers.location, 'http://localhost');
      expect(challenge.pathname).toMatch(/^\/sandbox\/3ds\//);
      const answered = await request(m.app).post(challenge.pathname).type('form').send({ action: 'complete' });
      expect(answered.status).toBe(303);
      const back = new URL(answered.headers.location);
      expect(back.pathname).toBe(`/checkout/${s.id}`);
      await m.settle();
      const cookie = (paid.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
      const done = await page(back.pathname, cookie);
      expect(done.status).toBe(303);
      expect(done.headers.location).toBe(`https://shop.example/thanks?session=${s.id}&from=payplane`);
    });

    test("3DS through the API (the session's clientSecret, no returnUrl): the challenge page returns to successUrl with the id", async () => {
      const s = await session({ successUrl: SUCCESS });
      const completed = await m.as(s.clientSecret).post(`/v1/checkout-sessions/${s.id}/complete`, {
        paymentMethod: { type: 'card', card: { number: '4000002760003184', expMonth: 12, expYear: 2030, cvc: '123' } },
      });
      expect(completed.status).toBe(200);
      const payment = (await m.as(merchantKey).get(`/v1/payments/${completed.body.data.paymentId}`)).body.data;
      expect(payment.status).toBe('requires_action');
      const challenge = new URL(payment.action.url);
      const answered = await request(m.app).post(challenge.pathname).type('form').send({ action: 'complete' });
      expect(answered.status).toBe(303);
      expect(answered.headers.location).toBe(`https://shop.example/thanks?session=${s.id}&from=payplane`);
      await m.settle();
    });
  });

  describe('2. the paid page', () => {
    test('without successUrl: the amount, formatted, and the merchant reference', async () => {
      const s = await session({ merchantReference: 'order-4711 <b>' });
      await pay(s.id, card(s.clientSecret, '4242424242424242'));
      await m.settle();
      const paid = await page(s.path);
      expect(paid.status).toBe(200);
      expect(paid.text).toContain('payment was received');
      expect(paid.text).toContain('<strong data-testid="amount">€49.90</strong>');
      expect(paid.text).toContain('<strong data-testid="reference">order-4711 &lt;b&gt;</strong>');
      expect(paid.text).not.toContain('id="return"');
      expect(paid.text).not.toContain('<form');
    });

    test("with successUrl: the redirect's body is the paid page (amount, reference, return link); no reference, no line", async () => {
      const s = await session({ successUrl: 'https://shop.example/thanks', merchantReference: 'order-42', locale: 'de-DE' });
      await pay(s.id, card(s.clientSecret, '4242424242424242'));
      await m.settle();
      const done = await page(s.path);
      expect(done.status).toBe(303);
      expect(done.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(done.text).toContain('<strong data-testid="amount">€49.90</strong>');
      expect(done.text).toContain('<strong data-testid="reference">order-42</strong>');
      expect(linkHref(done.text, 'return')).toBe('https://shop.example/thanks');

      const plain = await session();
      await pay(plain.id, card(plain.clientSecret, '4242424242424242'));
      await m.settle();
      const paid = await page(plain.path);
      expect(paid.status).toBe(200);
      expect(paid.text).toContain('data-testid="amount"');
      expect(paid.text).not.toContain('Order reference');
    });
  });

  describe('3. an invalid card field is marked, focused, and the form keeps what it may', () => {
    test('fields refused by the page: aria-invalid on each, autofocus on the first; name and expiry kept, number and CVC never', async () => {
      const s = await session();
      const res = await pay(s.id, {
        key: s.clientSecret,
        number: '1234 5678',
        expMonth: '13',
        expYear: '2031',
        cvc: '987',
        holderName: 'Ada "Lovelace"',
      });
      expect(res.status).toBe(400);
      const number = inputTag(res.text, 'number');
      expect(number).toContain('aria-invalid="true"');
      expect(number).toContain('aria-describedby="error-number"');
      expect(number).toContain('autofocus');
      expect(number).not.toContain('value=');
      const month = inputTag(res.text, 'expMonth');
      expect(month).toContain('aria-invalid="true"');
      expect(month).not.toContain('autofocus');
      expect(month).toContain('value="13"');
      const year = inputTag(res.text, 'expYear');
      expect(year).not.toContain('aria-invalid');
      expect(year).toContain('value="2031"');
      const cvc = inputTag(res.text, 'cvc');
      expect(cvc).not.toContain('aria-invalid');
      expect(cvc).not.toContain('value=');
      expect(inputTag(res.text, 'holderName')).toContain('value="Ada &quot;Lovelace&quot;"');
      // the messages the fields point to
      expect(res.text).toMatch(/<p id="error-number">Enter the card number[^<]*<\/p>/);
      expect(res.text).toMatch(/<p id="error-expMonth">Enter the expiry month[^<]*<\/p>/);
      expect(count(res.text, 'autofocus')).toBe(1);
      expect(res.text).not.toContain('1234 5678');
      expect(res.text).not.toContain('987');
    });

    test('a CVC refused by the page is the first invalid field after valid number and expiry', async () => {
      const s = await session();
      const res = await pay(s.id, { ...card(s.clientSecret, '4242424242424242'), cvc: '12' });
      expect(res.status).toBe(400);
      expect(inputTag(res.text, 'cvc')).toMatch(/aria-invalid="true".*autofocus/);
      expect(inputTag(res.text, 'number')).not.toContain('aria-invalid');
      expect(inputTag(res.text, 'number')).not.toContain('value=');
      expect(res.text).not.toContain('4242424242424242');
    });

    test('fields refused by the complete operation (check digit, expired card) are marked the same way', async () => {
      const s = await session();
      const luhn = await pay(s.id, card(s.clientSecret, '4242424242424241'));
      expect(luhn.status).toBe(400);
      expect(inputTag(luhn.text, 'number')).toMatch(/aria-invalid="true" aria-describedby="error-number" autofocus/);
      expect(luhn.text).toMatch(/<p id="error-number">Card number: [^<]+<\/p>/);
      expect(luhn.text).not.toContain('4242424242424241');
      expect(inputTag(luhn.text, 'holderName')).toContain('value="Ada Lovelace"');

      const expired = await pay(s.id, { ...card(s.clientSecret, '4242424242424242'), expYear: '2020' });
      expect(expired.status).toBe(400);
      expect(inputTag(expired.text, 'expYear')).toMatch(/aria-invalid="true".*autofocus/);
      expect(inputTag(expired.text, 'expYear')).toContain('value="2020"');
      expect(inputTag(expired.text, 'number')).not.toContain('aria-invalid');
      expect(count(expired.text, 'autofocus')).toBe(1);
      expect(expired.text).not.toContain('4242424242424242');
    });

    test('the first showing and a decline mark no field', async () => {
      const s = await session();
      const first = await page(s.path);
      expect(bodyOf(first.text)).not.toContain('aria-invalid');
      expect(first.text).not.toContain('autofocus');
      await pay(s.id, card(s.clientSecret, '4000000000000002'));
      await m.settle();
      const declined = await page(s.path);
      expect(declined.status).toBe(200);
      expect(declined.text).toContain('data-testid="error"');
      expect(bodyOf(declined.text)).not.toContain('aria-invalid');
    });
  });

  describe('4. one money format on the checkout and 3DS pages', () => {
    test("€25.00 style whatever the session's locale: lines, totals, pay button, status view, 3DS page", async () => {
      const s = await session({
        amount: eur(250000),
        locale: 'de-DE',
        lineItems: [{ id: 'tv', label: 'TV', unitAmount: eur(200000), quantity: 1, taxAmount: eur(50000) }],
      });
      const form = await page(s.path);
      expect(form.text).toContain('<td class="num" data-testid="total">€2,500.00</td>');
      expect(form.text).toContain('>€2,000.00<'); // the subtotal
      expect(form.text).toContain('>€500.00<'); // the tax
      expect(form.text).toContain('Pay €2,500.00</button>');
      expect(form.text).not.toMatch(/2\.500,00|2500\.00 EUR|2,500\.00 EUR/);

      const paid = await pay(s.id, card(s.clientSecret, '4000002760003184'));
      const processing = await page(s.path);
      expect(processing.text).toContain('data-testid="total">€2,500.00<');
      const challenge = await request(m.app).get(new URL(paid.headers.location, 'http://localhost').pathname);
      expect(challenge.status).toBe(200);
      expect(challenge.text).toContain('<p class="amount" data-testid="amount">€2,500.00</p>');
      expect(challenge.text).not.toContain('EUR');
      await request(m.app).post(new URL(paid.headers.location, 'http://localhost').pathname).type('form').send({ action: 'complete' });
      await m.settle();
    });
  });

  describe('5. the favicon', () => {
    test('GET /favicon.ico is not a 404, and the pages name an inline icon', async () => {
      const icon = await request(m.app).get('/favicon.ico');
      expect(icon.status).toBe(204);
      expect(icon.headers['cache-control']).toContain('max-age=');
      expect((await request(m.app).head('/favicon.ico')).status).toBe(204);
      const s = await session();
      const form = await page(s.path);
      expect(form.text).toContain('<link rel="icon" href="data:,">');
      // the page's policy allows the inline icon
      expect(form.headers['content-security-policy']).toMatch(/img-src [^;]*data:/);
      const paid = await pay(s.id, card(s.clientSecret, '4000002760003184'));
      const challenge = await request(m.app).get(new URL(paid.headers.location, 'http://localhost').pathname);
      expect(challenge.text).toContain('<link rel="icon" href="data:,">');
      expect(challenge.headers['content-security-policy']).toMatch(/img-src [^;]*data:/);
      await request(m.app).post(new URL(paid.headers.location, 'http://localhost').pathname).type('form').send({ action: 'fail' });
      await m.settle();
      // the not-found page too
      expect((await page(`/checkout/${s.id}?key=nope`)).text).toContain('<link rel="icon" href="data:,">');
    });
  });

  describe("6. the merchant's name once on the page", () => {
    test('form, invalid form, status view, paid page, expired page', async () => {
      const once = (res: request.Response) => {
        expect(count(bodyOf(res.text), MERCHANT)).toBe(1);
        expect(bodyOf(res.text)).toContain(`<p class="merchant" data-testid="merchant">${MERCHANT}</p>`);
      };
      const s = await session();
      once(await page(s.path));
      once(await pay(s.id, { ...card(s.clientSecret, '1'), holderName: 'Grace' }));
      await pay(s.id, card(s.clientSecret, '4242424242424242'));
      once(await page(s.path)); // processing
      await m.settle();
      once(await page(s.path)); // paid, without successUrl
      const gone = await session();
      await m.as(merchantKey).post(`/v1/checkout-sessions/${gone.id}/expire`);
      const expired = await page(gone.path);
      expect(expired.status).toBe(410);
      once(expired);
      // the window's title names the merchant (not on the page itself)
      expect((await page(gone.path)).text).toMatch(/<title>[^<]*Sandbox Merchant<\/title>/);
    });
  });
});
