import { useApiHarness } from '../helpers/api';
import { expectLedgerInvariant } from '../helpers/ledger';
import { operatorContext } from '../../src/services/access/operators';
import { inTransaction, type CallerContext } from '../../src/domain/context';
import { computeFees, type ApplicableSchedule, type FeeBreakdown } from '../../src/services/fees/engine';
import { balancesOf } from '../../src/services/ledger/balances';
import { post } from '../../src/services/ledger/post';
import { postCapture } from '../../src/services/ledger/postings/capture';
import { postDispute, type DisputePosting } from '../../src/services/ledger/postings/dispute';
import { postPayout, type PayoutPosting } from '../../src/services/ledger/postings/payout';
import { postRefund } from '../../src/services/ledger/postings/refund';
import { releaseDue } from '../../src/services/ledger/releases';
import type { FeeRule, RoundingMode } from '../../src/db/models/fees';
import { newId } from '../../src/util/ids';
import { isBeyond } from '../../src/services/ledger/thresholds';
import { createMerchantRecord } from '../../src/services/organization/records';
import { mulberry32 } from '../../src/util/random';
import { finalizeDue } from '../../src/services/settlements/statements';
import { expectSettlementIdentities } from '../helpers/settlements';

/**
 * A randomized run of 1,000 mixed operations (captures with random fee schedules and reserves, immediate funds,
 * duplicate captures, partial and full refunds with and without refund fees, disputes opened with random dispute fees
 * (each notification delivered twice) and some won, payouts created and then paid, failed or canceled (each end
 * posted twice), adjustments, authorizations canceled
 * before capture, clock moves with the release job), under random balance thresholds. After every 100 operations and
 * at the end: the ledger invariant holds, every balance equals an independent model of what it must be, and each
 * threshold raised balance.threshold_reached once per crossing the model saw (a crossing re-arms only once the
 * balance is back on the other side; every operation moves each balance one way, so the model's balance after it is
 * the one the postings crossed with); at the end the settlement statements' identities hold over every merchant,
 * currency and day (some finalized during the run). Seeded: set
 * PAYPLANE_LEDGER_SEED to replay a run.
 */

jest.setTimeout(300_000);

const SEED = Number(process.env.PAYPLANE_LEDGER_SEED ?? 20260301);
const OPERATIONS = 1000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const random = mulberry32(SEED);
const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)];
const chance = (p: number) => random() < p;

let ctx: CallerContext;
const h = useApiHarness();
beforeAll(async () => {
  ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  for (let i = 0; i < 4; i++)
    merchants.push((await createMerchantRecord(ctx, { companyId: h.sandbox.companyId, name: `Property merchant ${i}` })).id);
});

type Field = 'pending' | 'available' | 'reserved' | 'payable';
const model = new Map<string, number>();
const key = (merchantId: string, currency: string, field: Field) => `${merchantId}|${currency}|${field}`;
const add = (merchantId: string, currency: string, field: Field, amount: number) =>
  model.set(key(merchantId, currency, field), (model.get(key(merchantId, currency, field)) ?? 0) + amount);

interface Release {
  merchantId: string;
  currency: string;
  from: Field;
  amount: number;
  at: number;
  done: boolean;
}
const releases: Release[] = [];
interface Captured {
  paymentId: string;
  merchantId: string;
  currency: string;
  refundable: number;
  breakdown: FeeBreakdown;
  immediate: boolean;
}
const captured: Captured[] = [];
const disputes: { posting: DisputePosting; payment: Captured; decided: boolean }[] = [];
const payouts: { posting: PayoutPosting; total: number; ended: boolean }[] = [];

/** four merchants of the sandbox company (made in beforeAll: a threshold names a real merchant) */
const merchants: string[] = [];
const currencies = ['EUR', 'USD', 'JPY'] as const;
const providers = [newId(), newId()];
const partners = [newId(), null];

