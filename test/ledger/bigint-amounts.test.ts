import { QueryTypes } from 'sequelize';
import { useMoneyHarness, payWithCard } from '../helpers/money';
import { dialectName, onPostgres } from '../helpers/db';
import { expectLedgerInvariant } from '../helpers/ledger';
import { operatorContext } from '../../src/services/access/operators';
import type { CallerContext } from '../../src/domain/context';
import { InternalError } from '../../src/domain/errors';
import { scoped } from '../../src/db/scoped';
import { bigintNumber, sumNumber } from '../../src/db/model-kit';
import type { LedgerEntryRow, PaymentRow } from '../../src/db/models';
import { balancesOf } from '../../src/services/ledger/balances';

// Issue 21, point 2: BIGINT columns (amounts in minor units) read as JS numbers once, in the model layer, on both
// databases (Postgres hands int8 and SUM(...) back as strings): a model read, a raw and an aggregate read, and a
// balance sum, each with amounts above 2^31.

const BIG = 3_000_000_000; // above 2^31 (two of them above 2^32)
const REFUND = 2_500_000_000;

const m = useMoneyHarness();
let tenant: CallerContext;
let first: string;
let second: string;

beforeAll(async () => {
  tenant = operatorContext(m.rt, { level: 'tenant', tenantId: m.sandbox.tenantId, livemode: false });
  first = (await payWithCard(m, '4242424242424242', { amount: BIG })).paymentId;
  second = (await payWithCard(m, '4242424242424242', { amount: BIG })).paymentId;
  const refund = await m
    .as(m.sandbox.merchantKey.secretKey)
    .post(`/v1/payments/${first}/refunds`, { amount: { currency: 'EUR', valueMinor: REFUND } });
  expect(refund.status).toBe(201);
  expect(refund.body.data.amount).toEqual({ currency: 'EUR', valueMinor: REFUND });
  await m.settle();
});

describe(`BIGINT amounts above 2^31 read as numbers (${dialectName})`, () => {
  test('through a model read: scoped rows, instances, and the records built from them', async () => {
    const row = await scoped(tenant, m.rt.db.models.Payment).get(first);
    expect(row).toMatchObject({ amountMinor: BIG, authorizedMinor: BIG, capturedMinor: BIG, refundedMinor: REFUND, refundPendingMinor: 0 });
    for (const column of [
      'amountMinor',
      'authorizedMinor',
      'capturedMinor',
      'refundedMinor',
      'refundPendingMinor',
      'feeMinor',
      'netMinor',
    ] as const) {
      expect(typeof row[column]).toBe('number');
    }
    const instance = await m.rt.db.models.Payment.findByPk(second);
    expect(instance!.get('capturedMinor')).toBe(BIG);
    const session = await scoped(tenant, m.rt.db.models.CheckoutSession).findOne({ paymentId: second });
    expect(session!.amountMinor).toBe(BIG);
    const entries = await scoped(tenant, m.rt.db.models.LedgerEntry).findAll({ sourceId: first });
    expect(entries.length).toBeGreaterThan(2);
    for (const entry of entries) expect(Number.isSafeInteger(entry.amountMinor)).toBe(true);
    expect(entries.some((e) => Math.abs(e.amountMinor) > 2 ** 31)).toBe(true);

    const payment = await m.as(m.sandbox.tenantKey.secretKey).get(`/v1/payments/${first}`);
    expect(payment.body.data.amount).toEqual({ currency: 'EUR', valueMinor: BIG });
    expect(payment.body.data.amountBreakdown.refunded).toEqual({ currency: 'EUR', valueMinor: REFUND });
    expect(payment.body.data.status).toBe('partially_refunded');
  });

  test("through a raw read and an aggregate: the db layer's bigintNumber and sumNumber", async () => {
    const [raw] = (await m.rt.db.models.Payment.findAll({ where: { id: second }, raw: true })) as unknown as PaymentRow[];
    // raw rows bypass the models' getters: Postgres answers a string, SQLite a number; converted in one place
    expect(typeof raw.capturedMinor).toBe(onPostgres ? 'string' : 'number');
    expect(bigintNumber(raw.capturedMinor)).toBe(BIG);

    const captured = await scoped(tenant, m.rt.db.models.Payment).sum('capturedMinor', { id: [first, second] });
    expect(captured).toBe(2 * BIG);
    const [total] = await m.rt.db.sequelize.query<{ total: string | number | null }>(
      'SELECT SUM("capturedMinor") AS total FROM payments WHERE id IN (:ids)',
      { replacements: { ids: [first, second] }, type: QueryTypes.SELECT },
    );
    expect(sumNumber(total.total)).toBe(2 * BIG);
    const [none] = await m.rt.db.sequelize.query<{ total: string | number | null }>(
      'SELECT SUM("capturedMinor") AS total FROM payments WHERE id IN (:ids)',
      { replacements: { ids: [m.sandbox.merchantId] }, type: QueryTypes.SELECT },
    );
    expect(sumNumber(none.total)).toBe(0);
  });

  test('through a balance sum: the merchant balances are the sums of their entries, as numbers', async () => {
    const rows = (await m.rt.db.models.LedgerEntry.findAll({
      where: { merchantId: m.sandbox.merchantId, currency: 'EUR' },
      raw: true,
    })) as unknown as LedgerEntryRow[];
    const expected = { pending: 0n, available: 0n, reserved: 0n, payable: 0n };
    const field = {
      merchant_pending: 'pending',
      merchant_available: 'available',
      merchant_reserve: 'reserved',
      merchant_payable: 'payable',
    } as const;
    for (const row of rows) expected[field[row.account as keyof typeof field]] += BigInt(row.amountMinor);
    const [balance] = await balancesOf(tenant, { merchantId: m.sandbox.merchantId, currency: 'EUR' });
    for (const name of ['pending', 'available', 'reserved', 'payable'] as const) {
      expect(balance[name]).toEqual({ currency: 'EUR', valueMinor: Number(expected[name]) });
    }
    expect(balance.pending.valueMinor + balance.available.valueMinor + balance.reserved.valueMinor).toBeGreaterThan(2 ** 31);
    const answered = await m.as(m.sandbox.tenantKey.secretKey).get(`/v1/balances?merchantId=${m.sandbox.merchantId}&currency=EUR`);
    expect(answered.status).toBe(200);
    expect(answered.body.data).toEqual([balance]);
    await expectLedgerInvariant(m.rt);
  });

  test('a stored value beyond Number.MAX_SAFE_INTEGER is refused on read, never rounded', async () => {
    const created = await m
      .as(m.sandbox.merchantKey.secretKey)
      .post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 1000 } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    await m.rt.db.sequelize.query('UPDATE checkout_sessions SET "amountMinor" = 9007199254740993 WHERE id = :id', { replacements: { id } });
    await expect(scoped(tenant, m.rt.db.models.CheckoutSession).get(id)).rejects.toThrow(InternalError);
    await m.rt.db.sequelize.query('DELETE FROM checkout_sessions WHERE id = :id', { replacements: { id } });
  });
});
