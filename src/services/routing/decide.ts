import type { CallerContext } from '../../domain/context';
import { elevate } from '../../domain/authority';
import { scoped } from '../../db/scoped';
import type { LimitRow, RoutingConditions, RoutingRuleRow, TerminalRestrictionRow, TerminalRow } from '../../db/models';
import { providerCatalog, supportedMethods, toProvider, type ProviderIntegration } from '../processing/providers';
import { ruleConditions, ruleOutcome } from './rules';
import { exceedsLimit } from '../limits/usage';
import type { Money } from '../../domain/money';

/**
 * The routing engine: which terminals, in which order, may serve a payment.
 *
 * 1. The tenant's active routing rule versions are evaluated by priority (lower first; ties: earlier activation).
 *    The first whose conditions all match gives the candidates: a priority outcome in its order; a split outcome
 *    picks one terminal at random in proportion to its weight among the eligible split terminals, then the other
 *    eligible ones by weight (heaviest first) as fallbacks.
 * 2. With no matching active rule, the default: the tenant's active payin terminals in creation order.
 * 3. Every candidate is checked and kept with the reasons it is excluded (stable codes, see EXCLUSION_REASONS).
 *
 * Sandbox-only providers: the catalog (fixtures/providers.json) has no field saying a provider is sandbox-only, so
 * the rule is by code: a provider whose code starts with `sandbox-` (the built-in sandbox acquirer and payout
 * provider) never serves a live payment. Conversely a provider whose testModeAvailable is false (after the
 * platform's overlay) never serves a test-mode payment.
 */

export interface RoutingInput {
  merchantId: string;
  channelId?: string | null;
  amount: Money;
  paymentMethod: string;
  brand?: string | null;
  cardCountry?: string | null;
  transactionType?: 'payment';
  at: Date;
}

export interface RoutingCandidate {
  terminalId: string;
  providerIntegrationId: string;
  eligible: boolean;
  reasons: string[];
}

export interface RoutingDecision {
  ruleId: string | null;
  ruleVersionId: string | null;
  version: number | null;
  strategy: 'priority' | 'split' | 'default';
  /** eligible terminals, in the order to try them */
  terminals: string[];
  candidates: RoutingCandidate[];
}

export interface RoutingOptions {
  /** current consumption of a terminal limit in its metric (count, or volume in minor units) over its period ending at `at` */
  usage?: (limit: LimitRow, at: Date) => Promise<number>;
  /** random source for weighted splits (tests pass a seeded one); default Math.random */
  random?: () => number;
}

/** Why a candidate terminal is excluded (limit_exhausted is followed by `:<limitId>`). */
export const EXCLUSION_REASONS = {
  terminal_deleted: 'the terminal named by the rule no longer exists',
  terminal_disabled: 'the terminal is not active',
  terminal_not_payin: 'the terminal is a payout terminal',
  currency_not_supported: "the payment currency is not among the terminal's supportedCurrencies",
  brand_not_supported: "the card brand is not among the terminal's supportedBrands",
  payment_method_not_supported: "the payment method is not among the terminal's supportedPaymentMethodTypes",
  restriction_denied: 'an active deny restriction of the terminal matches the payment',
  restriction_not_allowed: 'the terminal has active allow restrictions and none matches the payment',
  limit_exhausted: 'a terminal limit would be exceeded (limit_exhausted:<limitId>)',
  provider_unknown: "the terminal's provider integration is not in the catalog",
  provider_maintenance: 'the provider integration is in maintenance',
  provider_deprecated: 'the provider integration is deprecated',
  provider_payment_method_not_supported: 'the provider integration does not support authorizing this payment method',
  provider_currency_not_supported: 'the provider integration does not support this currency for the payment method',
  provider_sandbox_only: 'a sandbox provider integration cannot serve a live payment',
  provider_test_mode_unavailable: 'the provider integration has no test mode: it cannot serve a test payment',
} as const;

/** A brand is known when the card's brand was recognised. */
const knownBrand = (brand: string | null | undefined): string | null => (brand && brand !== 'unknown' ? brand : null);

/** Whether every given condition of a rule matches the payment. */
export function conditionsMatch(c: RoutingConditions, input: RoutingInput): boolean {
  const { currency, valueMinor } = input.amount;
  if (c.amount) {
    if (c.amount.currency !== currency) return false;
    if (c.amount.min !== null && valueMinor < c.amount.min) return false;
    if (c.amount.max !== null && valueMinor > c.amount.max) return false;
  }
  const brand = knownBrand(input.brand);
  if (c.currencies && !c.currencies.includes(currency)) return false;
  if (c.paymentMethods && !c.paymentMethods.includes(input.paymentMethod)) return false;
  if (c.brands && (!brand || !c.brands.includes(brand))) return false;
  if (c.cardCountries && (!input.cardCountry || !c.cardCountries.includes(input.cardCountry))) return false;
  if (c.merchantIds && !c.merchantIds.includes(input.merchantId)) return false;
  if (c.channelIds && (!input.channelId || !c.channelIds.includes(input.channelId))) return false;
  return true;
}

