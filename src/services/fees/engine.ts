import type { FeeLevel, FeeParty, FeeRule, RollingReserve, RoundingMode } from '../../db/models/fees';
import type { Money } from '../../domain/money';

/**
 * The fee engine: pure and deterministic, integer minor units only (BigInt inside, never a float).
 *
 * Semantics (documented in the API descriptions too):
 * - A rule applies when its transactionType equals the transaction's type, its transactionOutcome is the
 *   transaction's outcome or `any`, and its currency is the transaction's currency.
 * - A rule's fee: `fixed` = fixedAmount; `percentage` = amount * percentageRate / 1,000,000 rounded with the
 *   schedule's rounding mode; `fixed_plus_percentage` = both. Then clamped to [minAmount, maxAmount] when set.
 * - Each rule names the party that earns it (provider, tenant, platform, partner; default tenant).
 * - Levels, most specific first: terminal > merchant > channel > partner > tenant > platform. For each party, its
 *   fee comes from the most specific level whose schedule has at least one applicable rule for that party;
 *   all applicable rules of that party in that schedule add up. So a merchant-level schedule with only tenant
 *   rules overrides the tenant's tenant fee but leaves the platform fee of the platform-level schedule alone.
 * - merchantFee (charged to the merchant) = providerFee + tenantFee + platformFee + partnerCommission;
 *   net = amount - merchantFee (may be negative when fees exceed a small amount: fee + net = amount always).
 * - The rounding mode is the schedule's (rollingReserve.roundingMode): floor, ceil, half_up (ties away from
 *   zero) or half_even (ties to the even neighbour, banker's rounding).
 * - Rolling reserve: held from the net of successful payments only, with the rollingReserve of the most
 *   specific applicable schedule whose rate is above 0: reserve = max(net, 0) * rate / 1,000,000 rounded with
 *   that schedule's rounding mode.
 */

export const LEVEL_PRECEDENCE: readonly FeeLevel[] = ['terminal', 'merchant', 'channel', 'partner', 'tenant', 'platform'];
export const PARTIES: readonly FeeParty[] = ['provider', 'tenant', 'platform', 'partner'];
const MILLION = 1_000_000n;

export interface FeeTransaction {
  type: FeeRule['transactionType'];
  outcome: 'successful' | 'failed';
  amount: Money;
  method: string;
  merchantId: string;
  terminalId?: string | null;
  channelId?: string | null;
  partnerId?: string | null;
  at: Date;
}

/** A schedule as the engine needs it, with the level it was assigned at. */
export interface ApplicableSchedule {
  level: FeeLevel;
  feeScheduleId: string;
  assignmentId?: string;
  rules: FeeRule[];
  rollingReserve: RollingReserve;
  /** the schedule belongs to the platform (tenantId null); only such schedules can set the platform's fee */
  platformOwned?: boolean;
  /** the schedule states its reserve rate (0 waives); otherwise its level inherits the reserve */
  reserveSpecified?: boolean;
}

export interface FeeLine {
  party: FeeParty;
  level: FeeLevel;
  feeScheduleId: string;
  assignmentId: string | null;
  ruleIndex: number;
  method: FeeRule['method'];
  amount: number;
}

export interface FeeBreakdown {
  currency: string;
  amount: number;
  providerFee: number;
  tenantFee: number;
  platformFee: number;
  partnerCommission: number;
  merchantFee: number;
  net: number;
  reserve: number;
  /** the rules that produced the fees */
  lines: FeeLine[];
  /** the schedule whose rolling reserve applied, if any */
  reserveFrom: { level: FeeLevel; feeScheduleId: string; rate: number; holdDays: number; autoRelease: boolean } | null;
}

/** numerator / denominator (both non-negative BigInts, denominator > 0) rounded with the mode. */
export function divRound(numerator: bigint, denominator: bigint, mode: RoundingMode): bigint {
  if (numerator < 0n || denominator <= 0n) throw new RangeError('divRound takes a non-negative numerator and a positive denominator');
  const q = numerator / denominator;
  const r = numerator % denominator;
  if (r === 0n) return q;
  switch (mode) {
    case 'floor':
      return q;
    case 'ceil':
      return q + 1n;
    case 'half_up':
      return 2n * r >= denominator ? q + 1n : q;
    case 'half_even': {
      const twice = 2n * r;
      if (twice > denominator) return q + 1n;
      if (twice < denominator) return q;
      return q % 2n === 0n ? q : q + 1n;
    }
  }
}

