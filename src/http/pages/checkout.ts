import express, { type NextFunction, type Request, type Response } from 'express';
import { parse as parseCookies } from 'cookie';
import type { Runtime } from '../../runtime';
import { withRequest, type CallerContext } from '../../domain/context';
import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  PayplaneError,
  PermissionError,
  RateLimitError,
  ValidationError,
} from '../../domain/errors';
import type { CheckoutSessionRow, PaymentRow } from '../../db/models';
import { authenticateClientSecret } from '../../services/access/authenticate';
import { hostedPageBase, hostedPageUrl, sessionRedirectUrl, sessionWithPayment } from '../../services/checkout/hosted-page';
import { completeCheckoutSession } from '../../services/checkout/completion';
import { requestOrigin } from '../pipeline';
import { authThrottle } from '../auth-throttle';
import { escapeHtml, htmlDocument, pageMoney, safeUrl, sendPage } from './html';

/**
 * The hosted checkout page. GET /checkout/{id}?key=<clientSecret> shows merchant, line items, totals and a card
 * form, or the state of the payment: while it is processing the answer waits for the acquirer (the session read again
 * quickly, backing off: OUTCOME_WAITS_MS), then the page refreshes itself (the Refresh header, no script: every second
 * at first, less often as the payment stays in flight: refreshSeconds); once the session is paid
 * it sends the customer to successUrl (303, the paid page as the answer's body; without a successUrl the paid page:
 * amount and merchant reference); a declined payment shows the decline and the form again. successUrl and cancelUrl
 * have their {CHECKOUT_SESSION_ID} filled in wherever the customer is sent to them. An invalid field comes back
 * marked (aria-invalid, autofocus on the first), the form keeping all but the card number and CVC. The form posts to
 * /checkout/{id}/pay (urlencoded, the key in the body), which completes the session with a client-secret caller
 * and redirects to the 3DS challenge (action.url) or back to the page. The page is never the authority on the
 * outcome (webhooks are). The key is a capability: never logged, never sent onwards (no-referrer), never stored: the
 * return URL a provider gets (and keeps with the payment) has no key; a cookie of this session's path (HttpOnly,
 * SameSite=Lax: sent on the top-level return from a 3DS page) brings it back.
 */

const IN_FLIGHT = new Set(['processing', 'requires_action']);
/** the cookie that holds the key while the customer is away on a 3DS page */
const KEY_COOKIE = 'payplane_checkout_key';
/**
 * While the payment is processing, how long the status view's answer waits between two reads of the session for the
 * acquirer's answer (the sandbox acquirer answers in about 300 ms): quickly first, backing off, about 2 s in all; then
 * the page is answered as it stands and refreshes itself. The wait holds no database connection between the reads.
 */
const OUTCOME_WAITS_MS = [50, 100, 150, 250, 400, 500, 550];

/**
 * Seconds until the status view refreshes itself (the Refresh header counts in whole seconds): every second while the
 * payment has been in flight for less than 10 s, then every 2 s, and every 5 s past a minute (a 3DS page left open).
 */
export function refreshSeconds(inFlightMs: number): number {
  if (inFlightMs < 10_000) return 1;
  if (inFlightMs < 60_000) return 2;
  return 5;
}

const DECLINES: Record<string, string> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  lost_card: 'Your card was declined (reported lost).',
  stolen_card: 'Your card was declined (reported stolen).',
  expired_card: 'Your card has expired.',
  incorrect_cvc: 'The security code (CVC) is incorrect.',
  card_not_supported: 'This card is not supported.',
  authentication_failed: 'The card could not be authenticated (3D Secure failed).',
  processing_error: 'The payment could not be processed. Please try again.',
  no_eligible_terminal: 'This card cannot be used for this payment.',
};

interface Loaded {
  ctx: CallerContext;
  session: CheckoutSessionRow;
  payment: PaymentRow | null;
}

