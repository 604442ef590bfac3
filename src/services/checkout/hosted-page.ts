import type { CallerContext } from '../../domain/context';
import { scoped } from '../../db/scoped';
import type { CheckoutSessionRow, PaymentRow } from '../../db/models';
import { publicBase } from '../../util/public-url';
import { loadRow } from './record';

// The hosted page's addresses and what it shows (the page itself: src/http/pages/checkout.ts).

/** The base of the hosted page: the public base of every URL handed out (src/util/public-url.ts). */
export function hostedPageBase(ctx: Pick<CallerContext, 'config' | 'origin'>): string {
  return publicBase(ctx);
}

/**
 * The placeholder a successUrl (or cancelUrl, or the profile's returnUrl) may carry, as Stripe's does: the URL is
 * stored and read back as given, and the placeholder is replaced by the session's id wherever the customer is sent to
 * it. `new URL` percent-encodes braces in a path, so the encoded form `%7BCHECKOUT_SESSION_ID%7D` counts too.
 */
const PLACEHOLDER_RE = /\{CHECKOUT_SESSION_ID\}|%7[Bb]CHECKOUT_SESSION_ID%7[Dd]/g;

/** The URL the customer is sent to: `{CHECKOUT_SESSION_ID}` (plain or percent-encoded) replaced by the session's id. */
export function sessionRedirectUrl(url: string, sessionId: string): string;
export function sessionRedirectUrl(url: string | null | undefined, sessionId: string): string | null;
export function sessionRedirectUrl(url: string | null | undefined, sessionId: string): string | null {
  if (!url) return null;
  // the id is a UUID: nothing in it needs encoding in any part of a URL
  return url.replace(PLACEHOLDER_RE, sessionId);
}

export function hostedPageUrl(base: string, sessionId: string, clientSecret?: string): string {
  return `${base}/checkout/${sessionId}${clientSecret ? `?key=${encodeURIComponent(clientSecret)}` : ''}`;
}

/** What the hosted page shows: the session (scoped; 404 when invisible) and its latest payment, if any. */
export async function sessionWithPayment(
  ctx: CallerContext,
  id: string,
): Promise<{ session: CheckoutSessionRow; payment: PaymentRow | null }> {
  const session = await loadRow(ctx, id);
  const payment = session.paymentId ? await scoped(ctx, ctx.db.models.Payment).find(session.paymentId) : null;
  return { session, payment };
}
