import { formatMinor, type Money } from '../domain/money';
import { Flags } from '@oclif/core';
import { nullable } from './flags';
import { amountFlagPair, minorOf } from './amounts';
import { renderRecord } from './output';
import { statusMoveCommand } from './status-move';
import { ValidationError } from '../domain/errors';
import { changePartnerStatus, getPartner, type PartnerAssignment } from '../services/partners';
import type { AccountMove } from '../services/status';

// The partners and partner-assignments commands' pieces. The terminal acts with the platform's authority.

export const commissionFlags = {
  'commission-rate': Flags.integer({ description: 'Commission rate in millionths of the volume (10000 = 1%)' }),
  ...amountFlagPair('fixed-amount', 'Fixed commission per transaction', '--fixed-currency'),
  'fixed-currency': Flags.string({ description: 'Currency of --fixed-amount (or --fixed-amount-minor)' }),
  'no-fixed': Flags.boolean({
    description: 'Remove the fixed commission',
    exclusive: ['fixed-amount', 'fixed-amount-minor', 'fixed-currency'],
  }),
  'effective-from': Flags.string({ description: 'Start (ISO 8601 date-time; default now)' }),
  'effective-to': Flags.string({ description: 'End (ISO 8601 date-time; "null" for open-ended)' }),
};

export const commissionFlagNames = {
  commissionRate: 'commission-rate',
  commissionFixed: 'fixed-amount',
  effectiveFrom: 'effective-from',
  effectiveTo: 'effective-to',
};

export function commissionInput(flags: {
  'commission-rate'?: number;
  'fixed-amount'?: string;
  'fixed-amount-minor'?: number;
  'fixed-currency'?: string;
  'no-fixed'?: boolean;
  'effective-from'?: string;
  'effective-to'?: string;
}): Record<string, unknown> {
  let commissionFixed: Money | null | undefined;
  const currency = flags['fixed-currency'];
  if (flags['no-fixed']) commissionFixed = null;
  else if (flags['fixed-amount'] !== undefined || flags['fixed-amount-minor'] !== undefined || currency !== undefined) {
    const valueMinor = minorOf(flags, 'fixed-amount', { currency, currencyFlag: '--fixed-currency', zero: true });
    if (valueMinor === undefined) throw ValidationError.field('--fixed-amount', 'is required with --fixed-currency');
    if (currency === undefined) throw ValidationError.field('--fixed-currency', 'is required with --fixed-amount-minor');
    commissionFixed = { currency, valueMinor };
  }
  return {
    commissionRate: flags['commission-rate'],
    commissionFixed,
    effectiveFrom: flags['effective-from'],
    effectiveTo: nullable(flags['effective-to']),
  };
}

export function renderAssignment(a: PartnerAssignment): string {
  return renderRecord({
    id: a.id,
    partner: a.partnerId,
    merchant: a.merchantId,
    commissionRate: `${a.commissionRate} (${a.commissionRate / 10000}%)`,
    commissionFixed: a.commissionFixed ? formatMinor(a.commissionFixed) : null,
    status: a.status,
    effectiveFrom: a.effectiveFrom,
    effectiveTo: a.effectiveTo,
  });
}

const SUMMARY: Record<AccountMove, string> = {
  activate: 'Activate a suspended or disabled partner.',
  suspend: 'Suspend an active partner.',
  disable: 'Disable a partner.',
};

/** The command class of one partner status move (activate, suspend, disable). */
export function partnerStatusCommand(move: AccountMove) {
  return statusMoveCommand({
    topic: 'partners',
    noun: 'partner',
    kind: 'partner',
    placedBy: 'platform',
    move,
    summary: SUMMARY[move],
    get: getPartner,
    apply: (ctx, id) => changePartnerStatus(ctx, id, move),
  });
}