export function mountCheckoutPages(app: express.Express, rt: Runtime): void {
  /** the session the key opens, or null (a bad key, another session's key, an absent session: all the same 404) */
  const load = async (req: Request, id: string, key: unknown): Promise<Loaded | null> => {
    if (typeof key !== 'string' || key.length === 0 || key.length > 200) return null;
    let ctx: CallerContext;
    try {
      // the failed-authentication throttle of the API counts the page's wrong keys too
      ctx = await authThrottle(rt).guard(rt, { credential: key, ip: req.ip ?? req.socket.remoteAddress ?? '' }, () =>
        authenticateClientSecret(rt, key, { requestId: req.res?.locals.requestId as string | undefined }),
      );
    } catch (error) {
      if (error instanceof AuthenticationError) return null;
      throw error;
    }
    if (ctx.checkoutSessionId !== id) return null;
    ctx = withRequest(ctx, { origin: requestOrigin(req) });
    return { ctx, ...(await sessionWithPayment(ctx, id)) };
  };

  app.get('/checkout/:id', async (req: Request, res: Response, next: NextFunction) => {
    try {
      const key = typeof req.query.key === 'string' ? req.query.key : keyFromCookie(req);
      const loaded = await load(req, String(req.params.id), key);
      if (!loaded || key === undefined) return send(res, 404, notFoundPage());
      const { session, payment } = loaded.session.paymentStatus === 'processing' ? await awaitOutcome(res, loaded) : loaded;
      const now = rt.clock.now();
      const finished =
        session.status === 'complete' || session.status === 'expired' || new Date(session.expiresAt).getTime() <= now.getTime();
      // the key's cookie is needed only while the customer may still pay
      if (finished && keyFromCookie(req) !== undefined) res.clearCookie(KEY_COOKIE, { path: `/checkout/${session.id}` });
      if (session.status === 'complete') {
        const success = successUrl(session);
        // the browser follows the redirect; the paid page is the answer's body for anything that does not
        if (success) return send(res, 303, paidPage(session, success), { location: success });
        return send(res, 200, paidPage(session, null));
      }
      if (IN_FLIGHT.has(session.paymentStatus ?? '')) {
        const since = new Date(payment?.updatedAt ?? session.updatedAt).getTime();
        return send(res, 200, processingPage(session, payment), { refreshSeconds: refreshSeconds(Math.max(0, now.getTime() - since)) });
      }
      if (session.status === 'expired' || new Date(session.expiresAt).getTime() <= now.getTime()) {
        return send(
          res,
          410,
          layout(
            session,
            'This checkout has expired',
            `<p data-testid="status">This checkout link is no longer valid.</p>${cancelLink(session, 'Return to the shop')}`,
          ),
        );
      }
      const decline = session.paymentStatus === 'failed' ? declineMessage(payment) : null;
      return send(res, 200, formPage(session, key, decline ? [{ message: decline }] : []));
    } catch (error) {
      fail(rt, res, next, error);
    }
  });

  app.post(
    '/checkout/:id/pay',
    express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20 }),
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const form = (req.body ?? {}) as Record<string, unknown>;
        const id = String(req.params.id);
        const loaded = await load(req, id, form.key);
        if (!loaded) return send(res, 404, notFoundPage());
        const { ctx, session } = loaded;
        const key = String(form.key);
        // the 3DS page sends the customer back here (absolute, for a provider elsewhere) without the key, which waits
        // in a cookie of this page; our own redirects stay relative
        const returnUrl = hostedPageUrl(hostedPageBase(ctx), id);
        res.cookie(KEY_COOKIE, key, {
          // Secure whenever customers reach us over https (behind a TLS-terminating proxy req.secure may not know)
          httpOnly: true,
          sameSite: 'lax',
          secure: req.secure || /^https:/i.test(rt.config.publicBaseUrl ?? ''),
          path: `/checkout/${id}`,
          maxAge: Math.max(0, new Date(session.expiresAt).getTime() - rt.clock.now().getTime()),
        });
        const statusUrl = hostedPageUrl('', id, key);
        const card = readCard(form);
        if ('errors' in card) return send(res, 400, formPage(session, key, card.errors, form));
        try {
          await completeCheckoutSession(ctx, id, { paymentMethod: { type: 'card', card: card.card }, returnUrl });
        } catch (error) {
          if (error instanceof ValidationError) {
            const problems = (error.errors?.length ? error.errors : [{ path: '', message: error.detail }]).map((e) =>
              cardProblem(e.path, e.message),
            );
            return send(res, 400, formPage(session, key, problems, form));
          }
          // paid, expired, or a payment already in flight (a second click): the page shows where things stand
          if (error instanceof ConflictError || error instanceof NotFoundError) return redirect(res, statusUrl);
          if (error instanceof PayplaneError && error.status < 500) {
            return send(res, error.status, formPage(session, key, [{ message: error.detail }], form));
          }
          throw error;
        }
        const after = await load(req, id, key);
        const action = after?.payment?.status === 'requires_action' ? safeUrl(after.payment.action?.url ?? null) : null;
        return redirect(res, action ?? statusUrl);
      } catch (error) {
        fail(rt, res, next, error);
      }
    },
  );
}

