import { Flags } from '@oclif/core';
import { actorLabel } from '../actors';
import { chalk, colourEnabled, renderRecord, renderTable, type TableOptions } from '../output';
import { csv } from '../flags';
import { nullable, scoreFlag } from './input';
import type { AntifraudPlan } from '../../services/risk/plans';

// The `payplane risk plans …` commands' pieces: antifraud plans.

export const antifraudPlanFlags = {
  name: Flags.string({ description: 'Display name' }),
  description: Flags.string({ description: 'Description ("none" clears it)' }),
  merchant: Flags.string({ description: 'The one merchant the plan applies to ("none": every merchant of the tenant, the default)' }),
  rules: Flags.string({ description: 'Scoring rule ids, comma-separated (replaces the list; "none" empties it)' }),
  'challenge-score': Flags.string({ description: 'Score at or above which 3DS is forced ("none": the risk configuration\'s)' }),
  'review-score': Flags.string({
    description: 'Score at or above which the payment is held for review ("none": the risk configuration\'s)',
  }),
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
  merchantId: '--merchant',
  ruleIds: '--rules',
  'thresholds.challenge': '--challenge-score',
  'thresholds.review': '--review-score',
  'thresholds.decline': '--decline-score',
  thresholds: '--challenge-score',
  enabled: '--enable',
  tenantId: '--tenant',
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
  const thresholds = given
    ? { ...(current ?? {}), ...Object.fromEntries(Object.entries(scores).filter(([, v]) => v !== undefined)) }
    : undefined;
  const rules = flags.rules === undefined ? undefined : nullable(flags.rules) === null ? [] : csv(flags.rules);
  return { name: flags.name, description: nullable(flags.description), merchantId: nullable(flags.merchant), ruleIds: rules, thresholds };
}

export const thresholdsGiven = (flags: AntifraudPlanFlagValues): boolean =>
  flags['challenge-score'] !== undefined || flags['review-score'] !== undefined || flags['decline-score'] !== undefined;

const score = (v: number | null) => (v === null ? '-' : String(v));

export function describeThresholds(t: AntifraudPlan['thresholds']): string {
  if (t.challenge === null && t.review === null && t.decline === null) return "the risk configuration's";
  return `challenge ${score(t.challenge)} / review ${score(t.review)} / decline ${score(t.decline)}`;
}

export function renderAntifraudPlan(p: AntifraudPlan): string {
  return renderRecord({
    id: p.id,
    tenant: p.tenantId,
    mode: p.livemode ? 'live' : 'sandbox',
    name: p.name,
    description: p.description,
    status: planStatus(p.status),
    merchant: p.merchantId ?? '(every merchant of the tenant)',
    rules: p.ruleIds.length ? p.ruleIds : '(none)',
    thresholds: describeThresholds(p.thresholds),
    owner: p.ownerLevel,
    createdBy: actorLabel(p.createdBy),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    deletedAt: p.deletedAt,
  });
}

export function renderAntifraudPlans(plans: AntifraudPlan[], options: TableOptions = {}): string {
  return renderTable(
    plans,
    [
      { header: 'ID', get: (p) => p.id },
      { header: 'Name', get: (p) => p.name },
      { header: 'Status', get: (p) => planStatus(p.status) },
      { header: 'Merchant', get: (p) => p.merchantId ?? 'all' },
      { header: 'Rules', get: (p) => String(p.ruleIds.length) },
      { header: 'Thresholds', get: (p) => describeThresholds(p.thresholds) },
    ],
    options,
  );
}

function planStatus(status: string): string {
  if (!colourEnabled()) return status;
  return status === 'enabled' ? chalk.green(status) : chalk.yellow(status);
}