/** Whether a restriction row applies to the payment (a null method or brand matches any; a set brand needs a known one). */
function restrictionMatches(r: TerminalRestrictionRow, method: string, brand: string | null): boolean {
  if (r.paymentMethod !== null && r.paymentMethod !== method) return false;
  if (r.brand !== null && r.brand !== brand) return false;
  return true;
}

/** A limit narrowed by currency, method or brand applies only to payments that match it. */
function limitApplies(l: LimitRow, input: RoutingInput, brand: string | null): boolean {
  if (l.currency !== null && l.currency !== input.amount.currency) return false;
  if (l.paymentMethod !== null && l.paymentMethod !== input.paymentMethod) return false;
  if (l.brand !== null && l.brand !== brand) return false;
  // a volume limit counts minor units of its currency: it needs one (checkLimitInput enforces it)
  return l.metric !== 'volume' || l.currency !== null;
}

const byTime = (a: Date | string | null, b: Date | string | null): number => new Date(a ?? 0).getTime() - new Date(b ?? 0).getTime();

function sortRules(rows: RoutingRuleRow[]): RoutingRuleRow[] {
  return [...rows].sort(
    (a, b) => Number(a.priority) - Number(b.priority) || byTime(a.activatedAt, b.activatedAt) || a.id.localeCompare(b.id),
  );
}

/**
 * What a decision reads, loaded once: the tenant's active rules in evaluation order, its terminals, their active
 * restrictions and limits, and the provider integrations with the platform's overlays. decideRoute loads one per
 * payment; a caller deciding many payments at once (a dry run, a simulation) may load one and reuse it.
 */
export interface RoutingSnapshot {
  tenantId: string;
  livemode: boolean;
  rules: RoutingRuleRow[];
  terminals: Map<string, TerminalRow>;
  /** the default candidates: active payin terminals in creation order */
  defaultOrder: string[];
  restrictions: TerminalRestrictionRow[];
  limits: LimitRow[];
  providers: Map<string, ProviderIntegration>;
}

/**
 * Loads what routing a payment of `merchantId` reads. The merchant must be visible to the caller (404 otherwise);
 * rules, terminals, restrictions and limits are read tenant-wide (a merchant's payment is routed by its tenant's
 * configuration, and terminal limits belong to no merchant), in the caller's transaction when one is open.
 */
export async function loadRoutingSnapshot(
  ctx: CallerContext,
  merchantId: string,
  transactionType: 'payment' = 'payment',
): Promise<RoutingSnapshot> {
  const merchant = await scoped(ctx, ctx.db.models.Merchant).get(merchantId);
  const reader = elevate(ctx, 'tenant', 'a payment is routed by its tenant configuration', { tenantId: merchant.tenantId });
  const { models } = reader.db;
  // one after the other: inside a transaction they share one connection, which runs one query at a time
  const rules = await scoped(reader, models.RoutingRule).findAll({ status: 'active' });
  const terminalRows = await scoped(reader, models.Terminal).findAll();
  const restrictions = await scoped(reader, models.TerminalRestriction).findAll({ status: 'active', transactionType });
  const limits = await scoped(reader, models.Limit).findAll({ entityType: 'terminal', status: 'active', transactionType });
  const overlays = await scoped(reader, models.ProviderOverlay).findAll();
  const overlayOf = new Map(overlays.map((o) => [o.id, o]));
  // the providers of the tenant's terminals only (each one a copy of its declaration with the overlay applied)
  const used = new Set(terminalRows.map((t) => t.providerIntegrationId));
  const providers = new Map(
    providerCatalog()
      .filter((p) => used.has(p.id))
      .map((p) => [p.id, toProvider(p, overlayOf.get(p.id) ?? null)]),
  );
  const defaultOrder = terminalRows
    .filter((t) => t.status === 'active' && t.direction === 'payin')
    .sort((x, y) => byTime(x.createdAt, y.createdAt) || x.id.localeCompare(y.id))
    .map((t) => t.id);
  return {
    tenantId: merchant.tenantId,
    livemode: ctx.livemode,
    rules: sortRules(rules),
    terminals: new Map(terminalRows.map((t) => [t.id, t])),
    defaultOrder,
    restrictions,
    limits,
    providers,
  };
}

/**
 * The ordered list of eligible terminals for a payment, with the rule that chose them and every candidate's
 * exclusion reasons (kept on the payment record).
 */
export async function decideRoute(ctx: CallerContext, input: RoutingInput, options: RoutingOptions = {}): Promise<RoutingDecision> {
  return decideWithSnapshot(await loadRoutingSnapshot(ctx, input.merchantId, input.transactionType ?? 'payment'), input, options);
}