/** The key kept by the pay form's cookie (the return from a 3DS page carries none). */
function keyFromCookie(req: Request): string | undefined {
  return parseCookies(req.get('cookie') ?? '')[KEY_COOKIE];
}

function fail(rt: Runtime, res: Response, next: NextFunction, error: unknown): void {
  if (error instanceof PermissionError) {
    return send(res, 403, simplePage('Checkout unavailable', 'This merchant cannot take payments at the moment.'));
  }
  if (error instanceof RateLimitError && !res.headersSent) {
    res.set(error.headers ?? {});
    return send(
      res,
      429,
      simplePage('Too many attempts', 'Too many attempts with a wrong checkout link. Please wait a few minutes and try again.'),
    );
  }
  if (res.headersSent) return next(error);
  rt.logger.error({ err: error, requestId: res.locals.requestId }, 'checkout page failed');
  send(res, 500, simplePage('Something went wrong', 'The payment page could not be shown. Please try again in a moment.'));
}

// ---- the card form -------------------------------------------------------------------------------------------

/** the card form's fields, in the order the form shows them (the first invalid one takes the focus) */
const CARD_FIELDS = ['number', 'expMonth', 'expYear', 'cvc', 'holderName'] as const;
type CardField = (typeof CARD_FIELDS)[number];
const FIELD_NAMES: Record<CardField, string> = {
  number: 'Card number',
  expMonth: 'Expiry month',
  expYear: 'Expiry year',
  cvc: 'Security code',
  holderName: 'Cardholder name',
};

/** What the form says went wrong: about one field (marked on the field) or about the payment. */
interface FormProblem {
  field?: CardField;
  message: string;
}

function readCard(
  form: Record<string, unknown>,
): { card: { number: string; expMonth: number; expYear: number; cvc?: string; holderName?: string } } | { errors: FormProblem[] } {
  const str = (name: string) => (typeof form[name] === 'string' ? (form[name] as string).trim() : '');
  const errors: FormProblem[] = [];
  const number = str('number').replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number)) errors.push({ field: 'number', message: 'Enter the card number (12 to 19 digits).' });
  const month = str('expMonth');
  if (!/^\d{1,2}$/.test(month) || Number(month) < 1 || Number(month) > 12)
    errors.push({ field: 'expMonth', message: 'Enter the expiry month (1 to 12).' });
  const yearText = str('expYear');
  if (!/^(\d{2}|\d{4})$/.test(yearText)) errors.push({ field: 'expYear', message: 'Enter the expiry year (e.g. 2030).' });
  const cvc = str('cvc');
  if (cvc && !/^\d{3,4}$/.test(cvc)) errors.push({ field: 'cvc', message: 'The security code (CVC) has 3 or 4 digits.' });
  const holderName = str('holderName').slice(0, 200);
  if (errors.length) return { errors };
  const year = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  return { card: { number, expMonth: Number(month), expYear: year, ...(cvc ? { cvc } : {}), ...(holderName ? { holderName } : {}) } };
}

/** A refusal of the complete operation (`body.paymentMethod.card.number`, …) as the form shows it. */
function cardProblem(path: string, message: string): FormProblem {
  const last = path.split('.').pop() ?? '';
  const field = (CARD_FIELDS as readonly string[]).includes(last) && /(^|\.)card\.[^.]+$/.test(path) ? (last as CardField) : undefined;
  return field ? { field, message: `${FIELD_NAMES[field]}: ${message}.` } : { message };
}

function declineMessage(payment: PaymentRow | null): string {
  if (!payment) return 'The payment did not go through. Please try another card.';
  return `${(payment.errorCode && DECLINES[payment.errorCode]) || 'The payment did not go through.'} Please try another card.`;
}

// ---- HTML ----------------------------------------------------------------------------------------------------

function money(session: CheckoutSessionRow, valueMinor: number, currency = session.currency): string {
  return pageMoney({ currency, valueMinor });
}

/** where the paid customer goes: the session's successUrl, its {CHECKOUT_SESSION_ID} filled in; null without one */
function successUrl(session: CheckoutSessionRow): string | null {
  return safeUrl(sessionRedirectUrl(session.successUrl, session.id));
}

function cancelLink(session: CheckoutSessionRow, text = 'Cancel and return to the shop'): string {
  const url = safeUrl(sessionRedirectUrl(session.cancelUrl, session.id));
  return url ? `<p class="cancel"><a id="cancel" href="${escapeHtml(url)}">${escapeHtml(text)}</a></p>` : '';
}