function randomRule(currency: string, transactionType: FeeRule['transactionType']): FeeRule {
  const method = pick(['fixed', 'percentage', 'fixed_plus_percentage'] as const);
  const fixed = method === 'percentage' ? null : { currency, valueMinor: int(0, 500) };
  const rate = method === 'fixed' ? null : int(0, 60_000);
  return {
    transactionType,
    transactionOutcome: 'any',
    method,
    party: pick(['provider', 'tenant', 'platform', 'partner'] as const),
    currency,
    fixedAmount: fixed,
    percentageRate: rate,
    minAmount: chance(0.2) ? { currency, valueMinor: int(0, 100) } : null,
    maxAmount: chance(0.2) ? { currency, valueMinor: int(100, 5000) } : null,
  };
}

function randomSchedule(currency: string, types?: FeeRule['transactionType'][]): ApplicableSchedule {
  const rules = Array.from({ length: int(0, 5) }, () => randomRule(currency, types ? pick(types) : chance(0.7) ? 'payment' : 'refund'));
  return {
    level: pick(['tenant', 'merchant', 'platform'] as const),
    feeScheduleId: newId(),
    platformOwned: chance(0.5),
    reserveSpecified: true,
    rules,
    rollingReserve: {
      rate: chance(0.5) ? int(0, 200_000) : 0,
      holdDays: int(0, 10),
      autoRelease: chance(0.7),
      roundingMode: pick<RoundingMode>(['floor', 'ceil', 'half_up', 'half_even']),
    },
  };
}

interface ModelThreshold {
  id: string;
  merchantId: string;
  currency: string;
  balanceType: 'pending' | 'available';
  direction: 'above' | 'below';
  amountMinor: number;
  beyond: boolean;
  crossings: number;
}
const thresholds: ModelThreshold[] = [];

/** Random thresholds on the merchants' balances (written as the service writes them: beyond or not at the start). */
async function makeThresholds(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const t: ModelThreshold = {
      id: newId(),
      merchantId: pick(merchants),
      currency: pick(currencies),
      balanceType: pick(['pending', 'available'] as const),
      direction: pick(['above', 'below'] as const),
      amountMinor: int(-20_000, 400_000),
      beyond: false,
      crossings: 0,
    };
    t.beyond = isBeyond(t, 0);
    thresholds.push(t);
    await h.rt.db.models.BalanceThreshold.create({
      createdAt: h.clock.now(),
      updatedAt: h.clock.now(),
      id: t.id,
      tenantId: h.sandbox.tenantId,
      merchantId: t.merchantId,
      livemode: false,
      currency: t.currency,
      balanceType: t.balanceType,
      direction: t.direction,
      amountMinor: t.amountMinor,
      crossed: t.beyond,
      crossedAt: null,
      createdBy: 'ledger-property test',
    });
  }
}

/** After an operation: each threshold the model's balance went beyond (from not beyond) is one crossing. */
function modelCrossings(): void {
  for (const t of thresholds) {
    const beyond = isBeyond(t, model.get(key(t.merchantId, t.currency, t.balanceType)) ?? 0);
    if (beyond && !t.beyond) t.crossings++;
    t.beyond = beyond;
  }
}

async function checkThresholdEvents(): Promise<void> {
  const events = await h.rt.db.models.Event.findAll({ where: { tenantId: h.sandbox.tenantId, type: 'balance.threshold_reached' } });
  const raised = new Map<string, number>();
  for (const e of events) {
    const id = (e.get('data') as { threshold: { id: string } }).threshold.id;
    raised.set(id, (raised.get(id) ?? 0) + 1);
  }
  expect(thresholds.filter((t) => (raised.get(t.id) ?? 0) !== t.crossings).map((t) => ({ ...t, raised: raised.get(t.id) ?? 0 }))).toEqual(
    [],
  );
}

