import fs from 'node:fs';
import { Flags } from '@oclif/core';
import type { z } from 'zod';
import { chalk, colourEnabled, renderRecord, renderTable } from './output';
import { sharedFlags } from './flags';
import { readJsonFlag } from './routing-cli';
import { operatorName } from './withdrawals-cli';
import { requireId } from './payments-cli';
import { NotFoundError, ValidationError, type FieldIssue } from '../domain/errors';
import type { Runtime } from '../runtime';
import type { CallerContext } from '../domain/context';
import type { RiskCondition } from '../db/models/risk';
import type { ScoringRule } from '../services/risk/rules';
import type { AntifraudPlan } from '../services/risk/plans';
import type { ListEntry, ListGroup } from '../services/risk/lists';
import type { RiskConfiguration } from '../services/risk/configuration';
import type { RiskDryRun } from '../services/risk/dry-run';
import { operatorContext } from '../runtime';
import { issuesOf } from '../http/validation';
import { RiskPaymentInput } from '../services/risk/dry-run';


// ------------------------------------------------------------------------------------------------ who acts, where

/** --tenant, --live and --operator: the terminal acts as an operator of the tenant, in sandbox mode unless --live. */
export const riskScopeFlags = {
  tenant: Flags.string({ description: 'Tenant id (asked on a terminal when missing)' }),
  live: sharedFlags.live,
  operator: Flags.string({
    description: 'Who acts (default: your OS user name): createdBy holds the id of that account\'s platform user (externalIdpId os:<name>, created on first use), the audit trail names the account',
    env: 'PAYPLANE_OPERATOR',
  }),
};

/** The same without --live: the risk configuration is one per tenant for both modes. */
export const riskTenantFlags = { tenant: riskScopeFlags.tenant, operator: riskScopeFlags.operator };

/**
 * The tenant-level operator context of `tenantId` (404 when there is no such tenant), in live mode with --live;
 * the actor is the platform user of <--operator or PAYPLANE_OPERATOR or the OS user> (services/operators).
 */
export async function riskContext(rt: Runtime, tenantId: string, flags: { live?: boolean; operator?: string }): Promise<CallerContext> {
  requireId(tenantId, 'tenant', '--tenant');
  const operator = operatorName(flags.operator);
  if (!(await rt.db.models.Tenant.findOne({ where: { id: tenantId }, attributes: ['id'] }))) throw new NotFoundError('tenant', tenantId);
  return operatorContext(rt, { level: 'tenant', tenantId, livemode: flags.live ?? false, operator });
}

// ------------------------------------------------------------------------------------------------ input

/** "none" (or "null") clears a nullable value; anything else is kept. */
export function nullable(value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  return ['none', 'null'].includes(value.trim().toLowerCase()) ? null : value;
}

/** A score flag: an integer, or null for "none" when `allowNone`; 400 naming the flag otherwise. */
export function scoreFlag(value: string | undefined, flag: string, allowNone = true): number | null | undefined {
  const v = allowNone ? nullable(value) : value;
  if (v === undefined || v === null) return v;
  if (!/^-?\d+$/.test(v.trim())) throw ValidationError.field(`--${flag}`, allowNone ? 'must be an integer or none' : 'must be an integer');
  return Number(v.trim());
}

/**
 * Rewrites `path` (an API field path such as body.thresholds.challenge, .ruleIds[1] or card.number) to the flag it came
 * from, by the longest field of `fields` it starts with; `fields['']` names the whole input, `fields['*']` prefixes any
 * other field (else --field).
 */
function flagPath(path: string, fields: Record<string, string>): string {
  if (path.startsWith('--')) return path;
  const field = path.replace(/^(body|query)?\./, '').replace(/^(body|query)$/, '');
  if (field === '') return fields[''] ?? (path || 'flags');
  const key = Object.keys(fields)
    .filter((k) => k !== '' && k !== '*')
    .sort((a, b) => b.length - a.length)
    .find((k) => field === k || field.startsWith(`${k}.`) || field.startsWith(`${k}[`));
  if (key !== undefined) return `${fields[key]}${field.slice(key.length)}`;
  return fields['*'] !== undefined ? `${fields['*']}.${field}` : `--${field}`;
}

