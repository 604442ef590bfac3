import { selectRows } from '../../db/rows';
import { Op } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { BusinessRuleError, PermissionError, ConflictError, NotFoundError, ValidationError } from '../../domain/errors';
import { formatMinor, type Money } from '../../domain/money';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type {
  CheckoutFulfillmentOption, CheckoutLineItem, CheckoutSelectedFulfillment, CheckoutSessionRow, CheckoutSessionStatus,
  CheckoutTotal, MerchantRow, TenantRow,
} from '../../db/models';
import { newId } from '../../util/ids';
import { randomBase62, safeEqual, sha256Hex } from '../../util/secrets';
import { recordAudit } from '../audit/entries';
import { findProfileFor } from '../profiles';
import { iso, mapPage, type Presented } from '../present';
import { emitEvent } from '../webhooks/events';
import { publicBase } from '../../util/public-url';

// Checkout sessions: what a customer is asked to pay and the hosted page that collects it. The payment path
// (src/services/payments/*) creates the payment and tells the session through recordSessionPayment.

/** when the merchant has no enabled checkout integration profile */
export const DEFAULT_SESSION_LIFETIME_SECONDS = 86_400;
/** payment statuses during which the session may be neither paid again, changed nor expired */
export const PAYMENT_IN_FLIGHT = ['processing', 'requires_action'] as const;
/** payment statuses that mean the customer paid: the session becomes complete */
export const PAYMENT_APPROVED = ['requires_capture', 'captured'] as const;

// ---- client secret -------------------------------------------------------------------------------------------

const SECRET_RE = /^cs_(test|live)_([0-9a-f]{32})_secret_([A-Za-z0-9]{32})$/;

/** cs_<mode>_<session id>_secret_<32 random base62>: names its session, so it is found without a scan. */
export function generateClientSecret(livemode: boolean, sessionId: string): { secret: string; hash: string } {
  const secret = `cs_${livemode ? 'live' : 'test'}_${sessionId.replace(/-/g, '')}_secret_${randomBase62(32)}`;
  return { secret, hash: sha256Hex(secret) };
}

