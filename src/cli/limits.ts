import { Flags } from '@oclif/core';
import { sharedFlags } from './flags';
import { renderRecord, renderTable, type TableOptions, statusColour } from './output';
import { validateWith } from './validate';
import { ValidationError } from '../domain/errors';
import { formatMinor } from '../domain/money';
import { minorOf } from './amounts';
import { CreateLimitBody } from '../api/limits/schemas';
import type { Page } from '../db/scoped';
import { checkLimitInput, type Limit, type LimitOwner } from '../services/limits/manage';

// The limits of merchants, channels and terminals: their flags, input and tables.

export const limitFlags = {
  'period-value': Flags.integer({ description: 'Length of the period in units (default 1)', default: 1 }),
  'period-unit': Flags.string({ description: 'Unit of the period', options: ['minute', 'hour', 'day', 'week', 'month'] }),
  metric: Flags.string({ description: 'volume (sum of amounts in --currency) or count (of transactions)', options: ['volume', 'count'] }),
  threshold: Flags.string({
    description:
      'Cap per period: for volume an amount in --currency, in major units (e.g. 1000.00 EUR, 150000 JPY; not with --threshold-minor); for count a number of transactions',
  }),
  'threshold-minor': Flags.integer({
    description: 'Volume cap in minor units of --currency (e.g. 100000 for 1000.00 EUR); not with --threshold',
  }),
  currency: Flags.string({ description: 'ISO 4217 currency (required for volume)' }),
  'payment-method': Flags.string({ description: 'Only this payment method, e.g. card' }),
  brand: Flags.string({ description: 'Only this card brand, e.g. visa' }),
  'transaction-type': Flags.string({
    description: 'Transaction type counted (default payment)',
    options: ['payment', 'refund', 'payout', 'withdrawal'],
  }),
};

export interface LimitFlagValues {
  'period-value': number;
  'period-unit'?: string;
  metric?: string;
  threshold?: string;
  'threshold-minor'?: number;
  currency?: string;
  'payment-method'?: string;
  brand?: string;
  'transaction-type'?: string;
}

/** How the limit create commands read --threshold (their help says it). */
export const THRESHOLD_DESCRIPTION =
  'For --metric volume the threshold is an amount in major units of --currency (required): --threshold 1000.00 with --currency EUR, or --threshold-minor 100000 in minor units; for --metric count it is a number of transactions. Tables show volume thresholds formatted (1000.00 EUR); --json returns the records with integer minor units.';

export type Ask = (value: string | undefined, flag: string, question: string) => Promise<string>;

/**
 * The threshold in the API's terms: for volume minor units of --currency from --threshold (major units, read as
 * every amount is: src/cli/amounts.ts) or --threshold-minor; for count a whole number of transactions. Asked on a
 * terminal when missing.
 */
async function thresholdOf(ask: Ask, flags: LimitFlagValues, metric: string): Promise<number> {
  if (metric === 'volume') {
    const currency = flags.currency;
    if (currency === undefined)
      throw ValidationError.field('--currency', 'is required when metric is volume (the threshold is an amount in it)');
    const rule = { currency, currencyFlag: '--currency' };
    const given = minorOf(flags, 'threshold', rule);
    if (given !== undefined) return given;
    return minorOf({ threshold: await ask(undefined, 'threshold', `Threshold in ${currency} (e.g. 1000.00)`) }, 'threshold', rule)!;
  }
  if (flags['threshold-minor'] !== undefined) {
    throw ValidationError.field('--threshold-minor', 'is for --metric volume: give a count with --threshold');
  }
  const count = await ask(flags.threshold, 'threshold', 'Threshold (number of transactions)');
  if (!/^\d+$/.test(count.trim())) throw ValidationError.field('--threshold', 'must be a whole number of transactions for --metric count');
  return Number(count.trim());
}

