import { Flags } from '@oclif/core';
import { renderRecord, renderTable, type TableOptions, statusColour } from './output';
import { csv, readJsonFlag, sharedFlags } from './flags';
import { ValidationError } from '../domain/errors';
import { formatMinor } from '../domain/money';
import { amountFlagPair, minorOf } from './amounts';
import type { Page } from '../db/scoped';
import type { RoutingRule } from '../services/routing/rules';
import type { RoutingDecision } from '../services/routing/decide';
import { z } from '../api/zod';
import { Country, Currency, FutureDateInput } from '../api/common';
import { PAYMENT_METHODS } from '../api/fees/schemas';

// The routing-rules commands' pieces. The terminal acts with the platform's authority (rules are tenant configuration
// without a mode: sandbox unless a decision is asked for live).

export const routingListFlags = {
  tenant: Flags.string({ description: "Only this tenant's rules" }),
  limit: sharedFlags.limit,
  cursor: sharedFlags.cursor,
};

export const ruleFlags = {
  name: Flags.string({ description: 'Display name' }),
  description: Flags.string({ description: 'Description ("null" clears it)' }),
  priority: Flags.integer({ description: 'Lower is evaluated first across active rules (default 100)' }),
  'conditions-json': Flags.string({
    description: 'Conditions as the API takes them: a JSON file path or inline JSON ({"currencies":["EUR"],...})',
  }),
  'outcome-json': Flags.string({
    description: 'Outcome as the API takes it: a JSON file path or inline JSON ({"type":"priority","terminals":[...]})',
  }),
  terminals: Flags.string({ description: 'Outcome: priority order of terminal ids, comma-separated' }),
  split: Flags.string({ description: 'Outcome: weighted split, comma-separated terminalId:weight (e.g. 6f1c…:70,0b9e…:30)' }),
  currencies: Flags.string({ description: 'Condition: currencies, comma-separated' }),
  'payment-methods': Flags.string({ description: 'Condition: payment methods, comma-separated' }),
  brands: Flags.string({ description: 'Condition: card brands, comma-separated' }),
  'card-countries': Flags.string({ description: 'Condition: card countries (ISO alpha-2), comma-separated' }),
  merchants: Flags.string({ description: 'Condition: merchant ids, comma-separated' }),
  channels: Flags.string({ description: 'Condition: channel ids, comma-separated' }),
  'amount-currency': Flags.string({
    description: 'Condition: the currency of --min-amount and --max-amount (default: the one currency of --currencies)',
  }),
  ...amountFlagPair('min-amount', 'Condition: minimum amount (inclusive)', '--amount-currency'),
  ...amountFlagPair('max-amount', 'Condition: maximum amount (inclusive)', '--amount-currency'),
};

export interface RuleFlagValues {
  name?: string;
  description?: string;
  priority?: number;
  'conditions-json'?: string;
  'outcome-json'?: string;
  terminals?: string;
  split?: string;
  currencies?: string;
  'payment-methods'?: string;
  brands?: string;
  'card-countries'?: string;
  merchants?: string;
  channels?: string;
  'amount-currency'?: string;
  'min-amount'?: string;
  'min-amount-minor'?: number;
  'max-amount'?: string;
  'max-amount-minor'?: number;
}

const AMOUNT_FLAGS = ['amount-currency', 'min-amount', 'min-amount-minor', 'max-amount', 'max-amount-minor'] as const;
const CONDITION_FLAGS = ['currencies', 'payment-methods', 'brands', 'card-countries', 'merchants', 'channels', ...AMOUNT_FLAGS] as const;

/**
 * The amount condition from the flags over the one of --conditions-json (`given`): min and max read in major units
 * of its currency (--amount-currency, else the JSON's amount.currency, else the rule's currency condition when it
 * names exactly one currency) or in minor units (--min-amount-minor, --max-amount-minor).
 */