function renamed(error: ValidationError, fields: Record<string, string>): ValidationError {
  const issues: FieldIssue[] = (error.errors ?? []).map((i) => ({ ...i, path: flagPath(i.path, fields) }));
  const detail = issues.length ? `Invalid input: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}` : error.detail;
  return new ValidationError(detail, issues, error.code, { hint: error.hint });
}

/**
 * Validates command input with the operation's own request schema (the terminal accepts exactly what the API
 * accepts). `fields` maps an API field (or field path: thresholds.challenge) to the flag that gives it, so each
 * issue names the flag, with the rest of the path after it (--conditions-json[0].operator).
 */
export function validateRisk<S extends z.ZodType>(schema: S, value: Record<string, unknown>, fields: Record<string, string>): z.output<S> {
  const present = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  const issues = issuesOf('', parsed.error);
  throw renamed(new ValidationError('Invalid input.', issues), fields);
}

/** Runs a service call; the field issues of its 400 answer (body.ruleIds[0]) name the flags instead. */
export async function namingFlags<T>(fields: Record<string, string>, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ValidationError) throw renamed(error, fields);
    throw error;
  }
}

/** --conditions-json: inline JSON (a JSON array) or the path of a JSON file holding one. */
export function conditionsFlag(value: string | undefined): unknown {
  if (value === undefined) return undefined;
  const parsed = readJsonFlag(value, 'conditions-json');
  if (!Array.isArray(parsed)) throw ValidationError.field('--conditions-json', 'must be a JSON array of conditions ([{"field":"amount","operator":"gt","value":"10000"}])');
  return parsed;
}

const csv = (value: string | undefined): string[] | undefined => (value === undefined ? undefined : value.split(',').map((v) => v.trim()).filter(Boolean));

// ------------------------------------------------------------------------------------------------ scoring rules

export const scoringRuleFlags = {
  name: Flags.string({ description: 'Display name' }),
  description: Flags.string({ description: 'Description ("none" clears it)' }),
  signal: Flags.string({ description: 'What a match decides by itself (allow: only the score counts)', options: ['allow', 'challenge', 'review', 'block'] }),
  'score-impact': Flags.integer({ description: 'Added to the payment\'s score on a match (negative lowers it)' }),
  priority: Flags.integer({ description: 'Lower is evaluated first; a matched block rule ends the evaluation' }),
  'conditions-json': Flags.string({
    description: 'Conditions as the API takes them (all must hold): a JSON file path or an inline JSON array, e.g. [{"field":"card_fingerprint","operator":"in_list","value":"<list group id>"}]',
  }),
  active: Flags.boolean({ description: 'The rule is evaluated (the default on create)', exclusive: ['inactive'] }),
  inactive: Flags.boolean({ description: 'The rule is kept but not evaluated', exclusive: ['active'] }),
};

export interface ScoringRuleFlagValues {
  name?: string;
  description?: string;
  signal?: string;
  'score-impact'?: number;
  priority?: number;
  'conditions-json'?: string;
  active?: boolean;
  inactive?: boolean;
}

export const scoringRuleFields = { conditions: '--conditions-json', scoreImpact: '--score-impact', isActive: '--active', tenantId: '--tenant' };

/** The scoring rule fields from the flags, before validation with the API's schema. */
export function scoringRuleInput(flags: ScoringRuleFlagValues): Record<string, unknown> {
  return {
    name: flags.name, description: nullable(flags.description), signal: flags.signal, scoreImpact: flags['score-impact'], priority: flags.priority,
    conditions: conditionsFlag(flags['conditions-json']), isActive: flags.active ? true : flags.inactive ? false : undefined,
  };
}