/** decideRoute on a loaded snapshot (no reads but the caller's usage function). */
export async function decideWithSnapshot(
  snapshot: RoutingSnapshot,
  input: RoutingInput,
  options: RoutingOptions = {},
): Promise<RoutingDecision> {
  const random = options.random ?? Math.random;
  const usage = options.usage ?? (async () => 0);
  const brand = knownBrand(input.brand);

  const rule = snapshot.rules.find((r) => conditionsMatch(ruleConditions(r), input)) ?? null;
  const outcome = rule ? ruleOutcome(rule) : null;
  let order: string[];
  if (outcome?.type === 'priority') order = outcome.terminals;
  else if (outcome?.type === 'split') order = outcome.splits.map((s) => s.terminalId);
  else order = snapshot.defaultOrder;

  const check = async (terminalId: string): Promise<RoutingCandidate> => {
    const t = snapshot.terminals.get(terminalId);
    if (!t) return { terminalId, providerIntegrationId: '', eligible: false, reasons: ['terminal_deleted'] };
    const reasons: string[] = [];
    if (t.status !== 'active') reasons.push('terminal_disabled');
    if (t.direction !== 'payin') reasons.push('terminal_not_payin');
    // a live terminal talks to its acquirer's live environment, a sandbox one to its test environment
    if (Boolean(t.livemode) !== snapshot.livemode) reasons.push('terminal_mode_mismatch');
    if (!t.supportedCurrencies.includes(input.amount.currency)) reasons.push('currency_not_supported');
    if (brand && !t.supportedBrands.includes(brand)) reasons.push('brand_not_supported');
    if (!t.supportedPaymentMethodTypes.includes(input.paymentMethod)) reasons.push('payment_method_not_supported');
    const own = snapshot.restrictions.filter((r) => r.terminalId === t.id);
    if (own.some((r) => r.action === 'deny' && restrictionMatches(r, input.paymentMethod, brand))) reasons.push('restriction_denied');
    const allows = own.filter((r) => r.action === 'allow');
    if (allows.length && !allows.some((r) => restrictionMatches(r, input.paymentMethod, brand))) reasons.push('restriction_not_allowed');
    for (const limit of snapshot.limits.filter((l) => l.entityId === t.id && limitApplies(l, input, brand))) {
      if (exceedsLimit(limit, await usage(limit, input.at), input.amount.valueMinor)) reasons.push(`limit_exhausted:${limit.id}`);
    }
    const p = snapshot.providers.get(t.providerIntegrationId);
    if (!p) reasons.push('provider_unknown');
    else {
      if (p.status === 'maintenance') reasons.push('provider_maintenance');
      if (p.status === 'deprecated') reasons.push('provider_deprecated');
      const method = supportedMethods(p).find(
        (m) => m.method === input.paymentMethod && m.operations.some((o) => o.operation === 'authorize' && o.supported),
      );
      if (!method) reasons.push('provider_payment_method_not_supported');
      else if (!method.currencies.includes(input.amount.currency)) reasons.push('provider_currency_not_supported');
      if (snapshot.livemode && p.code.startsWith('sandbox-')) reasons.push('provider_sandbox_only');
      if (!snapshot.livemode && !p.testModeAvailable) reasons.push('provider_test_mode_unavailable');
    }
    return { terminalId: t.id, providerIntegrationId: t.providerIntegrationId, eligible: reasons.length === 0, reasons };
  };

  let candidates: RoutingCandidate[] = [];
  for (const id of order) candidates.push(await check(id));

  if (outcome?.type === 'split') {
    const weight = new Map(outcome.splits.map((s) => [s.terminalId, s.weight]));
    const heaviestFirst = (list: RoutingCandidate[]) => [...list].sort((x, y) => weight.get(y.terminalId)! - weight.get(x.terminalId)!);
    const eligible = candidates.filter((x) => x.eligible);
    const excluded = candidates.filter((x) => !x.eligible);
    const picked = pickWeighted(eligible, (x) => weight.get(x.terminalId)!, random);
    candidates = [...(picked ? [picked] : []), ...heaviestFirst(eligible.filter((x) => x !== picked)), ...heaviestFirst(excluded)];
  }

  return {
    ruleId: rule?.ruleId ?? null,
    ruleVersionId: rule?.id ?? null,
    version: rule ? Number(rule.version) : null,
    strategy: outcome ? outcome.type : 'default',
    terminals: candidates.filter((x) => x.eligible).map((x) => x.terminalId),
    candidates,
  };
}

/** One item at random in proportion to its (positive integer) weight; null for an empty list. */
export function pickWeighted<T>(items: T[], weightOf: (item: T) => number, random: () => number): T | null {
  const total = items.reduce((sum, item) => sum + weightOf(item), 0);
  if (!items.length || total <= 0) return null;
  let r = Math.min(Math.max(random(), 0), 1 - Number.EPSILON) * total;
  for (const item of items) {
    r -= weightOf(item);
    if (r < 0) return item;
  }
  return items[items.length - 1];
}