/** amount * rate / 1,000,000 with the rounding mode, in integers. */
export function percentageOf(amountMinor: bigint, rateMillionths: number, mode: RoundingMode): bigint {
  return divRound(amountMinor * BigInt(rateMillionths), MILLION, mode);
}

export function ruleApplies(rule: FeeRule, tx: FeeTransaction): boolean {
  return (
    rule.transactionType === tx.type &&
    (rule.transactionOutcome === 'any' || rule.transactionOutcome === tx.outcome) &&
    rule.currency === tx.amount.currency
  );
}

/** The fee of one rule on an amount: fixed and/or percentage, then min and max clamps. */
export function ruleFee(rule: FeeRule, amountMinor: bigint, mode: RoundingMode): bigint {
  let fee = 0n;
  if ((rule.method === 'fixed' || rule.method === 'fixed_plus_percentage') && rule.fixedAmount) fee += BigInt(rule.fixedAmount.valueMinor);
  if ((rule.method === 'percentage' || rule.method === 'fixed_plus_percentage') && rule.percentageRate)
    fee += percentageOf(amountMinor, rule.percentageRate, mode);
  if (rule.minAmount && fee < BigInt(rule.minAmount.valueMinor)) fee = BigInt(rule.minAmount.valueMinor);
  if (rule.maxAmount && fee > BigInt(rule.maxAmount.valueMinor)) fee = BigInt(rule.maxAmount.valueMinor);
  return fee;
}

function toSafe(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER))
    throw new RangeError('fee amount outside the safe integer range');
  return Number(value);
}

function rank(level: FeeLevel): number {
  return LEVEL_PRECEDENCE.indexOf(level);
}

/** The breakdown of one transaction given the schedules applicable to it (any order: sorted here by level). */
export function computeFees(tx: FeeTransaction, schedules: ApplicableSchedule[]): FeeBreakdown {
  if (!Number.isSafeInteger(tx.amount.valueMinor) || tx.amount.valueMinor < 0)
    throw new RangeError('amount must be a non-negative integer in minor units');
  const amount = BigInt(tx.amount.valueMinor);
  const ordered = [...schedules].sort((a, b) => rank(a.level) - rank(b.level));
  const totals: Record<FeeParty, bigint> = { provider: 0n, tenant: 0n, platform: 0n, partner: 0n };
  const lines: FeeLine[] = [];
  for (const party of PARTIES) {
    for (const schedule of ordered) {
      // a tenant's schedule can never set (or waive) the platform's own fee
      if (party === 'platform' && !schedule.platformOwned) continue;
      const rules = schedule.rules
        .map((rule, index) => ({ rule, index }))
        .filter(({ rule }) => (rule.party ?? 'tenant') === party && ruleApplies(rule, tx));
      if (rules.length === 0) continue;
      for (const { rule, index } of rules) {
        const fee = ruleFee(rule, amount, schedule.rollingReserve.roundingMode);
        totals[party] += fee;
        lines.push({
          party,
          level: schedule.level,
          feeScheduleId: schedule.feeScheduleId,
          assignmentId: schedule.assignmentId ?? null,
          ruleIndex: index,
          method: rule.method,
          amount: toSafe(fee),
        });
      }
      break; // the most specific level with rules for this party wins
    }
  }
  const merchantFee = totals.provider + totals.tenant + totals.platform + totals.partner;
  const net = amount - merchantFee;
  let reserve = 0n;
  let reserveFrom: FeeBreakdown['reserveFrom'] = null;
  if (tx.type === 'payment' && tx.outcome === 'successful') {
    // the most specific schedule that states a reserve decides it (a stated 0 waives a less specific one)
    const source = ordered.find((s) => s.reserveSpecified ?? s.rollingReserve.rate > 0);
    if (source && source.rollingReserve.rate > 0) {
      const rr = source.rollingReserve;
      reserve = net > 0n ? percentageOf(net, rr.rate, rr.roundingMode) : 0n;
      reserveFrom = {
        level: source.level,
        feeScheduleId: source.feeScheduleId,
        rate: rr.rate,
        holdDays: rr.holdDays,
        autoRelease: rr.autoRelease,
      };
    }
  }
  return {
    currency: tx.amount.currency,
    amount: toSafe(amount),
    providerFee: toSafe(totals.provider),
    tenantFee: toSafe(totals.tenant),
    platformFee: toSafe(totals.platform),
    partnerCommission: toSafe(totals.partner),
    merchantFee: toSafe(merchantFee),
    net: toSafe(net),
    reserve: toSafe(reserve),
    lines,
    reserveFrom,
  };
}