const PERIOD_SHORT = { minute: 'm', hour: 'h', day: 'd', week: 'w' } as const;

/** One condition in words: `card_fingerprint in_list 6f1c…`, `count(card_fingerprint, 10m) gte 3`. */
export function describeCondition(c: RiskCondition): string {
  if (!c.aggregation) return `${c.field} ${c.operator} ${c.value}`;
  const a = c.aggregation;
  const scope = a.scope.filter((s) => s !== 'tenant');
  const extra = [`${a.period.value}${PERIOD_SHORT[a.period.unit] ?? ` ${a.period.unit}`}`, ...(scope.length ? [`per ${scope.join('+')}`] : []), ...(a.currency ? [a.currency] : [])];
  return `${a.metric}(${a.identifier}, ${extra.join(', ')}) ${c.operator} ${c.value}`;
}

export function renderScoringRule(r: ScoringRule): string {
  return renderRecord({
    id: r.id, tenant: r.tenantId, mode: r.livemode ? 'live' : 'sandbox', name: r.name, description: r.description, active: r.isActive ? 'yes' : 'no',
    signal: r.signal, scoreImpact: r.scoreImpact, priority: r.priority, conditions: r.conditions.map(describeCondition).join('; '),
    createdBy: r.createdBy, createdAt: r.createdAt, updatedAt: r.updatedAt, deletedAt: r.deletedAt,
  });
}

export function renderScoringRules(rules: ScoringRule[]): string {
  return renderTable(rules, [
    { header: 'ID', get: (r) => r.id },
    { header: 'Name', get: (r) => r.name },
    { header: 'Signal', get: (r) => signalColour(r.signal) },
    { header: 'Score', get: (r) => String(r.scoreImpact) },
    { header: 'Priority', get: (r) => String(r.priority) },
    { header: 'Active', get: (r) => (r.isActive ? 'yes' : 'no') },
    { header: 'Conditions', get: (r) => r.conditions.map(describeCondition).join('; ') },
  ]);
}

function signalColour(signal: string): string {
  if (!colourEnabled()) return signal;
  return signal === 'block' ? chalk.red(signal) : signal === 'allow' ? signal : chalk.yellow(signal);
}

// ------------------------------------------------------------------------------------------------ antifraud plans

export const antifraudPlanFlags = {
  name: Flags.string({ description: 'Display name' }),
  description: Flags.string({ description: 'Description ("none" clears it)' }),
  merchant: Flags.string({ description: 'The one merchant the plan applies to ("none": every merchant of the tenant, the default)' }),
  rules: Flags.string({ description: 'Scoring rule ids, comma-separated (replaces the list; "none" empties it)' }),
  'challenge-score': Flags.string({ description: 'Score at or above which 3DS is forced ("none": the risk configuration\'s)' }),
  'review-score': Flags.string({ description: 'Score at or above which the payment is held for review ("none": the risk configuration\'s)' }),
  'decline-score': Flags.string({ description: 'Score at or above which the payment is declined ("none": the risk configuration\'s)' }),
};

export interface AntifraudPlanFlagValues {
  name?: string;
  description?: string;
  merchant?: string;
  rules?: string;
  'challenge-score'?: string;
  'review-score'?: string;
  'decline-score'?: string;
}

export const antifraudPlanFields = {
  merchantId: '--merchant', ruleIds: '--rules', 'thresholds.challenge': '--challenge-score', 'thresholds.review': '--review-score',
  'thresholds.decline': '--decline-score', thresholds: '--challenge-score', enabled: '--enable', tenantId: '--tenant',
};

/**
 * The plan fields from the flags, before validation with the API's schema. Thresholds: the score flags given, on top of
 * `current` (an update changes only the thresholds named).
 */