async function checkModel(): Promise<void> {
  await expectLedgerInvariant(h.rt);
  // the crossings of the operation just made (counting twice is harmless: a crossing needs the balance to move)
  modelCrossings();
  await checkThresholdEvents();
  const actual = new Map<string, number>();
  for (const b of await balancesOf(ctx)) {
    for (const field of ['pending', 'available', 'reserved', 'payable'] as const)
      actual.set(key(b.merchantId, b.currency, field), b[field].valueMinor);
  }
  const keys = new Set([...model.keys(), ...actual.keys()]);
  const diff = [...keys]
    .filter((k) => (model.get(k) ?? 0) !== (actual.get(k) ?? 0))
    .map((k) => `${k}: model ${model.get(k) ?? 0}, ledger ${actual.get(k) ?? 0}`);
  expect(diff).toEqual([]);
}

test(`the ledger invariant and the balances hold over ${OPERATIONS} random operations (seed ${SEED})`, async () => {
  const counts: Record<string, number> = {};
  await makeThresholds(16);
  for (let i = 0; i < OPERATIONS; i++) {
    if (i > 0) modelCrossings();
    const roll = random();
    const op =
      roll < 0.4
        ? 'capture'
        : roll < 0.62
          ? 'refund'
          : roll < 0.72
            ? 'release'
            : roll < 0.8
              ? 'adjustment'
              : roll < 0.84
                ? 'cancel'
                : roll < 0.88
                  ? 'dispute'
                  : roll < 0.92
                    ? 'payout'
                    : roll < 0.96
                      ? 'payout-end'
                      : 'duplicate';
    counts[op] = (counts[op] ?? 0) + 1;
    if (op === 'capture') {
      const merchantId = pick(merchants);
      const currency = pick(currencies);
      const amount = chance(0.1) ? int(0, 300) : int(1, 500_000);
      const breakdown = computeFees(
        { type: 'payment', outcome: 'successful', amount: { currency, valueMinor: amount }, method: 'card', merchantId, at: h.clock.now() },
        [randomSchedule(currency)],
      );
      const immediate = chance(0.15);
      const paymentId = newId();
      await inTransaction(ctx, (t) =>
        postCapture(t, {
          tenantId: h.sandbox.tenantId,
          livemode: false,
          merchantId,
          paymentId,
          providerIntegrationId: pick(providers),
          partnerId: pick(partners),
          breakdown,
          availableImmediately: immediate,
        }),
      );
      if (amount > 0) {
        const toMerchant = breakdown.net - breakdown.reserve;
        add(merchantId, currency, immediate ? 'available' : 'pending', toMerchant);
        add(merchantId, currency, 'reserved', breakdown.reserve);
        const now = h.clock.now().getTime();
        if (!immediate && toMerchant !== 0)
          releases.push({ merchantId, currency, from: 'pending', amount: toMerchant, at: now + 48 * HOUR, done: false });
        if (breakdown.reserve > 0 && breakdown.reserveFrom?.autoRelease) {
          releases.push({
            merchantId,
            currency,
            from: 'reserved',
            amount: breakdown.reserve,
            at: now + breakdown.reserveFrom.holdDays * DAY,
            done: false,
          });
        }
        captured.push({ paymentId, merchantId, currency, refundable: amount, breakdown, immediate });
      }
    } else if (op === 'refund') {
      const open = captured.filter((c) => c.refundable > 0);
      if (open.length === 0) continue;
      const payment = pick(open);
      const amount = chance(0.4) ? payment.refundable : int(1, payment.refundable);
      const fee = chance(0.5)
        ? computeFees(
            {
              type: 'refund',
              outcome: 'successful',
              amount: { currency: payment.currency, valueMinor: amount },
              method: 'card',
              merchantId: payment.merchantId,
              at: h.clock.now(),
            },
            [randomSchedule(payment.currency)],
          )
        : null;
      await inTransaction(ctx, (t) =>
        postRefund(t, {
          tenantId: h.sandbox.tenantId,
          livemode: false,
          merchantId: payment.merchantId,
          paymentId: payment.paymentId,
          refundId: newId(),
          providerIntegrationId: pick(providers),
          partnerId: pick(partners),
          amount: { currency: payment.currency, valueMinor: amount },
          fee,
        }),
      );
      payment.refundable -= amount;
      add(payment.merchantId, payment.currency, 'available', -(amount + (fee?.merchantFee ?? 0)));
    } else if (op === 'release') {
      h.clock.advance(int(0, 80) * HOUR);
      const now = h.clock.now().getTime();
      let due = 0;
      for (const r of releases) {
        if (!r.done && r.at <= now) {
          r.done = true;
          due++;
          add(r.merchantId, r.currency, r.from, -r.amount);
          add(r.merchantId, r.currency, 'available', r.amount);
        }
      }
      expect(await releaseDue(h.rt)).toBe(due);
    } else if (op === 'adjustment') {
      const merchantId = pick(merchants);
      const currency = pick(currencies);
      const amount = int(-10_000, 10_000);
      const field = pick(['available', 'payable'] as const);
      await post(ctx, {
        tenantId: h.sandbox.tenantId,
        livemode: false,
        sourceType: 'adjustment',
        sourceId: newId(),
        lines: [
          {
            account: field === 'available' ? 'merchant_available' : 'merchant_payable',
            ownerId: merchantId,
            currency,
            amountMinor: amount,
          },
          { account: 'tenant_revenue', ownerId: h.sandbox.tenantId, currency, amountMinor: -amount },
        ],
      });
      add(merchantId, currency, field, amount);
    } else if (op === 'dispute') {
      // the acquirer takes a captured payment's amount back, with a random dispute fee; a dispute open from before may be won
      const open = disputes.filter((d) => !d.decided);
      if (open.length > 0 && chance(0.5)) {
        const d = pick(open);
        d.decided = true;
        if (chance(0.5)) {
          await inTransaction(ctx, (t) => postDispute(t, 'won', { ...d.posting, fee: null }));
          add(d.posting.merchantId, d.posting.amount.currency, 'available', d.posting.amount.valueMinor);
          d.payment.refundable += d.posting.amount.valueMinor;
        }
        continue;
      }
      const candidates = captured.filter((c) => c.refundable > 0);
      if (candidates.length === 0) continue;
      const payment = pick(candidates);
      const amount = chance(0.5) ? payment.refundable : int(1, payment.refundable);
      const fee = computeFees(
        {
          type: 'dispute',
          outcome: 'successful',
          amount: { currency: payment.currency, valueMinor: amount },
          method: 'card',
          merchantId: payment.merchantId,
          at: h.clock.now(),
        },
        [randomSchedule(payment.currency, ['dispute'])],
      );
      const posting = {
        tenantId: h.sandbox.tenantId,
        livemode: false,
        merchantId: payment.merchantId,
        paymentId: payment.paymentId,
        disputeId: newId(),
        providerIntegrationId: pick(providers),
        partnerId: pick(partners),
        amount: { currency: payment.currency, valueMinor: amount },
        fee,
      };
      await inTransaction(ctx, (t) => postDispute(t, 'open', posting));
      // a redelivered notification books nothing the second time
      await inTransaction(ctx, (t) => postDispute(t, 'open', posting));
      payment.refundable -= amount;
      add(payment.merchantId, payment.currency, 'available', -(amount + fee.merchantFee));
      disputes.push({ posting, payment, decided: false });
    } else if (op === 'payout') {
      // a payout of part of a positive available balance (available to payable, with a random payout fee)
      const funded = [...model.entries()].filter(([k, v]) => k.endsWith('|available') && v > 1);
      if (funded.length === 0) continue;
      const [k, available] = pick(funded);
      const [merchantId, currency] = k.split('|');
      const total = int(1, available);
      const fee = computeFees(
        { type: 'payout', outcome: 'successful', amount: { currency, valueMinor: total }, method: 'card', merchantId, at: h.clock.now() },
        [randomSchedule(currency, ['payout'])],
      );
      if (fee.merchantFee >= total) continue;
      const posting = {
        tenantId: h.sandbox.tenantId,
        livemode: false,
        merchantId,
        payoutId: newId(),
        amount: { currency, valueMinor: total - fee.merchantFee },
        fee,
        channelId: newId(),
        providerIntegrationId: pick([...providers, null]),
        partnerId: pick(partners),
      };
      await inTransaction(ctx, (t) => postPayout(t, 'payout', posting));
      add(merchantId, currency, 'available', -total);
      add(merchantId, currency, 'payable', total);
      payouts.push({ posting, total, ended: false });
    } else if (op === 'payout-end') {
      // a pending payout is paid (payable out, fees to their owners) or fails or is canceled (back to available)
      const pending = payouts.filter((p) => !p.ended);
      if (pending.length === 0) continue;
      const p = pick(pending);
      p.ended = true;
      const paid = chance(0.6);
      await inTransaction(ctx, (t) => postPayout(t, paid ? 'payout_paid' : 'payout_reversal', p.posting));
      await inTransaction(ctx, (t) => postPayout(t, paid ? 'payout_paid' : 'payout_reversal', p.posting));
      add(p.posting.merchantId, p.posting.amount.currency, 'payable', -p.total);
      if (!paid) add(p.posting.merchantId, p.posting.amount.currency, 'available', p.total);
    } else if (op === 'cancel') {
      // an authorization canceled before capture books nothing: the ledger must not move
      h.clock.advance(int(0, 60) * 1000);
    } else {
      // a redelivered capture (same payment) books nothing the second time
      if (captured.length === 0) continue;
      const payment = pick(captured);
      await inTransaction(ctx, (t) =>
        postCapture(t, {
          tenantId: h.sandbox.tenantId,
          livemode: false,
          merchantId: payment.merchantId,
          paymentId: payment.paymentId,
          providerIntegrationId: providers[0],
          partnerId: null,
          breakdown: payment.breakdown,
          availableImmediately: payment.immediate,
        }),
      );
    }
    if ((i + 1) % 100 === 0) await checkModel();
    // settlement statements of past days are finalized as the run goes (their figures then stored, not computed)
    if ((i + 1) % 250 === 0) await finalizeDue(h.rt);
  }
  // everything still scheduled eventually lands in available (reserves without autoRelease stay held)
  h.clock.advance(30 * DAY);
  let due = 0;
  for (const r of releases) {
    if (!r.done) {
      r.done = true;
      due++;
      add(r.merchantId, r.currency, r.from, -r.amount);
      add(r.merchantId, r.currency, 'available', r.amount);
    }
  }
  expect(await releaseDue(h.rt)).toBe(due);
  modelCrossings();
  await checkModel();
  // the thresholds were crossed, some more than once
  expect(thresholds.reduce((n, t) => n + t.crossings, 0)).toBeGreaterThan(thresholds.length / 2);
  expect(thresholds.some((t) => t.crossings > 1)).toBe(true);
  const summary = await expectLedgerInvariant(h.rt);
  // settlement statements (issue 23): the identities over every merchant, currency and day, open and finalized
  expect(await expectSettlementIdentities(ctx)).toBeGreaterThan(10);
  await finalizeDue(h.rt);
  expect(await expectSettlementIdentities(ctx)).toBeGreaterThan(10);
  expect(summary.postings).toBeGreaterThan(OPERATIONS / 2);
  expect(counts.capture).toBeGreaterThan(300);
  expect(counts.refund).toBeGreaterThan(150);
  expect(disputes.length).toBeGreaterThan(10);
  expect(disputes.filter((d) => d.decided).length).toBeGreaterThan(3);
  expect(payouts.filter((p) => p.ended).length).toBeGreaterThan(10);
});
