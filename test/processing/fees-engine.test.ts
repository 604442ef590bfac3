import { computeFees, divRound, type ApplicableSchedule, type FeeTransaction } from '../../src/services/fees/engine';
import type { FeeLevel, FeeRule, RollingReserve, RoundingMode } from '../../src/db/models/fees';
import { mulberry32 } from '../../src/util/random';
import { eur } from '../helpers/amounts';

// The fee engine is pure: no database here.

const AT = new Date('2026-03-01T12:00:00Z');

function rule(fields: Partial<FeeRule>): FeeRule {
  return {
    transactionType: 'payment',
    transactionOutcome: 'successful',
    method: 'percentage',
    party: 'tenant',
    currency: 'EUR',
    fixedAmount: null,
    percentageRate: null,
    minAmount: null,
    maxAmount: null,
    ...fields,
  };
}

function schedule(level: FeeLevel, rules: FeeRule[], reserve: Partial<RollingReserve> = {}): ApplicableSchedule {
  // as the resolver does: only platform-level schedules here belong to the platform
  return {
    level,
    feeScheduleId: `${level}-schedule`,
    rules,
    rollingReserve: { rate: 0, holdDays: 0, autoRelease: true, roundingMode: 'half_up', ...reserve },
    platformOwned: level === 'platform',
  };
}

function tx(valueMinor: number, fields: Partial<FeeTransaction> = {}): FeeTransaction {
  return { type: 'payment', outcome: 'successful', amount: eur(valueMinor), method: 'card', merchantId: 'm', at: AT, ...fields };
}

describe('rule methods', () => {
  test.each([
    ['fixed', rule({ method: 'fixed', fixedAmount: eur(25) }), 10_000, 25],
    ['percentage 1.5%', rule({ percentageRate: 15_000 }), 10_000, 150],
    ['percentage 0.01% of a small amount rounds', rule({ percentageRate: 100 }), 4_999, 0],
    ['fixed + percentage', rule({ method: 'fixed_plus_percentage', fixedAmount: eur(30), percentageRate: 29_000 }), 10_000, 320],
    ['percentage 100%', rule({ percentageRate: 1_000_000 }), 1_234, 1_234],
    ['zero amount, fixed still charged', rule({ method: 'fixed', fixedAmount: eur(10) }), 0, 10],
  ])('%s', (_name, r, amount, fee) => {
    const b = computeFees(tx(amount), [schedule('tenant', [r])]);
    expect(b.tenantFee).toBe(fee);
    expect(b.merchantFee).toBe(fee);
    expect(b.net).toBe(amount - fee);
  });

  test('rules apply by transaction type, outcome (or any) and currency only', () => {
    const rules = [
      rule({ method: 'fixed', fixedAmount: eur(1) }),
      rule({ method: 'fixed', fixedAmount: eur(10), transactionOutcome: 'failed' }),
      rule({ method: 'fixed', fixedAmount: eur(100), transactionOutcome: 'any' }),
      rule({ method: 'fixed', fixedAmount: eur(1000), transactionType: 'refund' }),
      rule({ method: 'fixed', fixedAmount: { currency: 'USD', valueMinor: 10_000 }, currency: 'USD' }),
    ];
    expect(computeFees(tx(5000), [schedule('tenant', rules)]).tenantFee).toBe(101);
    expect(computeFees(tx(5000, { outcome: 'failed' }), [schedule('tenant', rules)]).tenantFee).toBe(110);
    expect(computeFees(tx(5000, { type: 'refund' }), [schedule('tenant', rules)]).tenantFee).toBe(1000);
    expect(computeFees(tx(5000, { type: 'payout' }), [schedule('tenant', rules)]).tenantFee).toBe(0);
  });
});