export function antifraudPlanInput(flags: AntifraudPlanFlagValues, current?: AntifraudPlan['thresholds']): Record<string, unknown> {
  const scores = {
    challenge: scoreFlag(flags['challenge-score'], 'challenge-score'),
    review: scoreFlag(flags['review-score'], 'review-score'),
    decline: scoreFlag(flags['decline-score'], 'decline-score'),
  };
  const given = Object.values(scores).some((v) => v !== undefined);
  const thresholds = given ? { ...(current ?? {}), ...Object.fromEntries(Object.entries(scores).filter(([, v]) => v !== undefined)) } : undefined;
  const rules = flags.rules === undefined ? undefined : nullable(flags.rules) === null ? [] : csv(flags.rules);
  return { name: flags.name, description: nullable(flags.description), merchantId: nullable(flags.merchant), ruleIds: rules, thresholds };
}

export const thresholdsGiven = (flags: AntifraudPlanFlagValues): boolean =>
  flags['challenge-score'] !== undefined || flags['review-score'] !== undefined || flags['decline-score'] !== undefined;

const score = (v: number | null) => (v === null ? '-' : String(v));

export function describeThresholds(t: AntifraudPlan['thresholds']): string {
  if (t.challenge === null && t.review === null && t.decline === null) return 'the risk configuration\'s';
  return `challenge ${score(t.challenge)} / review ${score(t.review)} / decline ${score(t.decline)}`;
}

export function renderAntifraudPlan(p: AntifraudPlan): string {
  return renderRecord({
    id: p.id, tenant: p.tenantId, mode: p.livemode ? 'live' : 'sandbox', name: p.name, description: p.description, status: planStatus(p.status),
    merchant: p.merchantId ?? '(every merchant of the tenant)', rules: p.ruleIds.length ? p.ruleIds : '(none)', thresholds: describeThresholds(p.thresholds),
    owner: p.ownerLevel, createdBy: p.createdBy, createdAt: p.createdAt, updatedAt: p.updatedAt, deletedAt: p.deletedAt,
  });
}

export function renderAntifraudPlans(plans: AntifraudPlan[]): string {
  return renderTable(plans, [
    { header: 'ID', get: (p) => p.id },
    { header: 'Name', get: (p) => p.name },
    { header: 'Status', get: (p) => planStatus(p.status) },
    { header: 'Merchant', get: (p) => p.merchantId ?? 'all' },
    { header: 'Rules', get: (p) => String(p.ruleIds.length) },
    { header: 'Thresholds', get: (p) => describeThresholds(p.thresholds) },
  ]);
}

function planStatus(status: string): string {
  if (!colourEnabled()) return status;
  return status === 'enabled' ? chalk.green(status) : chalk.yellow(status);
}

// ------------------------------------------------------------------------------------------------ list groups

export const LIST_ENTRY_TYPE_OPTIONS = ['card_fingerprint', 'email', 'email_domain', 'ip', 'bin', 'country', 'customer_reference'];

export function renderListGroup(g: ListGroup): string {
  return renderRecord({
    id: g.id, tenant: g.tenantId, mode: g.livemode ? 'live' : 'sandbox', name: g.name, description: g.description, entryType: g.entryType,
    entries: g.entryCount, createdBy: g.createdBy, createdAt: g.createdAt, updatedAt: g.updatedAt, deletedAt: g.deletedAt,
  });
}

export function renderListGroups(groups: ListGroup[]): string {
  return renderTable(groups, [
    { header: 'ID', get: (g) => g.id },
    { header: 'Name', get: (g) => g.name },
    { header: 'Entry type', get: (g) => g.entryType },
    { header: 'Entries', get: (g) => String(g.entryCount) },
    { header: 'Created', get: (g) => g.createdAt },
  ]);
}

export function renderListEntries(entries: ListEntry[]): string {
  return renderTable(entries, [
    { header: 'ID', get: (e) => e.id },
    { header: 'Value', get: (e) => e.value },
    { header: 'Note', get: (e) => e.note },
    { header: 'Created by', get: (e) => e.createdBy },
    { header: 'Created', get: (e) => e.createdAt },
  ]);
}

