import { Op } from 'sequelize';
import type { CallerContext } from '../../domain/context';
import { elevate } from '../../domain/authority';
import { scoped } from '../../db/scoped';
import type { AntifraudPlanRow, RiskAggregation, RiskSignal, ScoringRuleRow } from '../../db/models/risk';
import { UNIT_MS } from '../limits/usage';
import { compareNumbers, matchesCondition, subjectValue, type RiskSubject } from './conditions';
import { groupsHolding } from './lists';
import { planRuleIds, planThresholds } from './plans';
import { riskSettings } from './configuration';
import { ruleConditions } from './rules';

/**
 * The risk engine. Once routed and before any provider call, every payment attempt is scored by the rules of the enabled antifraud plans of its
 * tenant (and mode) that apply to its merchant, in priority order:
 *
 * - a rule matches when all its conditions hold; a matched rule adds its scoreImpact to the score and its signal
 *   (allow adds nothing, challenge, review, block) raises the decision; a block ends the evaluation;
 * - the score against the thresholds (the strictest of the plans', else the tenant's risk configuration, else the
 *   defaults) gives a decision too; the stronger of the two wins: allow < challenge < review < decline;
 * - under `monitor` enforcement the decision is recorded and the payment goes on as allowed.
 *
 * Cost: a fixed number of queries whatever the number of past payments: configuration, plans, rules, at most two list
 * lookups, and one indexed count or sum per aggregation that is reached (an aggregation is only computed when the
 * rule's other conditions hold). Aggregations count the tenant's payments of the period that share the identifier,
 * whatever their status, plus the payment being evaluated. Deterministic: same data and input, same decision.
 */

export type RiskOutcome = 'allow' | 'challenge' | 'review' | 'decline';

export interface MatchedRule {
  id: string;
  name: string;
  signal: RiskSignal;
  scoreImpact: number;
  priority: number;
}

export interface RiskDecision {
  /** what applies to the payment (allow under monitor enforcement) */
  decision: RiskOutcome;
  /** what the rules and thresholds decided */
  evaluatedDecision: RiskOutcome;
  enforced: boolean;
  score: number;
  matchedRules: MatchedRule[];
  thresholds: { challenge: number; review: number | null; decline: number };
  planIds: string[];
  /** why, in words (null when allowed without a reason) */
  reason: string | null;
}

const SEVERITY: Record<RiskOutcome, number> = { allow: 0, challenge: 1, review: 2, decline: 3 };
const SIGNAL_OUTCOME: Record<RiskSignal, RiskOutcome> = { allow: 'allow', challenge: 'challenge', review: 'review', block: 'decline' };
const stronger = (a: RiskOutcome, b: RiskOutcome): RiskOutcome => (SEVERITY[b] > SEVERITY[a] ? b : a);

/** The payment columns aggregations count by, and the subject's value for each. */
const IDENTIFIER_COLUMN = {
  card_fingerprint: { column: 'cardFingerprint', field: 'card_fingerprint' },
  email: { column: 'customerEmail', field: 'email' },
  ip: { column: 'customerIp', field: 'ip' },
  customer_reference: { column: 'customerReference', field: 'customer_reference' },
  merchant: { column: 'merchantId', field: 'merchant_id' },
} as const;

/**
 * The count (or sum of amounts) of the tenant's payments of the period sharing the aggregation's identifier with the
 * subject, including the subject itself: one indexed query. Scopes narrow it to the payments of the subject's merchant,
 * channel, or terminal (the one its route starts with; a payment the engine declined was sent to none: its terminalId is
 * null, so it is not counted under a terminal scope).
 */