export function parseClientSecret(secret: string): { livemode: boolean; sessionId: string } | null {
  const m = SECRET_RE.exec(secret);
  if (!m) return null;
  const h = m[2];
  return { livemode: m[1] === 'live', sessionId: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}` };
}

/** constant-time comparison of the secret's hash with the stored one */
export function verifyClientSecret(secret: string, storedHash: string): boolean {
  return safeEqual(sha256Hex(secret), storedHash);
}

// ---- presentation --------------------------------------------------------------------------------------------

/** The specification's checkout session record: the row's fields (dates as ISO strings) with its amount as Money. */
export type CheckoutSession = Presented<Omit<CheckoutSessionRow, 'currency' | 'amountMinor' | 'clientSecretHash' | 'completedAt' | 'expiredAt'>> & {
  amount: Money;
  /** shown once, when the session is created */
  clientSecret?: string;
};

export function toSession(row: CheckoutSessionRow): CheckoutSession {
  return {
    id: row.id,
    tenantId: row.tenantId,
    merchantId: row.merchantId,
    paymentId: row.paymentId ?? null,
    merchantName: row.merchantName,
    tenantName: row.tenantName,
    merchantReference: row.merchantReference ?? null,
    locale: row.locale ?? null,
    providerCheckoutId: row.providerCheckoutId ?? null,
    termsUrl: row.termsUrl ?? null,
    privacyUrl: row.privacyUrl ?? null,
    url: row.url,
    successUrl: row.successUrl ?? null,
    cancelUrl: row.cancelUrl ?? null,
    channelId: row.channelId ?? null,
    livemode: row.livemode,
    status: row.status,
    paymentStatus: row.paymentStatus ?? null,
    amount: { currency: row.currency, valueMinor: row.amountMinor },
    captureMethod: row.captureMethod,
    lineItems: row.lineItems ?? [],
    totals: row.totals ?? [],
    fulfillmentOptions: row.fulfillmentOptions ?? [],
    selectedFulfillment: row.selectedFulfillment ?? null,
    customerInfo: row.customerInfo ?? null,
    agenticContext: row.agenticContext ?? null,
    metadata: row.metadata ?? {},
    createdAt: iso(row.createdAt)!,
    expiresAt: iso(row.expiresAt)!,
    updatedAt: iso(row.updatedAt)!,
    deletedAt: iso(row.deletedAt),
  };
}

/** event data: the record as the API shows it */
const eventData = (row: CheckoutSessionRow) => ({ object: 'checkout.session', ...toSession(row) });

// ---- amounts -------------------------------------------------------------------------------------------------

function lineTotal(item: CheckoutLineItem): number {
  return item.unitAmount.valueMinor * item.quantity + (item.taxAmount?.valueMinor ?? 0);
}

/**
 * The amount and totals of a session: with line items, Σ(unitAmount × quantity) + Σ taxAmount + the selected
 * fulfillment's price; without, the base amount given at creation + the selected fulfillment's price.
 */
export function computeTotals(
  currency: string,
  lineItems: CheckoutLineItem[],
  baseMinor: number,
  selected: CheckoutSelectedFulfillment | null,
  locale?: string | null,
): { amountMinor: number; totals: CheckoutTotal[] } {
  const money = (valueMinor: number) => ({ currency, valueMinor });
  const total = (type: CheckoutTotal['type'], valueMinor: number, description?: string): CheckoutTotal => ({
    type, displayText: formatMinor(money(valueMinor), { locale: locale ?? 'en' }), amount: money(valueMinor), ...(description ? { description } : {}),
  });
  const shipping = selected?.price.valueMinor ?? 0;
  const totals: CheckoutTotal[] = [];
  let amountMinor: number;
  if (lineItems.length) {
    const subtotal = lineItems.reduce((s, i) => s + i.unitAmount.valueMinor * i.quantity, 0);
    const tax = lineItems.reduce((s, i) => s + (i.taxAmount?.valueMinor ?? 0), 0);
    totals.push(total('subtotal', subtotal, 'Items'));
    if (lineItems.some((i) => i.taxAmount)) totals.push(total('tax', tax, 'Tax'));
    amountMinor = subtotal + tax + shipping;
  } else {
    if (selected) totals.push(total('subtotal', baseMinor, 'Order'));
    amountMinor = baseMinor + shipping;
  }
  if (selected) totals.push(total('fulfillment', shipping, selected.title));
  totals.push(total('total', amountMinor, 'Total'));
  return { amountMinor, totals };
}

interface LineItemInput extends Omit<CheckoutLineItem, 'id'> {
  id?: string;
}

function checkCurrency(m: Money | undefined, currency: string, path: string): void {
  if (m && m.currency !== currency) throw ValidationError.field(`${path}.currency`, `must be ${currency}, the currency of the session`, 'CURRENCY_MISMATCH');
}

function buildLineItems(items: LineItemInput[], currency: string, path: string): CheckoutLineItem[] {
  const seen = new Set<string>();
  return items.map((item, i) => {
    checkCurrency(item.unitAmount, currency, `${path}[${i}].unitAmount`);
    checkCurrency(item.taxAmount, currency, `${path}[${i}].taxAmount`);
    const id = item.id ?? `li_${newId().replace(/-/g, '').slice(-16)}`;
    if (seen.has(id)) throw ValidationError.field(`${path}[${i}].id`, 'is used by another line item');
    seen.add(id);
    if (!Number.isSafeInteger(lineTotal({ ...item, id }))) throw ValidationError.field(`${path}[${i}].quantity`, 'makes the line total too large');
    return { ...item, id };
  });
}

function buildFulfillmentOptions(options: CheckoutFulfillmentOption[], currency: string, path: string): CheckoutFulfillmentOption[] {
  const seen = new Set<string>();
  options.forEach((o, i) => {
    checkCurrency(o.price, currency, `${path}[${i}].price`);
    if (seen.has(o.id)) throw ValidationError.field(`${path}[${i}].id`, 'is used by another fulfillment option');
    seen.add(o.id);
  });
  return options;
}

function selectFulfillment(options: CheckoutFulfillmentOption[], optionId: string, path: string): CheckoutSelectedFulfillment {
  const option = options.find((o) => o.id === optionId);
  if (!option) throw ValidationError.field(`${path}.fulfillmentOptionId`, 'is not one of the session\'s fulfillmentOptions', 'UNKNOWN_FULFILLMENT_OPTION');
  return { fulfillmentOptionId: option.id, type: option.type, title: option.title, price: option.price };
}

function checkAmount(amountMinor: number, path: string): void {
  if (amountMinor < 1) throw ValidationError.field(path, 'the session total must be at least 1 minor unit');
  if (!Number.isSafeInteger(amountMinor)) throw ValidationError.field(path, 'the session total is too large');
}

// ---- access --------------------------------------------------------------------------------------------------

/** A client-secret caller reaches its own session only: any other id does not exist for it. */
function assertReachable(ctx: CallerContext, id: string): void {
  if (ctx.credential === 'client_secret' && id !== ctx.checkoutSessionId) throw new NotFoundError('checkout session', id);
}

async function loadRow(ctx: CallerContext, id: string, lock = false): Promise<CheckoutSessionRow> {
  assertReachable(ctx, id);
  return scoped(ctx, ctx.db.models.CheckoutSession).get(id, { lock });
}

const inFlight = (row: Pick<CheckoutSessionRow, 'paymentStatus'>) => (PAYMENT_IN_FLIGHT as readonly string[]).includes(row.paymentStatus ?? '');

function isPastDeadline(row: CheckoutSessionRow, now: Date): boolean {
  return new Date(row.expiresAt).getTime() <= now.getTime();
}

/** open, not past its deadline, no payment in flight: what update and complete require */
function assertChangeable(row: CheckoutSessionRow, now: Date): void {
  if (row.status === 'complete') {
    throw new ConflictError('CHECKOUT_SESSION_COMPLETE', 'The checkout session is already paid (status complete).');
  }
  if (row.status === 'expired' || isPastDeadline(row, now)) {
    throw new ConflictError('CHECKOUT_SESSION_EXPIRED', `The checkout session expired at ${iso(row.expiresAt)}.`, {
      hint: 'Create a new checkout session.',
    });
  }
  if (inFlight(row)) {
    throw new ConflictError('CHECKOUT_PAYMENT_IN_FLIGHT', `A payment of this session is ${row.paymentStatus}; wait for its outcome.`);
  }
}

/** the CAS condition matching assertChangeable (a concurrent move makes the update match nothing) */
const changeableWhere = () => ({
  status: 'open',
  [Op.or]: [{ paymentStatus: null }, { paymentStatus: { [Op.notIn]: [...PAYMENT_IN_FLIGHT] } }],
});

function raced(): ConflictError {
  return new ConflictError('CHECKOUT_SESSION_CHANGED', 'The checkout session changed meanwhile (paid, expired or a payment started); read it again.');
}

// ---- operations ----------------------------------------------------------------------------------------------

export interface CreateSessionInput {
  amount: Money;
  merchantId?: string;
  merchantReference?: string;
  lineItems?: LineItemInput[];
  fulfillmentOptions?: CheckoutFulfillmentOption[];
  successUrl?: string;
  cancelUrl?: string;
  channelId?: string;
  termsUrl?: string;
  privacyUrl?: string;
  locale?: string;
  customerInfo?: Record<string, unknown>;
  agenticContext?: Record<string, unknown>;
  captureMethod?: 'automatic' | 'manual';
  metadata?: Record<string, string>;
}

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

/** The named payin channel, checked: of the tenant, active, payin, carrying the currency (400 naming the field otherwise). */
async function payinChannel(tx: CallerContext, tenantId: string, currency: string, channelId: string | undefined): Promise<string | null> {
  if (!channelId) return null;
  const channel = await scoped(tx, tx.db.models.Channel).findOne({ id: channelId, tenantId });
  if (!channel) throw ValidationError.field('body.channelId', 'is not a channel of the merchant\'s tenant', 'CHANNEL_NOT_FOUND');
  if (channel.direction !== 'payin') throw ValidationError.field('body.channelId', 'must be a payin channel');
  if (channel.status !== 'active') throw ValidationError.field('body.channelId', `is ${channel.status}`);
  if (!channel.currencies.includes(currency)) throw ValidationError.field('body.channelId', `does not carry ${currency} (${channel.currencies.join(', ')})`);
  return channel.id;
}

/** Creates an open session; the answer alone carries clientSecret and the url with its key. */
export async function createSession(ctx: CallerContext, input: CreateSessionInput): Promise<CheckoutSession> {
  if (ctx.level === 'tenant' && !input.merchantId) {
    throw ValidationError.field('body.merchantId', 'is required for tenant callers: the merchant the session is for');
  }
  return inTransaction(ctx, async (tx) => {
    const merchantId = input.merchantId ?? ctx.merchantId!;
    const merchant = (await scoped(tx, tx.db.models.Merchant).find(merchantId)) as MerchantRow | null;
    if (!merchant) throw new NotFoundError('merchant', merchantId, { errors: [{ path: 'body.merchantId', message: 'no such merchant' }] });
    if (merchant.status !== 'active') {
      throw new ConflictError('MERCHANT_NOT_ACTIVE', `The merchant is ${merchant.status}; it cannot take payments.`);
    }
    if (tx.livemode && merchant.liveStatus !== 'approved') {
      throw new BusinessRuleError('MERCHANT_NOT_LIVE', 'The merchant is not approved for live payments; use a test key.');
    }
    const [tenant] = await selectRows<TenantRow>(tx.db, tx.db.models.Tenant as never, { id: merchant.tenantId }, { transaction: tx.transaction, limit: 1 });
    const currency = input.amount.currency;
    const lineItems = buildLineItems(input.lineItems ?? [], currency, 'body.lineItems');
    const fulfillmentOptions = buildFulfillmentOptions(input.fulfillmentOptions ?? [], currency, 'body.fulfillmentOptions');
    const { amountMinor, totals } = computeTotals(currency, lineItems, input.amount.valueMinor, null, input.locale);
    if (lineItems.length && amountMinor !== input.amount.valueMinor) {
      throw ValidationError.field(
        'body.amount.valueMinor',
        `must equal the total of lineItems, ${formatMinor({ currency, valueMinor: amountMinor })} (${amountMinor} minor units: Σ unitAmount × quantity + Σ taxAmount)`,
        'AMOUNT_MISMATCH',
      );
    }
    const profile = await findProfileFor(tx, merchant.id, 'checkout');
    const lifetime = profile && profile.status === 'enabled' ? profile.sessionLifetime : DEFAULT_SESSION_LIFETIME_SECONDS;
    const now = tx.clock.now();
    const id = newId();
    const { secret, hash } = generateClientSecret(tx.livemode, id);
    const base = hostedPageBase(ctx);
    const row = await scoped(tx, tx.db.models.CheckoutSession).create({
      id,
      tenantId: merchant.tenantId,
      merchantId: merchant.id,
      status: 'open',
      paymentStatus: null,
      paymentId: null,
      currency,
      amountMinor,
      captureMethod: input.captureMethod ?? 'automatic',
      merchantName: merchant.name,
      tenantName: tenant?.name ?? '',
      merchantReference: input.merchantReference ?? null,
      locale: input.locale ?? profile?.defaultLocale ?? null,
      providerCheckoutId: null,
      termsUrl: input.termsUrl ?? null,
      privacyUrl: input.privacyUrl ?? null,
      url: hostedPageUrl(base, id),
      successUrl: input.successUrl ?? profile?.returnUrl ?? null,
      cancelUrl: input.cancelUrl ?? null,
      channelId: await payinChannel(tx, merchant.tenantId, currency, input.channelId),
      lineItems,
      totals,
      fulfillmentOptions,
      selectedFulfillment: null,
      customerInfo: input.customerInfo ?? null,
      agenticContext: input.agenticContext ?? null,
      metadata: input.metadata ?? {},
      clientSecretHash: hash,
      expiresAt: new Date(now.getTime() + lifetime * 1000),
      completedAt: null,
      expiredAt: null,
    });
    const session = toSession(row);
    await recordAudit(tx, {
      action: 'checkout_session.created', targetType: 'checkout_session', targetId: id, tenantId: row.tenantId, merchantId: row.merchantId,
      after: session,
    });
    await emitEvent(tx, { type: 'checkout.session.created', data: eventData(row), tenantId: row.tenantId, merchantId: row.merchantId });
    return { ...session, url: hostedPageUrl(base, id, secret), clientSecret: secret };
  });
}

export interface SessionFilters {
  status?: CheckoutSessionStatus;
  merchantId?: string;
  paymentId?: string;
  createdFrom?: string;
  createdTo?: string;
}

export async function listSessions(ctx: CallerContext, filters: SessionFilters, page: ListParams): Promise<Page<CheckoutSession>> {
  const where: Record<string | symbol, unknown> = {};
  for (const key of ['status', 'merchantId', 'paymentId'] as const) if (filters[key]) where[key] = filters[key];
  const created: Record<symbol, Date> = {};
  if (filters.createdFrom) created[Op.gte] = new Date(filters.createdFrom);
  if (filters.createdTo) created[Op.lt] = new Date(filters.createdTo);
  if (Object.getOwnPropertySymbols(created).length) where.createdAt = created;
  const result = await scoped(ctx, ctx.db.models.CheckoutSession).list(where, page);
  return mapPage(result, (row) => toSession(row));
}

export async function getSession(ctx: CallerContext, id: string): Promise<CheckoutSession> {
  return toSession(await loadRow(ctx, id));
}

/** The session as the payment path needs it (scoped; 404 when invisible), amountMinor a number. */
export async function getSessionForPayment(ctx: CallerContext, sessionId: string): Promise<CheckoutSessionRow> {
  return loadRow(ctx, sessionId);
}

export interface UpdateSessionInput {
  customerInfo?: Record<string, unknown>;
  selectedFulfillment?: { fulfillmentOptionId: string } | null;
  lineItems?: LineItemInput[];
  metadata?: Record<string, string>;
  agenticContext?: Record<string, unknown>;
}

/** the changes an update makes to a row (amount and totals follow the lines and the fulfillment) */
function applyUpdate(row: CheckoutSessionRow, input: UpdateSessionInput, path: string): Partial<CheckoutSessionRow> {
  const changes: Partial<CheckoutSessionRow> = {};
  if (input.customerInfo !== undefined) changes.customerInfo = { ...(row.customerInfo ?? {}), ...input.customerInfo };
  if (input.metadata !== undefined) changes.metadata = input.metadata;
  if (input.agenticContext !== undefined) changes.agenticContext = { ...(row.agenticContext ?? {}), ...input.agenticContext };
  if (input.lineItems !== undefined || input.selectedFulfillment !== undefined) {
    const amountMinor = row.amountMinor;
    const lineItems = input.lineItems !== undefined ? buildLineItems(input.lineItems, row.currency, `${path}.lineItems`) : row.lineItems;
    const selected =
      input.selectedFulfillment === undefined
        ? row.selectedFulfillment
        : input.selectedFulfillment === null
          ? null
          : selectFulfillment(row.fulfillmentOptions, input.selectedFulfillment.fulfillmentOptionId, `${path}.selectedFulfillment`);
    // without lines, the base is what the merchant asked for: the amount less the current fulfillment price
    const base = amountMinor - (row.selectedFulfillment?.price.valueMinor ?? 0);
    const computed = computeTotals(row.currency, lineItems, base, selected, row.locale);
    checkAmount(computed.amountMinor, input.lineItems !== undefined ? `${path}.lineItems` : `${path}.selectedFulfillment`);
    Object.assign(changes, { lineItems, selectedFulfillment: selected, amountMinor: computed.amountMinor, totals: computed.totals });
  }
  return changes;
}

async function updateRow(tx: CallerContext, id: string, input: UpdateSessionInput, path: string): Promise<CheckoutSessionRow> {
  const access = scoped(tx, tx.db.models.CheckoutSession);
  const row = await loadRow(tx, id, true);
  assertChangeable(row, tx.clock.now());
  if (tx.credential === 'client_secret') {
    // the customer (or an agent) holding the session's secret chooses, the merchant prices: the cart and the
    // merchant's own metadata stay the merchant's
    const refused: string[] = (['lineItems', 'metadata'] as const).filter((field) => input[field] !== undefined);
    // what the risk checks identify the customer by is the merchant's to state, never the customer's own
    const info = (input.customerInfo ?? {}) as Record<string, unknown>;
    refused.push(...(['ipAddress', 'customerReference'] as const).filter((field) => info[field] !== undefined).map((field) => `customerInfo.${field}`));
    if (refused.length) {
      throw new PermissionError(`A session's clientSecret may change customerInfo, selectedFulfillment and agenticContext only; ${refused.join(' and ')} need the merchant's key.`, 'CLIENT_SECRET_FIELD_NOT_ALLOWED', {
        errors: refused.map((field) => ({ path: `${path}.${field}`, message: 'needs the merchant\'s key' })),
      });
    }
  }
  const changes = applyUpdate(row, input, path);
  if (Object.keys(changes).length === 0) return row;
  const updated = await access.updateIf(row, changeableWhere(), changes);
  if (!updated) throw raced();
  await recordAudit(tx, {
    action: 'checkout_session.updated', targetType: 'checkout_session', targetId: id, tenantId: row.tenantId, merchantId: row.merchantId,
    before: toSession(row), after: toSession(updated),
  });
  return updated;
}

/** Changes an open session (merchant key or the session's own clientSecret); 409 once paid, expired or paying. */
export async function updateSession(ctx: CallerContext, id: string, input: UpdateSessionInput): Promise<CheckoutSession> {
  return inTransaction(ctx, async (tx) => toSession(await updateRow(tx, id, input, 'body')));
}

/** Expires an open session now: 409 when complete or already expired, or while a payment is in flight. */
export async function expireSession(ctx: CallerContext, id: string): Promise<CheckoutSession> {
  return inTransaction(ctx, async (tx) => {
    const row = await loadRow(tx, id, true);
    if (row.status === 'complete') throw new ConflictError('CHECKOUT_SESSION_COMPLETE', 'The checkout session is already paid (status complete).');
    if (row.status === 'expired') throw new ConflictError('CHECKOUT_SESSION_EXPIRED', 'The checkout session is already expired.');
    if (inFlight(row)) throw new ConflictError('CHECKOUT_PAYMENT_IN_FLIGHT', `A payment of this session is ${row.paymentStatus}; wait for its outcome.`);
    const expired = await expireRow(tx, row);
    if (!expired) throw raced();
    return toSession(expired);
  });
}

/**
 * Moves one open session to expired with a compare-and-set (open, no payment in flight), then audits and emits
 * checkout.session.expired in the same transaction. Null when another process (or a payment) got there first.
 */
export async function expireRow(tx: CallerContext, row: CheckoutSessionRow): Promise<CheckoutSessionRow | null> {
  const now = tx.clock.now();
  const updated = await scoped(tx, tx.db.models.CheckoutSession).updateIf(row, changeableWhere(), { status: 'expired', expiredAt: now });
  if (!updated) return null;
  const after = updated;
  await recordAudit(tx, {
    action: 'checkout_session.expired', targetType: 'checkout_session', targetId: row.id, tenantId: row.tenantId, merchantId: row.merchantId,
    livemode: row.livemode, before: toSession(row), after: toSession(after),
  });
  await emitEvent(tx, {
    type: 'checkout.session.expired', data: eventData(after), tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode,
  });
  return after;
}

/**
 * Before a payment: applies the customer's customerInfo and selectedFulfillment (in its own transaction) and
 * checks the session can be paid (open, within its deadline, no payment in flight). Returns the session row.
 */
export async function prepareCompletion(
  ctx: CallerContext,
  id: string,
  input: { customerInfo?: Record<string, unknown>; selectedFulfillment?: { fulfillmentOptionId: string } },
): Promise<CheckoutSessionRow | null> {
  // nothing to apply: the payment's own transaction checks the session (completeCheckoutSession)
  if (input.customerInfo === undefined && input.selectedFulfillment === undefined) return null;
  return inTransaction(ctx, (tx) => updateRow(tx, id, { customerInfo: input.customerInfo, selectedFulfillment: input.selectedFulfillment }, 'body'));
}

/**
 * The payment path's report: the session's paymentId and paymentStatus follow the payment; an approved payment
 * (requires_capture or captured) completes an open session and emits checkout.session.completed. A new payment
 * is refused (409) unless the session is open with no payment in flight: two concurrent completes cannot both
 * start one. Runs in the caller's transaction (the payment's).
 */
export async function recordSessionPayment(ctx: CallerContext, sessionId: string, p: { paymentId: string; paymentStatus: string }): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const access = scoped(tx, tx.db.models.CheckoutSession);
    const row = await loadRow(tx, sessionId, true);
    const approved = (PAYMENT_APPROVED as readonly string[]).includes(p.paymentStatus);
    const completes = approved && row.status === 'open';
    const changes: Partial<CheckoutSessionRow> = {};
    if (row.paymentId !== p.paymentId) changes.paymentId = p.paymentId;
    if (row.paymentStatus !== p.paymentStatus) changes.paymentStatus = p.paymentStatus;
    if (completes) Object.assign(changes, { status: 'complete', completedAt: tx.clock.now() });
    if (Object.keys(changes).length === 0) return;
    let updated: CheckoutSessionRow | null;
    if (row.paymentId !== p.paymentId) {
      // a new payment: only on an open session with none in flight
      if (row.status !== 'open') {
        throw new ConflictError(row.status === 'complete' ? 'CHECKOUT_SESSION_COMPLETE' : 'CHECKOUT_SESSION_EXPIRED', `The checkout session is ${row.status}.`);
      }
      if (inFlight(row)) throw new ConflictError('CHECKOUT_PAYMENT_IN_FLIGHT', `A payment of this session is ${row.paymentStatus}; wait for its outcome.`);
      updated = await access.updateIf(row, changeableWhere(), changes);
    } else {
      updated = await access.updateIf(row, { paymentId: p.paymentId, status: row.status }, changes);
    }
    if (!updated) throw raced();
    const after = updated;
    await recordAudit(tx, {
      action: completes ? 'checkout_session.completed' : 'checkout_session.payment_updated', targetType: 'checkout_session', targetId: row.id,
      tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode, before: toSession(row), after: toSession(after),
    });
    if (completes) {
      await emitEvent(tx, {
        type: 'checkout.session.completed', data: eventData(after), tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode,
      });
    }
  });
}
