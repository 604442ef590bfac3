import fs from 'node:fs';
import { Flags } from '@oclif/core';
import { renderRecord, renderTable, type TableOptions, statusColour } from './output';
import { ValidationError } from '../domain/errors';
import type { Page } from '../db/scoped';
import type { FeeAssignment, FeeSchedule } from '../services/fees/schedules';
import type { FeeBreakdown } from '../services/fees/engine';
import { formatMinor, type Money } from '../domain/money';
import { amountFlagPair, minorOf } from './amounts';
import { z } from '../api/zod';
import { Currency, FutureDateInput } from '../api/common';
import { PAYMENT_METHODS, TRANSACTION_TYPES } from '../api/fees/schemas';

// The fee schedules, fee assignments and fee quote commands' pieces. The terminal acts with the platform's authority
// (as `partners` and `channels` do), or as a tenant's operator (fees have no mode: livemode is irrelevant to them).

// Schedules

export const scheduleFlags = {
  name: Flags.string({ description: 'Display name' }),
  description: Flags.string({ description: 'Description ("null" clears it)' }),
  'rules-file': Flags.string({ description: 'JSON file: an array of fee rules (or { "rules": [...] }) as the API takes them' }),
  'transaction-type': Flags.string({
    description: 'One rule from flags: transaction type',
    options: ['payment', 'refund', 'payout', 'withdrawal', 'dispute', 'chargeback'],
  }),
  outcome: Flags.string({ description: 'One rule: transaction outcome (default successful)', options: ['successful', 'failed', 'any'] }),
  method: Flags.string({
    description: 'One rule: fixed, percentage or fixed_plus_percentage',
    options: ['fixed', 'percentage', 'fixed_plus_percentage'],
  }),
  party: Flags.string({ description: 'One rule: who earns it (default tenant)', options: ['provider', 'tenant', 'platform', 'partner'] }),
  currency: Flags.string({ description: 'One rule: its currency (--fixed, --min and --max are in it)' }),
  ...amountFlagPair('fixed', 'One rule: fixed amount', "the rule's --currency"),
  rate: Flags.integer({ description: 'One rule: percentage rate in millionths (10000 = 1%)' }),
  ...amountFlagPair('min', 'One rule: minimum fee', "the rule's --currency"),
  ...amountFlagPair('max', 'One rule: maximum fee', "the rule's --currency"),
  'reserve-rate': Flags.integer({ description: 'Rolling reserve rate in millionths of the net (10000 = 1%)' }),
  'hold-days': Flags.integer({ description: 'Rolling reserve hold in days' }),
  'auto-release': Flags.boolean({ description: 'Release the reserve automatically after the hold', allowNo: true }),
  rounding: Flags.string({
    description: 'Rounding of every percentage of the schedule',
    options: ['floor', 'ceil', 'half_up', 'half_even'],
  }),
};

export interface ScheduleFlagValues {
  name?: string;
  description?: string;
  'rules-file'?: string;
  'transaction-type'?: string;
  outcome?: string;
  method?: string;
  party?: string;
  currency?: string;
  fixed?: string;
  'fixed-minor'?: number;
  rate?: number;
  min?: string;
  'min-minor'?: number;
  max?: string;
  'max-minor'?: number;
  'reserve-rate'?: number;
  'hold-days'?: number;
  'auto-release'?: boolean;
  rounding?: string;
}

/** A rule amount from its flag pair (--fixed or --fixed-minor, …), in the rule's --currency. */
function ruleMoney(flags: ScheduleFlagValues, name: 'fixed' | 'min' | 'max') {
  const valueMinor = minorOf(flags, name, { currency: flags.currency, currencyFlag: '--currency', zero: true });
  return valueMinor === undefined ? undefined : { currency: flags.currency, valueMinor };
}

/** The schedule fields from the flags (before validation with the API's schema). */
export function scheduleInput(flags: ScheduleFlagValues): Record<string, unknown> {
  let rules: unknown;
  if (flags['rules-file']) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(fs.readFileSync(flags['rules-file'], 'utf8'));
    } catch (error) {
      throw ValidationError.field('--rules-file', `cannot be read as JSON: ${(error as Error).message}`);
    }
    rules = Array.isArray(parsed) ? parsed : (parsed as { rules?: unknown })?.rules;
    if (!Array.isArray(rules)) throw ValidationError.field('--rules-file', 'must hold an array of rules or { "rules": [...] }');
  } else if (flags.method || flags['transaction-type']) {
    rules = [
      {
        transactionType: flags['transaction-type'],
        transactionOutcome: flags.outcome,
        method: flags.method,
        party: flags.party,
        currency: flags.currency,
        fixedAmount: ruleMoney(flags, 'fixed'),
        percentageRate: flags.rate,
        minAmount: ruleMoney(flags, 'min'),
        maxAmount: ruleMoney(flags, 'max'),
      },
    ].map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)));
  }
  const reserveGiven = [flags['reserve-rate'], flags['hold-days'], flags['auto-release'], flags.rounding].some((v) => v !== undefined);
  const rollingReserve = reserveGiven
    ? Object.fromEntries(
        Object.entries({
          rate: flags['reserve-rate'],
          holdDays: flags['hold-days'],
          autoRelease: flags['auto-release'],
          roundingMode: flags.rounding,
        }).filter(([, v]) => v !== undefined),
      )
    : undefined;
  const description = flags.description === undefined ? undefined : flags.description === 'null' ? null : flags.description;
  return { name: flags.name, description, rules, rollingReserve };
}