function amountCondition(flags: RuleFlagValues, given: unknown, currencies: unknown): Record<string, unknown> {
  const base = given && typeof given === 'object' && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
  let currency = flags['amount-currency'] ?? (typeof base.currency === 'string' ? base.currency : undefined);
  let currencyFlag =
    flags['amount-currency'] !== undefined || base.currency === undefined ? '--amount-currency' : '--conditions-json.amount.currency';
  if (currency === undefined && Array.isArray(currencies) && currencies.length === 1 && typeof currencies[0] === 'string') {
    currency = currencies[0];
    currencyFlag = flags.currencies !== undefined ? '--currencies' : '--conditions-json.currencies';
  }
  const rule = { currency, currencyFlag, missing: '--amount-currency or a single currency in --currencies', zero: true };
  const min = minorOf(flags, 'min-amount', rule);
  const max = minorOf(flags, 'max-amount', rule);
  if (currency === undefined)
    throw ValidationError.field('--amount-currency', 'is required for an amount condition (or a single currency in --currencies)');
  return { ...base, currency, ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
}

/**
 * The rule fields from the flags (before validation with the API's schema). Conditions: --conditions-json, with
 * any condition flag set on top; outcome: --outcome-json, --terminals or --split (one of them).
 */
export function ruleInput(flags: RuleFlagValues): Record<string, unknown> {
  let conditions: Record<string, unknown> | undefined;
  if (flags['conditions-json'] !== undefined) {
    const parsed = readJsonFlag(flags['conditions-json'], 'conditions-json');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw ValidationError.field('--conditions-json', 'must be a JSON object');
    conditions = { ...(parsed as Record<string, unknown>) };
  }
  if (CONDITION_FLAGS.some((f) => flags[f] !== undefined)) {
    const set = (key: string, value: unknown) => {
      if (value !== undefined) (conditions ??= {})[key] = value;
    };
    set('currencies', csv(flags.currencies));
    set('paymentMethods', csv(flags['payment-methods']));
    set('brands', csv(flags.brands));
    set('cardCountries', csv(flags['card-countries']));
    set('merchantIds', csv(flags.merchants));
    set('channelIds', csv(flags.channels));
    if (AMOUNT_FLAGS.some((f) => flags[f] !== undefined)) set('amount', amountCondition(flags, conditions?.amount, conditions?.currencies));
  }
  const outcomes = (['outcome-json', 'terminals', 'split'] as const).filter((f) => flags[f] !== undefined);
  if (outcomes.length > 1)
    throw ValidationError.field(`--${outcomes[1]}`, `cannot be combined with --${outcomes[0]}: give the outcome one way`);
  let outcome: unknown;
  if (flags['outcome-json'] !== undefined) outcome = readJsonFlag(flags['outcome-json'], 'outcome-json');
  else if (flags.terminals !== undefined) outcome = { type: 'priority', terminals: csv(flags.terminals) };
  else if (flags.split !== undefined) {
    outcome = {
      type: 'split',
      splits: csv(flags.split)!.map((part) => {
        const at = part.lastIndexOf(':');
        const weight = Number(part.slice(at + 1));
        return { terminalId: at < 0 ? part : part.slice(0, at), weight: at < 0 || part.slice(at + 1) === '' ? undefined : weight };
      }),
    };
  }
  const description = flags.description === undefined ? undefined : flags.description === 'null' ? null : flags.description;
  return { name: flags.name, description, priority: flags.priority, conditions, outcome };
}

/** Which flag an issue of a field names: the outcome flag given (--terminals, --split or --outcome-json); conditions: --conditions-json. */
export function ruleFlagNames(flags: RuleFlagValues): Record<string, string> {
  const outcome = flags.terminals !== undefined ? 'terminals' : flags.split !== undefined ? 'split' : 'outcome-json';
  return { conditions: 'conditions-json', outcome };
}

/** An amount condition in words: `amount 10.00 EUR to 500.00 EUR`, `amount at least 10.00 EUR`, `amount at most 500.00 EUR`. */
function describeAmount(a: NonNullable<RoutingRule['conditions']['amount']>): string {
  const money = (valueMinor: number) => formatMinor({ currency: a.currency, valueMinor });
  if (a.min != null && a.max != null) return `amount ${money(a.min)} to ${money(a.max)}`;
  if (a.min != null) return `amount at least ${money(a.min)}`;
  if (a.max != null) return `amount at most ${money(a.max)}`;
  return `amount in ${a.currency}`;
}

function describeConditions(rule: RoutingRule): string {
  const c = rule.conditions;
  const parts: string[] = [];
  if (c.amount) parts.push(describeAmount(c.amount));
  if (c.currencies) parts.push(`currency in ${c.currencies.join('/')}`);
  if (c.paymentMethods) parts.push(`method in ${c.paymentMethods.join('/')}`);
  if (c.brands) parts.push(`brand in ${c.brands.join('/')}`);
  if (c.cardCountries) parts.push(`card country in ${c.cardCountries.join('/')}`);
  if (c.merchantIds) parts.push(`merchant in ${c.merchantIds.join('/')}`);
  if (c.channelIds) parts.push(`channel in ${c.channelIds.join('/')}`);
  return parts.join('; ') || 'any payment';
}

function describeOutcome(rule: RoutingRule): string {
  const o = rule.outcome;
  return o.type === 'priority'
    ? `priority: ${o.terminals.join(' > ')}`
    : `split: ${o.splits.map((s) => `${s.terminalId} (${s.weight})`).join(', ')}`;
}

export function renderRule(r: RoutingRule): string {
  return renderRecord({
    id: r.id,
    rule: r.ruleId,
    version: r.version,
    tenant: r.tenantId,
    name: r.name,
    description: r.description,
    status: r.status,
    priority: r.priority,
    conditions: describeConditions(r),
    outcome: describeOutcome(r),
    activatedAt: r.activatedAt,
    archivedAt: r.archivedAt,
    deletedAt: r.deletedAt,
  });
}

export function renderRules(page: Page<RoutingRule>, options: TableOptions = {}): string {
  return renderTable(
    page.data,
    [
      { header: 'ID', get: (r) => r.id },
      { header: 'Rule', get: (r) => r.ruleId },
      { header: 'Version', get: (r) => String(r.version) },
      { header: 'Name', get: (r) => r.name },
      { header: 'Priority', get: (r) => String(r.priority) },
      { header: 'Status', get: (r) => statusColour(r.status) },
    ],
    options,
  );
}

export function renderDecision(d: RoutingDecision): string {
  const head = renderRecord({
    strategy: d.strategy,
    rule: d.ruleId ?? '(none: default order)',
    version: d.version,
    ruleVersionId: d.ruleVersionId,
    terminals: d.terminals.length ? d.terminals.join(' > ') : '(no eligible terminal)',
  });
  const table = renderTable(d.candidates, [
    { header: 'Terminal', get: (c) => c.terminalId },
    { header: 'Provider', get: (c) => c.providerIntegrationId },
    { header: 'Eligible', get: (c) => (c.eligible ? 'yes' : 'no') },
    { header: 'Reasons', get: (c) => c.reasons.join(', ') },
  ]);
  return `${head}\n${table}`;
}

/** `payplane routing-rules decide` input: issues name the flags (amount covers --amount and --currency). */
export const DecideInput = z.strictObject({
  merchant: z.string().uuid(),
  amount: z.strictObject({ currency: Currency, valueMinor: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) }),
  method: z.enum(PAYMENT_METHODS),
  brand: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,49}$/, 'must be a lower-case brand such as visa')
    .optional(),
  country: Country.optional(),
  channel: z.string().uuid().optional(),
  at: FutureDateInput.optional(),
});