describe('min and max clamps', () => {
  const clamped = rule({ percentageRate: 10_000, minAmount: eur(50), maxAmount: eur(300) });
  test.each([
    [1_000, 50], // 10 -> min 50
    [5_000, 50], // 50 exactly
    [20_000, 200], // within
    [30_000, 300], // max exactly
    [1_000_000, 300], // 10000 -> max 300
  ])('amount %i -> fee %i', (amount, fee) => {
    expect(computeFees(tx(amount), [schedule('tenant', [clamped])]).tenantFee).toBe(fee);
  });
  test('a fixed + percentage rule is clamped on its total', () => {
    const r = rule({ method: 'fixed_plus_percentage', fixedAmount: eur(100), percentageRate: 50_000, maxAmount: eur(120) });
    expect(computeFees(tx(100), [schedule('tenant', [r])]).tenantFee).toBe(105);
    expect(computeFees(tx(10_000), [schedule('tenant', [r])]).tenantFee).toBe(120);
  });
});

describe('rounding modes', () => {
  test.each<[RoundingMode, number, number]>([
    ['floor', 1_100, 16], // 16.5
    ['ceil', 1_100, 17],
    ['half_up', 1_100, 17],
    ['half_even', 1_100, 16], // 16.5 -> 16 (even)
    ['half_even', 1_300, 20], // 19.5 -> 20 (even)
    ['half_up', 1_300, 20],
    ['floor', 1_010, 15], // 15.15
    ['ceil', 1_010, 16],
    ['half_up', 1_010, 15],
    ['half_even', 1_010, 15],
    ['floor', 1_050, 15], // 15.75
    ['half_up', 1_050, 16],
    ['half_even', 1_050, 16],
    ['ceil', 1_000, 15], // 15 exactly: no mode moves it
    ['floor', 1_000, 15],
  ])('%s of 1.5%% x %i = %i', (mode, amount, fee) => {
    expect(computeFees(tx(amount), [schedule('tenant', [rule({ percentageRate: 15_000 })], { roundingMode: mode })]).tenantFee).toBe(fee);
  });

  test('divRound on integers', () => {
    expect(divRound(5n, 2n, 'half_even')).toBe(2n);
    expect(divRound(7n, 2n, 'half_even')).toBe(4n);
    expect(divRound(5n, 2n, 'half_up')).toBe(3n);
    expect(divRound(1n, 3n, 'ceil')).toBe(1n);
    expect(divRound(2n, 3n, 'floor')).toBe(0n);
    expect(() => divRound(-1n, 3n, 'floor')).toThrow(RangeError);
  });
});

describe('level precedence', () => {
  const pct = (party: FeeRule['party'], rate: number) => rule({ party, percentageRate: rate });

  test('for each party the most specific level with rules for it wins; parties combine across levels', () => {
    const schedules = [
      schedule('platform', [pct('platform', 1_000), pct('tenant', 90_000)]),
      schedule('tenant', [pct('tenant', 20_000), pct('provider', 10_000)]),
      schedule('partner', [pct('partner', 5_000)]),
      schedule('channel', [pct('provider', 8_000)]),
      schedule('merchant', [pct('tenant', 15_000)]),
    ];
    const b = computeFees(tx(10_000), schedules);
    expect(b).toMatchObject({
      providerFee: 80,
      tenantFee: 150,
      platformFee: 10,
      partnerCommission: 50,
      merchantFee: 290,
      net: 9_710,
      currency: 'EUR',
    });
    expect(b.lines.map((l) => `${l.party}@${l.level}`)).toEqual([
      'provider@channel',
      'tenant@merchant',
      'platform@platform',
      'partner@partner',
    ]);
    // a more specific schedule that states its reserve decides it; one that does not inherits
    const tenantReserve = { ...schedule('tenant', [pct('tenant', 10_000)], { rate: 50_000 }), reserveSpecified: true };
    const reserveOf = (merchant: ApplicableSchedule) => computeFees(tx(10_000), [merchant, tenantReserve]).reserve;
    expect(reserveOf({ ...schedule('merchant', [pct('tenant', 10_000)]), reserveSpecified: false })).toBe(495);
    expect(reserveOf({ ...schedule('merchant', [pct('tenant', 10_000)], { rate: 0 }), reserveSpecified: true })).toBe(0);
    // a tenant's own schedule naming the platform as party cannot override or waive the platform's fee
    const waived = computeFees(tx(10_000), [schedule('merchant', [pct('platform', 0)]), schedule('platform', [pct('platform', 1_000)])]);
    expect(waived.platformFee).toBe(10);
    // a terminal level overrides the merchant level
    const withTerminal = computeFees(tx(10_000), [...schedules, schedule('terminal', [pct('tenant', 1_000)])]);
    expect(withTerminal.tenantFee).toBe(10);
  });

  test('several rules of one party in the winning schedule add up; a level whose rules do not apply is skipped', () => {
    const b = computeFees(tx(10_000), [
      schedule('merchant', [rule({ party: 'tenant', method: 'fixed', fixedAmount: { currency: 'USD', valueMinor: 1 }, currency: 'USD' })]),
      schedule('tenant', [pct('tenant', 10_000), rule({ method: 'fixed', fixedAmount: eur(25) })]),
    ]);
    expect(b.tenantFee).toBe(125);
  });

  test('no schedule: no fee, net is the amount', () => {
    expect(computeFees(tx(777), [])).toMatchObject({ merchantFee: 0, net: 777, reserve: 0, lines: [], reserveFrom: null });
  });
});

