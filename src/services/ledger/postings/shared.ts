import type { CallerContext } from '../../../domain/context';
import { elevate } from '../../../domain/authority';
import { InternalError } from '../../../domain/errors';
import { scoped } from '../../../db/scoped';
import type { LedgerAccount, LedgerSourceType } from '../../../db/models/ledger';
import type { Money } from '../../../domain/money';
import type { FeeBreakdown } from '../../fees/engine';
import { PLATFORM_ID } from '../../tenants/platform';
import { emitEvent } from '../../webhooks/events';
import { ledgerWriter, type PostingLine } from '../post';
import { balancesOf } from '../balances';

// What the postings of movements share: posting once per source, a fee breakdown's lines, money held and paid out,
// balance.negative.

/** Whether a source (a payment's capture, a refund) was already booked: postCapture and postRefund post once. */
export async function alreadyPosted(
  ctx: CallerContext,
  livemode: boolean,
  sourceType: LedgerSourceType,
  sourceId: string,
): Promise<boolean> {
  const found = await scoped(ledgerWriter(ctx, livemode), ctx.db.models.LedgerEntry).findOne({ sourceType, sourceId });
  return found !== null;
}

/** What a payout or a withdrawal takes from a merchant, and the channel it leaves through when paid. */
export interface MoneyOut {
  tenantId: string;
  merchantId: string;
  amount: Money;
  fee: FeeBreakdown | null;
  /** paid: the channel the money left through; its provider integration earns the provider's share (else the channel) */
  channelId?: string;
  providerIntegrationId?: string | null;
  partnerId?: string | null;
}

/** Money held (sign 1: available -> payable) or given back (sign -1: payable -> available), `total` with its fee. */
export function heldLines(p: MoneyOut, total: number, sign: 1 | -1, description: string): PostingLine[] {
  const { currency } = p.amount;
  return [
    { account: 'merchant_available', ownerId: p.merchantId, currency, amountMinor: -sign * total, description },
    { account: 'merchant_payable', ownerId: p.merchantId, currency, amountMinor: sign * total, description },
  ];
}

/**
 * Held money paid out: payable -total, the channel's payout_clearing +amount, each fee to its owner's revenue account
 * (without a provider integration, paid out by hand, the provider's share leaves with the payout, to the bank).
 */
export function paidOutLines(p: MoneyOut, total: number, what: string, description: string, noChannel: string): PostingLine[] {
  if (!p.channelId) throw new InternalError(noChannel, 'LEDGER_POSTING_INVALID');
  const { currency } = p.amount;
  const owners = {
    tenantId: p.tenantId,
    providerIntegrationId: p.providerIntegrationId ?? p.channelId,
    partnerId: p.partnerId ?? null,
    provider: p.providerIntegrationId ? undefined : { account: 'payout_clearing' as const, ownerId: p.channelId },
  };
  return [
    { account: 'merchant_payable', ownerId: p.merchantId, currency, amountMinor: -total, description },
    { account: 'payout_clearing', ownerId: p.channelId, currency, amountMinor: p.amount.valueMinor, description },
    ...(p.fee ? feeLines(p.fee, owners, what) : []),
  ];
}

/** The lines booking each fee of a breakdown to its owner (partner commission without a partner goes to the tenant). */
export function feeLines(
  fee: Pick<FeeBreakdown, 'currency' | 'providerFee' | 'tenantFee' | 'platformFee' | 'partnerCommission'>,
  /** the provider's share goes to `provider` (default: provider_fees of the provider integration) */
  owners: {
    tenantId: string;
    providerIntegrationId: string;
    partnerId: string | null;
    provider?: { account: LedgerAccount; ownerId: string };
  },
  what: string,
): PostingLine[] {
  const currency = fee.currency;
  const provider = owners.provider ?? { account: 'provider_fees', ownerId: owners.providerIntegrationId };
  return [
    { ...provider, currency, amountMinor: fee.providerFee, description: `provider fee of ${what}` },
    { account: 'tenant_revenue', ownerId: owners.tenantId, currency, amountMinor: fee.tenantFee, description: `tenant fee of ${what}` },
    { account: 'platform_revenue', ownerId: PLATFORM_ID, currency, amountMinor: fee.platformFee, description: `platform fee of ${what}` },
    owners.partnerId
      ? {
          account: 'partner_revenue',
          ownerId: owners.partnerId,
          currency,
          amountMinor: fee.partnerCommission,
          description: `partner commission of ${what}`,
        }
      : {
          account: 'tenant_revenue',
          ownerId: owners.tenantId,
          currency,
          amountMinor: fee.partnerCommission,
          description: `partner commission of ${what} (no partner)`,
        },
  ];
}

export function assertBreakdown(b: FeeBreakdown): void {
  const parts = b.providerFee + b.tenantFee + b.platformFee + b.partnerCommission;
  if (parts !== b.merchantFee || b.amount - b.merchantFee !== b.net || b.reserve < 0) {
    throw new InternalError('inconsistent fee breakdown handed to the ledger', 'LEDGER_POSTING_INVALID');
  }
}

/** A fee charged on a movement (refund, dispute, withdrawal, payout): a consistent breakdown in the movement's currency. */
export function assertFeeOf(fee: FeeBreakdown | null, currency: string, what: string): void {
  if (!fee) return;
  assertBreakdown(fee);
  if (fee.currency !== currency) throw new InternalError(`${what} fee in another currency than the ${what}`, 'LEDGER_POSTING_INVALID');
}

/**
 * After a posting that debits a merchant's available balance: `balance.negative` (a tenant-level event) when the
 * balance is left below zero, with what debited it.
 */
export async function raiseIfNegative(
  ctx: CallerContext,
  p: { tenantId: string; livemode: boolean; merchantId: string },
  currency: string,
  source: Record<string, unknown>,
): Promise<void> {
  const w = ledgerWriter(ctx, p.livemode);
  const [balance] = await balancesOf(elevate(w, 'tenant', 'the debited merchant balance', { tenantId: p.tenantId }), {
    merchantId: p.merchantId,
    currency,
  });
  if (!balance || balance.available.valueMinor >= 0) return;
  await emitEvent(w, {
    type: 'balance.negative',
    tenantId: p.tenantId,
    merchantId: p.merchantId,
    livemode: p.livemode,
    data: { object: 'balance', merchantId: p.merchantId, currency, available: balance.available, pending: balance.pending, ...source },
  });
}