export const scheduleFlagNames = { rollingReserve: 'reserve-rate', rules: 'rules-file' };

export function renderSchedule(s: FeeSchedule): string {
  const rr = s.rollingReserve;
  return [
    renderRecord({
      id: s.id,
      tenant: s.tenantId ?? '(platform)',
      name: s.name,
      description: s.description,
      status: s.status,
      activatedAt: s.activatedAt,
      archivedAt: s.archivedAt,
      rollingReserve: `${rr.rate} (${rr.rate / 10000}%) held ${rr.holdDays} days${rr.autoRelease ? ', auto-release' : ''}; rounding ${rr.roundingMode}`,
    }),
    renderRules(s),
  ].join('\n');
}

export function renderRules(s: FeeSchedule): string {
  const m = (x: Money | null) => (x ? formatMinor(x) : '');
  return renderTable(s.rules, [
    { header: 'Type', get: (r) => r.transactionType },
    { header: 'Outcome', get: (r) => r.transactionOutcome },
    { header: 'Party', get: (r) => r.party },
    { header: 'Method', get: (r) => r.method },
    { header: 'Currency', get: (r) => r.currency },
    { header: 'Fixed', get: (r) => m(r.fixedAmount) },
    { header: 'Rate', get: (r) => (r.percentageRate === null ? '' : `${r.percentageRate} (${r.percentageRate / 10000}%)`) },
    { header: 'Min', get: (r) => m(r.minAmount) },
    { header: 'Max', get: (r) => m(r.maxAmount) },
  ]);
}

export function renderSchedules(page: Page<FeeSchedule>, options: TableOptions = {}): string {
  return renderTable(
    page.data,
    [
      { header: 'ID', get: (s) => s.id },
      { header: 'Tenant', get: (s) => s.tenantId ?? '(platform)' },
      { header: 'Name', get: (s) => s.name },
      { header: 'Rules', get: (s) => String(s.rules.length) },
      { header: 'Status', get: (s) => statusColour(s.status) },
    ],
    options,
  );
}

// Assignments

export function renderFeeAssignment(a: FeeAssignment): string {
  return renderRecord({
    id: a.id,
    tenant: a.tenantId ?? '(platform)',
    level: a.level,
    target: a.targetEntityId,
    schedule: a.feeScheduleId,
    currency: a.currency,
    paymentMethod: a.paymentMethod,
    effectiveFrom: a.effectiveFrom,
    effectiveTo: a.effectiveTo,
    status: a.status,
  });
}

export function renderFeeAssignments(page: Page<FeeAssignment>, options: TableOptions = {}): string {
  return renderTable(
    page.data,
    [
      { header: 'ID', get: (a) => a.id },
      { header: 'Level', get: (a) => a.level },
      { header: 'Target', get: (a) => a.targetEntityId },
      { header: 'Schedule', get: (a) => a.feeScheduleId },
      { header: 'Currency', get: (a) => a.currency },
      { header: 'Method', get: (a) => a.paymentMethod },
      { header: 'From', get: (a) => a.effectiveFrom },
      { header: 'To', get: (a) => a.effectiveTo ?? '' },
      { header: 'Status', get: (a) => statusColour(a.status) },
    ],
    options,
  );
}

// Quote

export function renderBreakdown(b: FeeBreakdown): string {
  const rows = [
    { item: 'amount', value: b.amount },
    { item: 'providerFee', value: b.providerFee },
    { item: 'tenantFee', value: b.tenantFee },
    { item: 'platformFee', value: b.platformFee },
    { item: 'partnerCommission', value: b.partnerCommission },
    { item: 'merchantFee', value: b.merchantFee },
    { item: 'net', value: b.net },
    { item: 'reserve', value: b.reserve },
  ];
  const table = renderTable(rows, [
    { header: 'Item', get: (r) => r.item },
    { header: 'Amount', get: (r) => formatMinor({ currency: b.currency, valueMinor: r.value }) },
  ]);
  const lines = b.lines.length
    ? renderTable(b.lines, [
        { header: 'Party', get: (l) => l.party },
        { header: 'Level', get: (l) => l.level },
        { header: 'Schedule', get: (l) => l.feeScheduleId },
        { header: 'Rule', get: (l) => String(l.ruleIndex) },
        { header: 'Method', get: (l) => l.method },
        { header: 'Fee', get: (l) => formatMinor({ currency: b.currency, valueMinor: l.amount }) },
      ])
    : 'No fee rule applies.';
  return `${table}\n\n${lines}`;
}

/** `payplane fees quote` input: issues name the flags (amount covers --amount and --currency). */
export const QuoteInput = z.strictObject({
  tenant: z.string().uuid().optional(),
  merchant: z.string().uuid(),
  amount: z.strictObject({ currency: Currency, valueMinor: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) }),
  method: z.enum(PAYMENT_METHODS),
  type: z.enum(TRANSACTION_TYPES),
  outcome: z.enum(['successful', 'failed']),
  terminal: z.string().uuid().optional(),
  channel: z.string().uuid().optional(),
  partner: z.string().uuid().optional(),
  at: FutureDateInput.optional(),
});