describe('rolling reserve', () => {
  test('held from the net of successful payments with the most specific reserve, rounded by its mode', () => {
    const schedules = [
      schedule('tenant', [rule({ percentageRate: 20_000 })], { rate: 100_000, holdDays: 90, roundingMode: 'floor' }),
      schedule('merchant', [], { rate: 0 }),
    ];
    const b = computeFees(tx(10_001), schedules);
    // fee 200.02 -> 200 (half_up is not this schedule's mode: floor); net 9801; 10% floor = 980
    expect(b).toMatchObject({
      tenantFee: 200,
      net: 9_801,
      reserve: 980,
      reserveFrom: { level: 'tenant', rate: 100_000, holdDays: 90, autoRelease: true },
    });
    const merchantReserve = computeFees(tx(10_000), [...schedules, schedule('terminal', [], { rate: 50_000, roundingMode: 'ceil' })]);
    expect(merchantReserve).toMatchObject({ net: 9_800, reserve: 490, reserveFrom: { level: 'terminal' } });
  });

  test('no reserve on refunds, failed payments, or a negative net', () => {
    const s = [schedule('tenant', [rule({ method: 'fixed', fixedAmount: eur(500), transactionOutcome: 'any' })], { rate: 100_000 })];
    expect(computeFees(tx(10_000, { outcome: 'failed' }), s).reserve).toBe(0);
    expect(computeFees(tx(10_000, { type: 'refund' }), s).reserve).toBe(0);
    const small = computeFees(tx(100), s);
    expect(small).toMatchObject({ merchantFee: 500, net: -400, reserve: 0 });
  });
});

/** plain checks: jest's expect on every one of ~100,000 assertions would cost seconds */
function same<T>(got: T, want: T, caseNo: number): void {
  if (got !== want) throw new Error(`case ${caseNo}: got ${String(got)}, expected ${String(want)}`);
}
function atLeast(got: number | bigint, floor: number | bigint, caseNo: number): void {
  if (got < floor) throw new Error(`case ${caseNo}: ${String(got)} < ${String(floor)}`);
}