export async function aggregateValue(ctx: CallerContext, aggregation: RiskAggregation, subject: RiskSubject, now: Date): Promise<number> {
  const currency = aggregation.currency ?? subject.amount.currency;
  const own = aggregation.metric === 'count' ? 1 : subject.amount.currency === currency ? subject.amount.valueMinor : 0;
  const { column, field } = IDENTIFIER_COLUMN[aggregation.identifier];
  const value = subjectValue(subject, field);
  if (value === null) return own;
  const since = new Date(now.getTime() - aggregation.period.value * UNIT_MS[aggregation.period.unit]);
  const where: Record<string, unknown> = { [column]: value, createdAt: { [Op.gte]: since, [Op.lte]: now } };
  if (aggregation.scope.includes('merchant')) where.merchantId = subject.merchantId;
  if (aggregation.scope.includes('channel')) where.channelId = subject.channelId;
  if (aggregation.scope.includes('terminal')) {
    // the payments routed to the payment's terminal; a payment no terminal takes shares a terminal with none
    if (!subject.terminalId) return own;
    where.terminalId = subject.terminalId;
  }
  const payments = scoped(ctx, ctx.db.models.Payment);
  if (aggregation.metric === 'count') return (await payments.count(where)) + own;
  return (await payments.sum('amountMinor', { ...where, currency })) + own;
}

/**
 * The caller's context narrowed to the subject's tenant and mode (a platform operator's dry run reads one tenant), so
 * the scoped access puts tenant and mode on every query once: the same condition written twice misleads SQLite's
 * planner into the tenant's createdAt index instead of a payments_risk_* one.
 */
function subjectScope(caller: CallerContext, subject: RiskSubject): CallerContext {
  if (caller.level === 'tenant' && caller.tenantId === subject.tenantId && caller.livemode === subject.livemode && !caller.merchantScope)
    return caller;
  return elevate(caller, 'tenant', 'the risk subject tenant and mode', { tenantId: subject.tenantId, livemode: subject.livemode });
}

/**
 * Inside a payment's transaction on Postgres, takes a transaction-scoped advisory lock per identifier value the
 * aggregations count by (in one sorted order, so two payments never wait on each other crosswise): two payments of
 * one card (email, ip…) in two processes count one after the other, so a velocity rule cannot be passed by sending
 * them at once. SQLite serializes writing transactions anyway.
 */
async function lockIdentifiers(ctx: CallerContext, subject: RiskSubject, identifiers: RiskAggregation['identifier'][]): Promise<void> {
  if (!ctx.transaction || ctx.db.dialect !== 'postgres') return;
  const keys = [...new Set(identifiers)]
    .map((identifier) => {
      const value = subjectValue(subject, IDENTIFIER_COLUMN[identifier].field);
      return value === null ? null : `risk:${subject.tenantId}:${subject.livemode}:${identifier}:${value}`;
    })
    .filter((k): k is string => k !== null)
    .sort();
  for (const key of keys) {
    await ctx.db.sequelize.query('SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))', {
      replacements: { key },
      transaction: ctx.transaction,
    });
  }
}

/** The enabled plans of the subject's tenant and mode that apply to its merchant, in id order. */
async function applicablePlans(ctx: CallerContext, subject: RiskSubject): Promise<AntifraudPlanRow[]> {
  const plans = await scoped(ctx, ctx.db.models.AntifraudPlan).findAll({
    status: 'enabled',
    [Op.or]: [{ merchantId: null }, { merchantId: subject.merchantId }],
  });
  return plans.sort((a, b) => a.id.localeCompare(b.id));
}

/** Priority, then creation, then id: a total order, so the evaluation is the same every time. */
function byPriority(a: ScoringRuleRow, b: ScoringRuleRow): number {
  return (
    Number(a.priority) - Number(b.priority) || new Date(a.createdAt).getTime() - new Date(b.createdAt).getTime() || a.id.localeCompare(b.id)
  );
}

/**
 * Scores a payment. `caller` is the payment path's processing context, or an operator's (tenant or platform); every
 * read is narrowed to the subject's tenant and mode by the scoped access. Nothing is written.
 *
 * `at`: the moment the aggregation windows end (a dry run of the past). Without it (the payment path) the moment is
 * read after the identifiers are locked, never before: a payment of the same card that committed while this one
 * waited for the lock (or for SQLite's write lock) has a createdAt later than a moment read before the wait, and a
 * window ending then would leave it out: the race that let a burst of one card's payments all pass a velocity rule.
 */
