import { formatMinor } from '../domain/money';
import { Flags } from '@oclif/core';
import { nullable } from './flags';
import { platformContext } from './context';
import { renderRecord } from './output';
import { statusMoveCommand } from './status-move';
import { ValidationError } from '../domain/errors';
import { changePartnerStatus, getPartner, type PartnerAssignment, type PartnerMove } from '../services/partners';

// The partners and partner-assignments commands' pieces. The terminal acts with the platform's authority.

export const commissionFlags = {
  'commission-rate': Flags.integer({ description: 'Commission rate in millionths of the volume (10000 = 1%)' }),
  'fixed-amount': Flags.integer({ description: 'Fixed commission per transaction, in minor units (with --fixed-currency; "--fixed-amount -1" is refused)' }),
  'fixed-currency': Flags.string({ description: 'Currency of --fixed-amount' }),
  'no-fixed': Flags.boolean({ description: 'Remove the fixed commission', exclusive: ['fixed-amount', 'fixed-currency'] }),
  'effective-from': Flags.string({ description: 'Start (ISO 8601 date-time; default now)' }),
  'effective-to': Flags.string({ description: 'End (ISO 8601 date-time; "null" for open-ended)' }),
};

export const commissionFlagNames = {
  commissionRate: 'commission-rate', commissionFixed: 'fixed-amount', effectiveFrom: 'effective-from', effectiveTo: 'effective-to',
};

export function commissionInput(flags: {
  'commission-rate'?: number; 'fixed-amount'?: number; 'fixed-currency'?: string; 'no-fixed'?: boolean; 'effective-from'?: string; 'effective-to'?: string;
}): Record<string, unknown> {
  let commissionFixed: { currency: string | undefined; valueMinor: number } | null | undefined;
  if (flags['no-fixed']) commissionFixed = null;
  else if (flags['fixed-amount'] !== undefined || flags['fixed-currency'] !== undefined) {
    if (flags['fixed-amount'] === undefined) throw ValidationError.field('--fixed-amount', 'is required with --fixed-currency');
    commissionFixed = { currency: flags['fixed-currency'], valueMinor: flags['fixed-amount'] };
  }
  return {
    commissionRate: flags['commission-rate'], commissionFixed, effectiveFrom: flags['effective-from'], effectiveTo: nullable(flags['effective-to']),
  };
}

export function renderAssignment(a: PartnerAssignment): string {
  return renderRecord({
    id: a.id, partner: a.partnerId, merchant: a.merchantId, commissionRate: `${a.commissionRate} (${a.commissionRate / 10000}%)`,
    commissionFixed: a.commissionFixed ? formatMinor(a.commissionFixed) : null, status: a.status,
    effectiveFrom: a.effectiveFrom, effectiveTo: a.effectiveTo,
  });
}

const SUMMARY: Record<PartnerMove, string> = {
  activate: 'Activate a suspended or disabled partner.',
  suspend: 'Suspend an active partner.',
  disable: 'Disable a partner.',
};

/** The command class of one partner status move (activate, suspend, disable). */
export function partnerStatusCommand(move: PartnerMove) {
  return statusMoveCommand({
    topic: 'partners', noun: 'partner', kind: 'partner', move, summary: SUMMARY[move],
    get: (rt, id) => getPartner(platformContext(rt), id),
    apply: (rt, id) => changePartnerStatus(platformContext(rt), id, move),
  });
}