describe('property: integers only, merchantFee + net = amount, clamps and rounding hold', () => {
  const random = mulberry32(0x5eed_fee5);
  const int = (max: number) => Math.floor(random() * (max + 1));
  const pick = <T>(values: readonly T[]): T => values[int(values.length - 1)];
  const MODES: RoundingMode[] = ['floor', 'ceil', 'half_up', 'half_even'];
  const LEVELS: FeeLevel[] = ['terminal', 'merchant', 'channel', 'partner', 'tenant', 'platform'];
  const PARTIES = ['provider', 'tenant', 'platform', 'partner'] as const;

  function randomRule(): FeeRule {
    const method = pick(['fixed', 'percentage', 'fixed_plus_percentage'] as const);
    const min = random() < 0.3 ? int(500) : null;
    const max = random() < 0.3 ? (min ?? 0) + int(5_000) : null;
    return rule({
      method,
      party: pick(PARTIES),
      transactionOutcome: pick(['successful', 'failed', 'any'] as const),
      fixedAmount: method === 'percentage' ? null : eur(int(1_000)),
      // round rates hit exact ties (x.5) often, so the tie-breaking of half_up and half_even is exercised
      percentageRate: method === 'fixed' ? null : random() < 0.5 ? int(1_000_000) : pick([5_000, 15_000, 25_000, 500_000]),
      minAmount: min === null ? null : eur(min),
      maxAmount: max === null ? null : eur(max),
    });
  }

  test('5000 random transactions and schedules', () => {
    for (let i = 0; i < 5_000; i++) {
      const amount = random() < 0.1 ? int(10) : random() < 0.05 ? int(Number.MAX_SAFE_INTEGER / 2_000_000) : int(10_000_000);
      const levels = LEVELS.filter(() => random() < 0.5);
      const schedules = levels.map((level) =>
        schedule(level, Array.from({ length: int(3) }, randomRule), { rate: random() < 0.5 ? int(300_000) : 0, roundingMode: pick(MODES) }),
      );
      const t = tx(amount, { outcome: pick(['successful', 'failed'] as const) });
      const b = computeFees(t, schedules);
      for (const key of [
        'amount',
        'providerFee',
        'tenantFee',
        'platformFee',
        'partnerCommission',
        'merchantFee',
        'net',
        'reserve',
      ] as const) {
        same(Number.isSafeInteger(b[key]), true, i);
      }
      same(b.merchantFee + b.net, amount, i);
      same(b.providerFee + b.tenantFee + b.platformFee + b.partnerCommission, b.merchantFee, i);
      atLeast(b.reserve, 0, i);
      atLeast(Math.max(b.net, 0), b.reserve, i);
      for (const line of b.lines) {
        const s = schedules.find((x) => x.feeScheduleId === line.feeScheduleId)!;
        const r = s.rules[line.ruleIndex];
        same(Number.isSafeInteger(line.amount), true, i);
        if (r.minAmount) atLeast(line.amount, r.minAmount.valueMinor, i);
        if (r.maxAmount) atLeast(r.maxAmount.valueMinor, line.amount, i);
        // unclamped: fixed + (amount x rate / 1,000,000 rounded per the schedule's mode), recomputed here in BigInt
        const fixed = BigInt(r.fixedAmount?.valueMinor ?? 0);
        const num = BigInt(r.percentageRate ?? 0) * BigInt(amount);
        const floor = fixed + num / 1_000_000n;
        const hasRemainder = num % 1_000_000n !== 0n;
        const clampedByMin = r.minAmount && BigInt(line.amount) === BigInt(r.minAmount.valueMinor);
        const clampedByMax = r.maxAmount && BigInt(line.amount) === BigInt(r.maxAmount.valueMinor);
        if (!clampedByMin && !clampedByMax) {
          const mode = s.rollingReserve.roundingMode;
          const got = BigInt(line.amount);
          if (!hasRemainder) same(got, floor, i);
          else if (mode === 'floor') same(got, floor, i);
          else if (mode === 'ceil') same(got, floor + 1n, i);
          else {
            const twice = 2n * (num % 1_000_000n);
            if (twice > 1_000_000n) same(got, floor + 1n, i);
            else if (twice < 1_000_000n) same(got, floor, i);
            else same(got, mode === 'half_up' ? floor + 1n : (num / 1_000_000n) % 2n === 0n ? floor : floor + 1n, i);
          }
        }
      }
    }
  });
});