export async function evaluateRisk(caller: CallerContext, subject: RiskSubject, at?: Date): Promise<RiskDecision> {
  const ctx = subjectScope(caller, subject);
  const [settings, plans] = await Promise.all([riskSettings(ctx, subject.tenantId), applicablePlans(ctx, subject)]);
  const planThresholdList = plans.map(planThresholds);
  const strictest = (key: 'challenge' | 'review' | 'decline', fallback: number | null) => {
    const set = planThresholdList.map((t) => t[key]).filter((v): v is number => v !== null && v !== undefined);
    return set.length ? Math.min(...set) : fallback;
  };
  const thresholds = {
    challenge: strictest('challenge', settings.challengeScore)!,
    review: strictest('review', settings.reviewScore),
    decline: strictest('decline', settings.declineScore)!,
  };
  const ruleIds = [...new Set(plans.flatMap(planRuleIds))];
  const rules = ruleIds.length
    ? (await scoped(ctx, ctx.db.models.ScoringRule).findAll({ isActive: true, id: { [Op.in]: ruleIds } })).sort(byPriority)
    : [];

  const conditionsOf = new Map(rules.map((r) => [r.id, ruleConditions(r)]));
  await lockIdentifiers(
    ctx,
    subject,
    [...conditionsOf.values()].flat().flatMap((c) => (c.aggregation ? [c.aggregation.identifier] : [])),
  );
  const now = at ?? ctx.clock.now();
  const listIds = [
    ...new Set(
      [...conditionsOf.values()]
        .flat()
        .filter((c) => c.operator === 'in_list' && !c.aggregation)
        .map((c) => c.value),
    ),
  ];
  const holding = await groupsHolding(ctx, listIds, subject);
  const aggregates = new Map<string, Promise<number>>();
  const aggregate = (a: RiskAggregation) => {
    const key = JSON.stringify([a.metric, a.period, [...a.scope].sort(), a.identifier, a.currency]);
    if (!aggregates.has(key)) aggregates.set(key, aggregateValue(ctx, a, subject, now));
    return aggregates.get(key)!;
  };

  let score = 0;
  let bySignal: RiskOutcome = 'allow';
  const matchedRules: MatchedRule[] = [];
  let blockedBy: MatchedRule | null = null;
  for (const rule of rules) {
    const conditions = conditionsOf.get(rule.id)!;
    let holds = conditions.filter((c) => !c.aggregation).every((c) => matchesCondition(c, subject, (id) => holding.has(id)));
    for (const c of conditions.filter((x) => x.aggregation)) {
      if (!holds) break;
      holds = compareNumbers(c.operator, await aggregate(c.aggregation!), c.value);
    }
    if (!holds) continue;
    const matched: MatchedRule = {
      id: rule.id,
      name: rule.name,
      signal: rule.signal,
      scoreImpact: Number(rule.scoreImpact),
      priority: Number(rule.priority),
    };
    matchedRules.push(matched);
    score += matched.scoreImpact;
    bySignal = stronger(bySignal, SIGNAL_OUTCOME[rule.signal]);
    if (rule.signal === 'block') {
      blockedBy = matched;
      break;
    }
  }

  let byScore: RiskOutcome = 'allow';
  if (score >= thresholds.decline) byScore = 'decline';
  else if (thresholds.review !== null && score >= thresholds.review) byScore = 'review';
  else if (score >= thresholds.challenge) byScore = 'challenge';
  const evaluatedDecision = stronger(bySignal, byScore);
  const enforced = settings.enforcement === 'enforce';

  let reason: string | null = null;
  if (blockedBy) reason = `blocked by rule "${blockedBy.name}"`;
  else if (evaluatedDecision !== 'allow') {
    reason =
      SEVERITY[byScore] >= SEVERITY[bySignal]
        ? `score ${score} reached the ${evaluatedDecision} threshold ${evaluatedDecision === 'decline' ? thresholds.decline : evaluatedDecision === 'review' ? thresholds.review : thresholds.challenge}`
        : `rule "${matchedRules.find((r) => SIGNAL_OUTCOME[r.signal] === evaluatedDecision)!.name}" signals ${evaluatedDecision}`;
  }
  return {
    decision: enforced ? evaluatedDecision : 'allow',
    evaluatedDecision,
    enforced,
    score,
    matchedRules,
    thresholds,
    planIds: plans.map((p) => p.id),
    reason,
  };
}
