import { Flags } from '@oclif/core';
import { sharedFlags } from './flags';
import { renderRecord, renderTable, type TableOptions, statusColour } from './output';
import { validateWith } from './validate';
import { ValidationError } from '../domain/errors';
import { CreateLimitBody } from '../api/limits/schemas';
import type { Page } from '../db/scoped';
import { checkLimitInput, type Limit, type LimitOwner } from '../services/limits/manage';

// The limits of merchants, channels and terminals: their flags, input and tables.

export const limitFlags = {
  'period-value': Flags.integer({ description: 'Length of the period in units (default 1)', default: 1 }),
  'period-unit': Flags.string({ description: 'Unit of the period', options: ['minute', 'hour', 'day', 'week', 'month'] }),
  metric: Flags.string({ description: 'volume (sum of amounts, in minor units of --currency) or count', options: ['volume', 'count'] }),
  threshold: Flags.integer({ description: 'Cap per period: minor units for volume, transactions for count' }),
  currency: Flags.string({ description: 'ISO 4217 currency (required for volume)' }),
  'payment-method': Flags.string({ description: 'Only this payment method, e.g. card' }),
  brand: Flags.string({ description: 'Only this card brand, e.g. visa' }),
  'transaction-type': Flags.string({ description: 'Transaction type counted (default payment)', options: ['payment', 'refund', 'payout', 'withdrawal'] }),
};

export interface LimitFlagValues {
  'period-value': number;
  'period-unit'?: string;
  metric?: string;
  threshold?: number;
  currency?: string;
  'payment-method'?: string;
  brand?: string;
  'transaction-type'?: string;
}

export type Ask = (value: string | undefined, flag: string, question: string) => Promise<string>;

/** The limit body from the flags, validated with the API's schema; `ask` prompts for a missing required flag. */
export async function limitInput(ask: Ask, flags: LimitFlagValues) {
  const unit = await ask(flags['period-unit'], 'period-unit', 'Period unit (minute, hour, day, week, month)');
  const metric = await ask(flags.metric, 'metric', 'Metric (volume or count)');
  const threshold = flags.threshold ?? Number(await ask(undefined, 'threshold', 'Threshold'));
  let input;
  try {
    input = validateWith(
      CreateLimitBody,
      {
        period: { value: flags['period-value'], unit }, metric, threshold, currency: flags.currency, paymentMethod: flags['payment-method'],
        brand: flags.brand, transactionType: flags['transaction-type'],
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

export function renderLimits(page: Page<Limit>, options: TableOptions = {}): string {
  return renderTable(page.data, [
    { header: 'ID', get: (l) => l.id },
    { header: 'Owner', get: (l) => `${l.entityType} ${l.entityId}` },
    { header: 'Period', get: (l) => `${l.period.value} ${l.period.unit}` },
    { header: 'Metric', get: (l) => l.metric },
    { header: 'Threshold', get: (l) => (l.metric === 'volume' ? `${l.threshold} ${l.currency}` : String(l.threshold)) },
    { header: 'Narrowed to', get: (l) => [l.currency && l.metric !== 'volume' ? l.currency : null, l.paymentMethod, l.brand, l.transactionType].filter(Boolean).join(' ') },
    { header: 'Status', get: (l) => statusColour(l.status) },
  ], options);
}

export function renderLimit(limit: Limit): string {
  return renderRecord({
    id: limit.id, owner: `${limit.entityType} ${limit.entityId}`, period: `${limit.period.value} ${limit.period.unit}`, metric: limit.metric,
    threshold: limit.threshold, currency: limit.currency, paymentMethod: limit.paymentMethod, brand: limit.brand,
    transactionType: limit.transactionType, status: limit.status,
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
  throw new ValidationError('Missing --merchant or --channel.', [{ path: '--merchant', message: 'or --channel is required' }], 'MISSING_FLAG', {
    hint: 'Pass --merchant <id> for a merchant\'s limits or --channel <id> for a channel\'s.',
  });
}
