import { useApiHarness } from '../helpers/api';
import { expectLedgerInvariant } from '../helpers/ledger';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import type { CallerContext } from '../../src/domain/context';
import type { PaymentRow, RefundRow } from '../../src/db/models';
import { createSession } from '../../src/services/checkout/sessions';
import { completeCheckoutSession } from '../../src/services/checkout/completion';
import { cancelPayment, capturePayment } from '../../src/services/payments/payments';
import { createRefund } from '../../src/services/payments/refunds';
import { bigintNumber as minor } from '../../src/db/model-kit';
import { balancesOf } from '../../src/services/ledger/balances';
import { releaseDue } from '../../src/services/ledger/releases';
import { runDueSandboxOperations } from '../../src/services/sandbox/acquirer';
import { PayplaneError } from '../../src/domain/errors';
import { mulberry32 } from '../../src/util/random';

/**
 * 1,000 mixed operations chosen by a seeded generator — payments with every test card and both capture methods,
 * partial and full captures, cancels, partial and full refunds, holding-period releases — through the services; the
 * ledger invariant and every payment's amounts hold throughout, and the merchant's balances equal what its payments say.
 */

const SEED = Number(process.env.PAYPLANE_RANDOM_SEED ?? 20261121);
const OPERATIONS = Number(process.env.OPS ?? 1000);

const CARDS = [
  '4242424242424242',
  '5555555555554444',
  '4000000000000002',
  '4000000000009995',
  '4000000000000119',
  '4000000000003220',
  '4000000000000077',
  '4000000000005126',
];

let ctx: CallerContext;
const h = useApiHarness({ config: { sandboxDelayMs: 0 } });
beforeAll(async () => {
  ctx = operatorContext(h.rt, { level: 'merchant', tenantId: h.sandbox.tenantId, merchantId: h.sandbox.merchantId, livemode: false });
});

test(`${OPERATIONS} random payments, captures, cancels and refunds keep the ledger invariant (${dialectName}, seed ${SEED})`, async () => {
  const random = mulberry32(SEED);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const counts: Record<string, number> = {};
  const refused: Record<string, number> = {};
  const payments = async (statuses: PaymentRow['status'][]) =>
    (await h.rt.db.models.Payment.findAll({ where: { status: statuses }, raw: true })) as unknown as PaymentRow[];
  const attempt = async (name: string, fn: () => Promise<unknown>) => {
    counts[name] = (counts[name] ?? 0) + 1;
    try {
      await fn();
    } catch (error) {
      // only the platform's own refusals (409/422) are acceptable outcomes of a random operation
      if (!(error instanceof PayplaneError) || ![409, 422].includes(error.status)) throw error;
      refused[`${name}:${error.code}`] = (refused[`${name}:${error.code}`] ?? 0) + 1;
    }
  };

  for (let i = 0; i < OPERATIONS; i++) {
    const roll = random();
    if (roll < 0.4) {
      await attempt('pay', async () => {
        const session = await createSession(ctx, {
          amount: { currency: pick(['EUR', 'USD']), valueMinor: between(50, 500_000) },
          captureMethod: random() < 0.3 ? 'manual' : 'automatic',
        });
        await completeCheckoutSession(ctx, session.id, {
          paymentMethod: { type: 'card', card: { number: pick(CARDS), expMonth: 12, expYear: 2031, cvc: '123' } },
        });
      });
    } else if (roll < 0.55) {
      const open = await payments(['requires_capture']);
      if (!open.length) continue;
      const p = pick(open);
      const amount = random() < 0.5 ? undefined : { currency: p.currency, valueMinor: between(1, minor(p.authorizedMinor)) };
      await attempt('capture', () => capturePayment(ctx, p.id, { amount }));
    } else if (roll < 0.65) {
      const open = await payments(['requires_capture', 'processing', 'captured']);
      if (!open.length) continue;
      await attempt('cancel', () => cancelPayment(ctx, pick(open).id));
    } else if (roll < 0.9) {
      const paid = await payments(['captured', 'partially_refunded']);
      if (!paid.length) continue;
      const p = pick(paid);
      const left = minor(p.capturedMinor) - minor(p.refundedMinor) - minor(p.refundPendingMinor);
      const amount = random() < 0.4 || left < 1 ? undefined : { currency: p.currency, valueMinor: between(1, Math.max(1, left + 10)) };
      await attempt('refund', () => createRefund(ctx, p.id, { amount }));
    } else if (roll < 0.95) {
      h.clock.advance(between(1, 30) * 3_600_000);
      await attempt('release', () => releaseDue(h.rt));
    } else {
      await attempt('settle', () => runDueSandboxOperations(h.rt));
    }
    if (i % 100 === 99) await expectLedgerInvariant(h.rt);
  }
  while ((await runDueSandboxOperations(h.rt)) > 0);

  const summary = await expectLedgerInvariant(h.rt);
  expect(summary.entries).toBeGreaterThan(100);
  expect(counts.pay).toBeGreaterThan(300);
  expect(counts.refund).toBeGreaterThan(100);
  expect(counts.capture).toBeGreaterThan(30);

  // every payment's amounts are consistent; the merchant's balances are what its payments and refunds say
  const all = (await h.rt.db.models.Payment.findAll({ raw: true })) as unknown as PaymentRow[];
  const expected = new Map<string, number>();
  for (const p of all) {
    const [authorized, captured, refunded, pending, fee] = [
      p.authorizedMinor,
      p.capturedMinor,
      p.refundedMinor,
      p.refundPendingMinor,
      p.feeMinor,
    ].map(minor);
    expect(captured).toBeLessThanOrEqual(authorized);
    expect(refunded + pending).toBeLessThanOrEqual(captured);
    expect(pending).toBe(0);
    const refunds = (await h.rt.db.models.Refund.findAll({
      where: { paymentId: p.id, status: 'succeeded' },
      raw: true,
    })) as unknown as RefundRow[];
    expect(refunds.reduce((sum, r) => sum + minor(r.amountMinor), 0)).toBe(refunded);
    if (p.status === 'refunded') expect(refunded).toBe(captured);
    if (p.status === 'partially_refunded') expect(refunded).toBeLessThan(captured);
    if (['failed', 'voided'].includes(p.status)) expect(captured).toBe(0);
    expected.set(p.currency, (expected.get(p.currency) ?? 0) + captured - refunded - fee);
  }
  const balances = await balancesOf(ctx);
  for (const [currency, total] of expected) {
    const b = balances.find((x) => x.currency === currency)!;
    expect(b.pending.valueMinor + b.available.valueMinor + b.reserved.valueMinor + b.payable.valueMinor).toBe(total);
  }
  expect(Object.keys(refused).length).toBeGreaterThan(0);
}, 600_000);
