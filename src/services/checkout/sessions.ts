import { selectRows } from '../../db/rows';
import { Op } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { BusinessRuleError, PermissionError, ConflictError, NotFoundError, ValidationError } from '../../domain/errors';
import { formatMinor, type Money } from '../../domain/money';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { CheckoutFulfillmentOption, CheckoutSessionRow, CheckoutSessionStatus, MerchantRow, TenantRow } from '../../db/models';
import { newId } from '../../util/ids';
import { auditedUpdate, auditRecord } from '../audit/changes';
import { findProfileFor } from '../profiles';
import { mapPage } from '../present';
import { emitEvent } from '../webhooks/events';
import { generateClientSecret } from './client-secret';
import { hostedPageBase, hostedPageUrl } from './hosted-page';
import { assertChangeable, changeableWhere, loadRow, raced, SESSION, sessionEvent, toSession, type CheckoutSession } from './record';
import { buildFulfillmentOptions, buildLineItems, checkAmount, computeTotals, selectFulfillment, type LineItemInput } from './totals';

// Checkout sessions: what a customer is asked to pay, created, read and changed while open. Paying one:
// completion.ts; the session following its payment: payment-report.ts; expiring one: expiry.ts.

/** when the merchant has no enabled checkout integration profile */
export const DEFAULT_SESSION_LIFETIME_SECONDS = 86_400;

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

/** The named payin channel, checked: of the tenant, active, payin, carrying the currency (400 naming the field otherwise). */
async function payinChannel(tx: CallerContext, tenantId: string, currency: string, channelId: string | undefined): Promise<string | null> {
  if (!channelId) return null;
  const channel = await scoped(tx, tx.db.models.Channel).findOne({ id: channelId, tenantId });
  if (!channel) throw ValidationError.field('body.channelId', "is not a channel of the merchant's tenant", 'CHANNEL_NOT_FOUND');
  if (channel.direction !== 'payin') throw ValidationError.field('body.channelId', 'must be a payin channel');
  if (channel.status !== 'active') throw ValidationError.field('body.channelId', `is ${channel.status}`);
  if (!channel.currencies.includes(currency))
    throw ValidationError.field('body.channelId', `does not carry ${currency} (${channel.currencies.join(', ')})`);
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
    const [tenant] = await selectRows<TenantRow>(
      tx.db,
      tx.db.models.Tenant as never,
      { id: merchant.tenantId },
      { transaction: tx.transaction, limit: 1 },
    );
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
    await auditRecord(tx, SESSION, row, 'checkout_session.created', { after: session });
    await emitEvent(tx, sessionEvent('checkout.session.created', row));
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

export async function updateRow(tx: CallerContext, id: string, input: UpdateSessionInput, path: string): Promise<CheckoutSessionRow> {
  const row = await loadRow(tx, id, true);
  assertChangeable(row, tx.clock.now());
  if (tx.credential === 'client_secret') {
    // the customer (or an agent) holding the session's secret chooses, the merchant prices: the cart and the
    // merchant's own metadata stay the merchant's
    const refused: string[] = (['lineItems', 'metadata'] as const).filter((field) => input[field] !== undefined);
    // what the risk checks identify the customer by is the merchant's to state, never the customer's own
    const info = (input.customerInfo ?? {}) as Record<string, unknown>;
    refused.push(
      ...(['ipAddress', 'customerReference'] as const).filter((field) => info[field] !== undefined).map((field) => `customerInfo.${field}`),
    );
    if (refused.length) {
      throw new PermissionError(
        `A session's clientSecret may change customerInfo, selectedFulfillment and agenticContext only; ${refused.join(' and ')} need the merchant's key.`,
        'CLIENT_SECRET_FIELD_NOT_ALLOWED',
        {
          errors: refused.map((field) => ({ path: `${path}.${field}`, message: "needs the merchant's key" })),
        },
      );
    }
  }
  const changes = applyUpdate(row, input, path);
  if (Object.keys(changes).length === 0) return row;
  return auditedUpdate(tx, SESSION, row, changes, { action: 'checkout_session.updated', expect: changeableWhere(), refused: raced });
}

/** Changes an open session (merchant key or the session's own clientSecret); 409 once paid, expired or paying. */
export async function updateSession(ctx: CallerContext, id: string, input: UpdateSessionInput): Promise<CheckoutSession> {
  return inTransaction(ctx, async (tx) => toSession(await updateRow(tx, id, input, 'body')));
}