export function renderListEntry(e: ListEntry): string {
  return renderRecord({
    id: e.id, listGroup: e.listGroupId, entryType: e.entryType, value: e.value, note: e.note, createdBy: e.createdBy, createdAt: e.createdAt, deletedAt: e.deletedAt,
  });
}

// ------------------------------------------------------------------------------------------------ configuration

export const riskConfigurationFields = {
  challengeScore: '--challenge-score', reviewScore: '--review-score', declineScore: '--decline-score', enforcement: '--enforcement',
};

export function renderRiskConfiguration(c: RiskConfiguration): string {
  return renderRecord({
    tenant: c.tenantId, challengeScore: c.challengeScore, reviewScore: c.reviewScore ?? '(none)', declineScore: c.declineScore, enforcement: c.enforcement,
    source: c.isDefault ? 'defaults (the tenant set none)' : 'the tenant\'s own', updatedBy: c.updatedBy, updatedAt: c.updatedAt,
  });
}

// ------------------------------------------------------------------------------------------------ dry run

/**
 * The hypothetical payment of `risk evaluate`: the JSON file (or inline JSON) checked with the dry run's own schema;
 * --merchant replaces the file's merchantId. Issues name the flag and the field (--payment-json.amount.currency).
 */
export function paymentInput(value: string, merchant: string | undefined): import('../services/risk/dry-run').RiskPaymentInput {
  const trimmed = value.trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed.startsWith('{') ? trimmed : fs.readFileSync(value, 'utf8'));
  } catch (error) {
    throw ValidationError.field('--payment-json', `is neither inline JSON nor a readable JSON file: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw ValidationError.field('--payment-json', 'must be a JSON object (a payment)');
  const input = { ...(parsed as Record<string, unknown>), ...(merchant !== undefined ? { merchantId: merchant } : {}) };
  try {
    return validateRisk(RiskPaymentInput, input, paymentFields(merchant));
  } catch (error) {
    if (error instanceof ValidationError && !error.hint && error.errors?.some((i) => i.path === '--payment-json.merchantId')) {
      throw new ValidationError(error.detail, error.errors, error.code, { hint: 'Give the payment a merchantId, or pass --merchant.' });
    }
    throw error;
  }
}

/** Where the dry run's issues point: the file's fields, or --merchant when it gave the merchant. */
export function paymentFields(merchant: string | undefined): Record<string, string> {
  return { '': '--payment-json', '*': '--payment-json', ...(merchant !== undefined ? { merchantId: '--merchant' } : {}) };
}

export function renderDryRun(run: RiskDryRun): string {
  const d = run.decision;
  const t = d.thresholds;
  const head = renderRecord({
    decision: decisionColour(d.decision), evaluated: d.evaluatedDecision === d.decision ? d.evaluatedDecision : `${d.evaluatedDecision} (not enforced: monitor)`,
    score: d.score, thresholds: `challenge ${t.challenge} / review ${t.review ?? '-'} / decline ${t.decline}`, plans: d.planIds.length ? d.planIds : '(none enabled)',
    reason: d.reason ?? '(none)', card: run.subject.card ? `${run.subject.card.brand} ${run.subject.card.bin}… fingerprint ${run.subject.card.fingerprint}` : '(none)',
  });
  if (!d.matchedRules.length) return `${head}\n(no rule matched)`;
  const table = renderTable(d.matchedRules, [
    { header: 'Rule', get: (r) => r.id },
    { header: 'Name', get: (r) => r.name },
    { header: 'Signal', get: (r) => signalColour(r.signal) },
    { header: 'Score', get: (r) => String(r.scoreImpact) },
    { header: 'Priority', get: (r) => String(r.priority) },
  ]);
  return `${head}\n${table}`;
}

function decisionColour(decision: string): string {
  if (!colourEnabled()) return decision;
  return decision === 'allow' ? chalk.green(decision) : decision === 'decline' ? chalk.red(decision) : chalk.yellow(decision);
}