function summary(session: CheckoutSessionRow): string {
  const lines = (session.lineItems ?? [])
    .map((item) => {
      const lineMinor = item.unitAmount.valueMinor * item.quantity + (item.taxAmount?.valueMinor ?? 0);
      return `<tr><td>${escapeHtml(item.label)}${item.quantity > 1 ? ` <span class="muted">× ${escapeHtml(item.quantity)}</span>` : ''}${
        item.description ? `<br><span class="muted">${escapeHtml(item.description)}</span>` : ''
      }</td><td class="num">${escapeHtml(money(session, lineMinor, item.unitAmount.currency))}</td></tr>`;
    })
    .join('');
  const totals = (session.totals ?? [])
    .filter((t) => t.type !== 'total')
    // formatted as every amount of the pages (displayText follows the session's locale)
    .map(
      (t) =>
        `<tr class="sub"><td>${escapeHtml(t.description ?? t.type)}</td><td class="num">${escapeHtml(money(session, t.amount.valueMinor, t.amount.currency))}</td></tr>`,
    )
    .join('');
  const total = `<tr class="total"><td>Total</td><td class="num" data-testid="total">${escapeHtml(money(session, session.amountMinor))}</td></tr>`;
  return `<table class="summary">${lines}${totals}${total}</table>`;
}

function formPage(session: CheckoutSessionRow, key: string, problems: FormProblem[], form: Record<string, unknown> = {}): string {
  // what the customer typed comes back, except the card number and the CVC (never written into a page)
  const value = (name: CardField) => (typeof form[name] === 'string' && name !== 'number' && name !== 'cvc' ? escapeHtml(form[name]) : '');
  const invalid = new Set(problems.map((p) => p.field).filter((f): f is CardField => f !== undefined));
  const first = CARD_FIELDS.find((f) => invalid.has(f));
  const described = new Set<CardField>();
  const errorBox = problems.length
    ? `<div class="error" role="alert" data-testid="error">${problems
        .map((p) => {
          // the field's first message describes it (aria-describedby)
          const id = p.field && !described.has(p.field) ? (described.add(p.field), ` id="error-${p.field}"`) : '';
          return `<p${id}>${escapeHtml(p.message)}</p>`;
        })
        .join('')}</div>`
    : '';
  /** the attributes of a field: its value when kept, and when invalid aria-invalid, its message and (the first) the focus */
  const attrs = (name: CardField) =>
    `${value(name) ? ` value="${value(name)}"` : ''}${
      invalid.has(name) ? ` aria-invalid="true" aria-describedby="error-${name}"${name === first ? ' autofocus' : ''}` : ''
    }`;
  const sandbox = session.livemode
    ? ''
    : '<p class="muted sandbox">Test mode: use a sandbox card such as 4242 4242 4242 4242, any future expiry and any CVC.</p>';
  return layout(
    session,
    'Pay by card',
    `${summary(session)}
    ${errorBox}
    <form method="post" action="/checkout/${escapeHtml(session.id)}/pay" autocomplete="on">
      <input type="hidden" name="key" value="${escapeHtml(key)}">
      <label>Card number<input id="number" name="number" inputmode="numeric" autocomplete="cc-number" required maxlength="23"${attrs('number')}></label>
      <div class="row">
        <label>Month<input id="expMonth" name="expMonth" inputmode="numeric" autocomplete="cc-exp-month" placeholder="MM" required maxlength="2"${attrs('expMonth')}></label>
        <label>Year<input id="expYear" name="expYear" inputmode="numeric" autocomplete="cc-exp-year" placeholder="YYYY" required maxlength="4"${attrs('expYear')}></label>
        <label>CVC<input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4"${attrs('cvc')}></label>
      </div>
      <label>Cardholder name<input id="holderName" name="holderName" autocomplete="cc-name" maxlength="200"${attrs('holderName')}></label>
      <button type="submit" id="pay">Pay ${escapeHtml(money(session, session.amountMinor))}</button>
    </form>
    ${sandbox}
    ${cancelLink(session)}`,
  );
}

/** The session paid: what was paid and the merchant's reference for it, and the way back to the shop when there is one. */
function paidPage(session: CheckoutSessionRow, success: string | null): string {
  const reference = session.merchantReference
    ? `<br>Order reference: <strong data-testid="reference">${escapeHtml(session.merchantReference)}</strong>`
    : '';
  return layout(
    session,
    'Payment received',
    `<p class="ok" data-testid="status">Thank you: your payment was received.</p>
    <p class="paid">Amount paid: <strong data-testid="amount">${escapeHtml(money(session, session.amountMinor))}</strong>${reference}</p>
    ${summary(session)}
    ${success ? `<p class="cancel"><a id="return" href="${escapeHtml(success)}">Return to the shop</a></p>` : ''}`,
  );
}

