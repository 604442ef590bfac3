import { Flags } from '@oclif/core';
import { actorLabel } from '../actors';
import { chalk, colourEnabled, renderRecord, renderTable, type TableOptions } from '../output';
import { conditionsFlag, nullable } from './input';
import type { RiskCondition } from '../../db/models/risk';
import type { ScoringRule } from '../../services/risk/rules';

// The `payplane risk rules …` commands' pieces: scoring rules.

export const scoringRuleFlags = {
  name: Flags.string({ description: 'Display name' }),
  description: Flags.string({ description: 'Description ("none" clears it)' }),
  signal: Flags.string({
    description: 'What a match decides by itself (allow: only the score counts)',
    options: ['allow', 'challenge', 'review', 'block'],
  }),
  'score-impact': Flags.integer({ description: "Added to the payment's score on a match (negative lowers it)" }),
  priority: Flags.integer({ description: 'Lower is evaluated first; a matched block rule ends the evaluation' }),
  'conditions-json': Flags.string({
    description:
      'Conditions as the API takes them (all must hold): a JSON file path or an inline JSON array, e.g. [{"field":"card_fingerprint","operator":"in_list","value":"<list group id>"}]',
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

export const scoringRuleFields = {
  conditions: '--conditions-json',
  scoreImpact: '--score-impact',
  isActive: '--active',
  tenantId: '--tenant',
};

/** The scoring rule fields from the flags, before validation with the API's schema. */
export function scoringRuleInput(flags: ScoringRuleFlagValues): Record<string, unknown> {
  return {
    name: flags.name,
    description: nullable(flags.description),
    signal: flags.signal,
    scoreImpact: flags['score-impact'],
    priority: flags.priority,
    conditions: conditionsFlag(flags['conditions-json']),
    isActive: flags.active ? true : flags.inactive ? false : undefined,
  };
}

const PERIOD_SHORT = { minute: 'm', hour: 'h', day: 'd', week: 'w' } as const;

/** One condition in words: `card_fingerprint in_list 6f1c…`, `count(card_fingerprint, 10m) gte 3`. */
export function describeCondition(c: RiskCondition): string {
  if (!c.aggregation) return `${c.field} ${c.operator} ${c.value}`;
  const a = c.aggregation;
  const scope = a.scope.filter((s) => s !== 'tenant');
  const extra = [
    `${a.period.value}${PERIOD_SHORT[a.period.unit] ?? ` ${a.period.unit}`}`,
    ...(scope.length ? [`per ${scope.join('+')}`] : []),
    ...(a.currency ? [a.currency] : []),
  ];
  return `${a.metric}(${a.identifier}, ${extra.join(', ')}) ${c.operator} ${c.value}`;
}

export function renderScoringRule(r: ScoringRule): string {
  return renderRecord({
    id: r.id,
    tenant: r.tenantId,
    mode: r.livemode ? 'live' : 'sandbox',
    name: r.name,
    description: r.description,
    active: r.isActive ? 'yes' : 'no',
    signal: r.signal,
    scoreImpact: r.scoreImpact,
    priority: r.priority,
    conditions: r.conditions.map(describeCondition).join('; '),
    createdBy: actorLabel(r.createdBy),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    deletedAt: r.deletedAt,
  });
}

export function renderScoringRules(rules: ScoringRule[], options: TableOptions = {}): string {
  return renderTable(
    rules,
    [
      { header: 'ID', get: (r) => r.id },
      { header: 'Name', get: (r) => r.name },
      { header: 'Signal', get: (r) => signalColour(r.signal) },
      { header: 'Score', get: (r) => String(r.scoreImpact) },
      { header: 'Priority', get: (r) => String(r.priority) },
      { header: 'Active', get: (r) => (r.isActive ? 'yes' : 'no') },
      { header: 'Conditions', get: (r) => r.conditions.map(describeCondition).join('; ') },
    ],
    options,
  );
}

export function signalColour(signal: string): string {
  if (!colourEnabled()) return signal;
  return signal === 'block' ? chalk.red(signal) : signal === 'allow' ? signal : chalk.yellow(signal);
}