/** The limit body from the flags, validated with the API's schema; `ask` prompts for a missing required flag. */
export async function limitInput(ask: Ask, flags: LimitFlagValues) {
  const unit = await ask(flags['period-unit'], 'period-unit', 'Period unit (minute, hour, day, week, month)');
  const metric = await ask(flags.metric, 'metric', 'Metric (volume or count)');
  const threshold = await thresholdOf(ask, flags, metric);
  let input;
  try {
    input = validateWith(
      CreateLimitBody,
      {
        period: { value: flags['period-value'], unit },
        metric,
        threshold,
        currency: flags.currency,
        paymentMethod: flags['payment-method'],
        brand: flags.brand,
        transactionType: flags['transaction-type'],
      },
      { paymentMethod: 'payment-method', transactionType: 'transaction-type' },
    );
  } catch (error) {
    // period.value and period.unit are the flags --period-value and --period-unit
    if (!(error instanceof ValidationError)) throw error;
    const errors = (error.errors ?? []).map((e) => ({ ...e, path: e.path.replace(/^--period\.(value|unit)/, '--period-$1') }));
    throw new ValidationError(`Invalid input: ${errors.map((i) => `${i.path} ${i.message}`).join('; ')}`, errors);
  }
  checkLimitInput(input, undefined, '--currency');
  return input;
}

/** The flags of every limits list command (merchant, channel, terminal limits). */
export const limitListFlags = {
  status: Flags.string({ description: 'Only limits in this status', options: ['active', 'disabled'] }),
  limit: sharedFlags.limit,
  cursor: sharedFlags.cursor,
};

/** The status filter and the page (newest first) a limits list command asks for. */
export function limitListQuery(flags: { status?: string; limit: number; cursor?: string }) {
  return {
    filters: { status: flags.status as Limit['status'] | undefined },
    page: { limit: flags.limit, cursor: flags.cursor, sortOrder: 'desc' as const },
  };
}

/** A limit's threshold as read: `1000.00 EUR` for volume, `500` transactions for count. */
function thresholdText(l: Limit): string {
  return l.metric === 'volume' && l.currency ? formatMinor({ currency: l.currency, valueMinor: l.threshold }) : String(l.threshold);
}

export function renderLimits(page: Page<Limit>, options: TableOptions = {}): string {
  return renderTable(
    page.data,
    [
      { header: 'ID', get: (l) => l.id },
      { header: 'Owner', get: (l) => `${l.entityType} ${l.entityId}` },
      { header: 'Period', get: (l) => `${l.period.value} ${l.period.unit}` },
      { header: 'Metric', get: (l) => l.metric },
      { header: 'Threshold', get: thresholdText },
      {
        header: 'Narrowed to',
        get: (l) =>
          [l.currency && l.metric !== 'volume' ? l.currency : null, l.paymentMethod, l.brand, l.transactionType].filter(Boolean).join(' '),
      },
      { header: 'Status', get: (l) => statusColour(l.status) },
    ],
    options,
  );
}

export function renderLimit(limit: Limit): string {
  return renderRecord({
    id: limit.id,
    owner: `${limit.entityType} ${limit.entityId}`,
    period: `${limit.period.value} ${limit.period.unit}`,
    metric: limit.metric,
    threshold: thresholdText(limit),
    currency: limit.currency,
    paymentMethod: limit.paymentMethod,
    brand: limit.brand,
    transactionType: limit.transactionType,
    status: limit.status,
  });
}

/** `limits create|list` owner: exactly one of --merchant or --channel. */
export const ownerFlags = {
  merchant: Flags.string({ description: 'Merchant id', exclusive: ['channel'] }),
  channel: Flags.string({ description: 'Channel id', exclusive: ['merchant'] }),
};

export function ownerOf(flags: { merchant?: string; channel?: string }): LimitOwner {
  if (flags.merchant) return { entityType: 'merchant', entityId: flags.merchant };
  if (flags.channel) return { entityType: 'channel', entityId: flags.channel };
  throw new ValidationError(
    'Missing --merchant or --channel.',
    [{ path: '--merchant', message: 'or --channel is required' }],
    'MISSING_FLAG',
    {
      hint: "Pass --merchant <id> for a merchant's limits or --channel <id> for a channel's.",
    },
  );
}