function processingPage(session: CheckoutSessionRow, payment: PaymentRow | null): string {
  const action = payment?.status === 'requires_action' ? safeUrl(payment.action?.url ?? null) : null;
  return layout(
    session,
    'Processing your payment',
    `${summary(session)}
    <p data-testid="status" class="processing">Your payment is being processed. This page updates by itself.</p>
    ${action ? `<p><a id="continue" href="${escapeHtml(action)}">Continue to your bank's verification</a></p>` : ''}`,
  );
}

function notFoundPage(): string {
  return simplePage('Checkout not found', 'This checkout link is not valid. Ask the shop for a new one.');
}

function simplePage(title: string, text: string): string {
  return document(title, `<h1>${escapeHtml(title)}</h1><p data-testid="status">${escapeHtml(text)}</p>`);
}

function layout(session: CheckoutSessionRow, title: string, body: string): string {
  const terms = [
    safeUrl(session.termsUrl) && `<a href="${escapeHtml(safeUrl(session.termsUrl))}">Terms</a>`,
    safeUrl(session.privacyUrl) && `<a href="${escapeHtml(safeUrl(session.privacyUrl))}">Privacy</a>`,
  ]
    .filter(Boolean)
    .join(' · ');
  // the merchant's name once on the page (the heading does not repeat it); the window's title names it too
  return document(
    `${title} · ${session.merchantName}`,
    `<p class="merchant" data-testid="merchant">${escapeHtml(session.merchantName)}</p>
    <h1>${escapeHtml(title)}</h1>
    ${body}
    ${terms ? `<p class="muted legal">${terms}</p>` : ''}`,
    session.locale ?? 'en',
  );
}

function document(title: string, body: string, lang = 'en'): string {
  return htmlDocument({
    title,
    body,
    lang,
    css: `
  body { padding: 2rem 1rem; }
  main { max-width: 28rem; }
  h1 { margin: .25rem 0 1rem; }
  .merchant { font-weight: 600; color: #2f5bea; margin: 0; }
  table.summary { width: 100%; border-collapse: collapse; margin-bottom: 1.25rem; }
  table.summary td { padding: .35rem 0; border-bottom: 1px solid #eef0f3; vertical-align: top; }
  table.summary .num { text-align: right; white-space: nowrap; }
  table.summary tr.total td { font-weight: 700; border-bottom: 0; font-size: 1.1rem; }
  label { display: block; font-size: .875rem; margin-bottom: .75rem; }
  input { display: block; width: 100%; box-sizing: border-box; padding: .6rem; margin-top: .25rem; border: 1px solid #cfd4dc; border-radius: 6px; font-size: 1rem; }
  input[aria-invalid="true"] { border-color: #c81e1e; outline-color: #c81e1e; background: #fff8f8; }
  .row { display: flex; gap: .5rem; }
  .row label { flex: 1; }
  button { width: 100%; padding: .8rem; margin-top: .5rem; }
  .error { background: #fdecec; color: #9b1c1c; border-radius: 6px; padding: .5rem .75rem; margin-bottom: 1rem; }
  .error p { margin: .25rem 0; }
  .ok { color: #166534; }
  .paid { line-height: 1.6; }
  .cancel { text-align: center; margin-top: 1rem; }`,
  });
}

/**
 * The session and payment once the processing payment has an answer, or as they are after the waits: read again after
 * each of OUTCOME_WAITS_MS (a customer who left stops the wait).
 */
async function awaitOutcome(res: Response, loaded: Loaded): Promise<Loaded> {
  let current = loaded;
  let gone = false;
  const onClose = () => {
    gone = true;
  };
  // the response closes before it was sent only when the customer left
  res.on('close', onClose);
  try {
    for (const wait of OUTCOME_WAITS_MS) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      if (gone) break;
      current = { ...current, ...(await sessionWithPayment(current.ctx, current.session.id)) };
      if (current.session.paymentStatus !== 'processing') break;
    }
  } finally {
    res.off('close', onClose);
  }
  return current;
}

/** A checkout page (its URL holds the session's key: never sent onwards); images of the merchant's line items may load. */
function send(res: Response, status: number, html: string, options: { refreshSeconds?: number; location?: string } = {}): void {
  sendPage(res, status, html, { ...options, imgSrc: "'self' https: data:" });
}

function redirect(res: Response, url: string): void {
  res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
  res.redirect(303, url);
}
