import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import type { Database } from '../../src/db/database';
import type { RowModel } from '../../src/db/model-kit';
import type { Models } from '../../src/db/models';
import { createMoneyHarness, payWithCard, type MoneyHarness } from '../helpers/money';
import { saveMethod, withdrawalSettings } from '../helpers/withdrawals';
import { fundMerchant } from '../helpers/funding';
import { randomBase62 } from '../../src/util/secrets';

// Shared by the list tests of issue 9 (test/perf/list-plans.test.ts, test/perf/list-queries.test.ts): one pass of
// the real money path (checkout session, card payment, refund, webhook deliveries, ledger postings, a withdrawal),
// whose rows serve as templates; copies of them, re-scoped to other tenants, merchants, modes and statuses and
// written in bulk, grow the tables without going through the services.

export const VISA = '4242424242424242';

/** One real row of each listed table, as the services wrote it. */
export interface Templates {
  payment: Record<string, unknown>;
  attempt: Record<string, unknown>;
  refund: Record<string, unknown>;
  session: Record<string, unknown>;
  delivery: Record<string, unknown>;
  /** an entry of a merchant account (merchantId set) and one of another account (merchantId null) */
  merchantEntry: Record<string, unknown>;
  otherEntry: Record<string, unknown>;
  audit: Record<string, unknown>;
  withdrawal: Record<string, unknown>;
  apiKey: Record<string, unknown>;
  merchant: Record<string, unknown>;
}

export interface ListHarness {
  m: MoneyHarness;
  templates: Templates;
  paymentId: string;
}

const plain = (row: { get(options: { plain: true }): unknown } | null, what: string): Record<string, unknown> => {
  if (!row) throw new Error(`no ${what} row to copy`);
  return row.get({ plain: true }) as Record<string, unknown>;
};

function expectStatus(res: { status: number; body: unknown }, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** The sandbox money harness after one pass of the money path, and a template row of each listed table. */
export async function createListHarness(): Promise<ListHarness> {
  const m = await createMoneyHarness();
  const merchant = m.as(m.sandbox.merchantKey.secretKey);
  const { paymentId, sessionId } = await payWithCard(m, VISA, { amount: 10_000 });
  const refund = await merchant
    .post(`/v1/payments/${paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 1_000 } })
    .set('Idempotency-Key', 'list-fixture-refund');
  expectStatus(refund, 201, 'refund');
  await m.settle();
  await withdrawalSettings(m, { withdrawalCoolingPeriodHours: 0 });
  const method = await saveMethod(m);
  await fundMerchant(m, 100_000);
  const withdrawal = await merchant
    .post('/v1/withdrawals', { amount: { currency: 'EUR', valueMinor: 1_000 }, withdrawalMethodId: method.id })
    .set('Idempotency-Key', 'list-fixture-withdrawal');
  expectStatus(withdrawal, 201, 'withdrawal');

  const models = m.rt.db.models;
  const merchantId = m.sandbox.merchantId;
  const templates: Templates = {
    payment: plain(await models.Payment.findByPk(paymentId), 'payment'),
    attempt: plain(await models.PaymentAttempt.findOne({ where: { paymentId } }), 'payment attempt'),
    refund: plain(await models.Refund.findOne({ where: { paymentId } }), 'refund'),
    session: plain(await models.CheckoutSession.findByPk(sessionId), 'checkout session'),
    delivery: plain(await models.WebhookDelivery.findOne({ where: { merchantId } }), 'webhook delivery'),
    merchantEntry: plain(await models.LedgerEntry.findOne({ where: { merchantId } }), 'merchant ledger entry'),
    otherEntry: plain(await models.LedgerEntry.findOne({ where: { merchantId: null } }), 'ledger entry'),
    audit: plain(
      (await models.AuditEntry.findOne({ where: { merchantId, action: { [Op.like]: 'payment%' } } })) ??
        (await models.AuditEntry.findOne({ where: { merchantId } })),
      'audit entry',
    ),
    withdrawal: plain(await models.Withdrawal.findByPk(withdrawal.body.data.id as string), 'withdrawal'),
    apiKey: plain(await models.ApiKey.findByPk(m.sandbox.merchantKey.id), 'API key'),
    merchant: plain(await models.Merchant.findByPk(merchantId), 'merchant'),
  };
  return { m, templates, paymentId };
}

export type ModelName = keyof Models;

/** Columns that must stay unique per copy, per table. */
const UNIQUE: Partial<Record<ModelName, () => Record<string, unknown>>> = {
  // the real shape: a 16-character base62 lookup prefix, shared by the public key (a longer sk_… string would be a
  // secret key at rest for the CI's secret scan)
  ApiKey: () => {
    const prefix = randomBase62(16);
    return { keyPrefix: prefix, publicKey: `pk_test_${prefix}` };
  },
  Withdrawal: () => ({ idempotencyKey: `copy-${randomUUID()}` }),
  Refund: () => ({ idempotencyKey: `copy-${randomUUID()}` }),
};

/**
 * Writes `count` copies of `template` into the table of `model` (new ids; `vary(i)` changes the scope, status,
 * time, …), `batch` rows per INSERT.
 */
export async function copyRows(
  db: Database,
  model: ModelName,
  template: Record<string, unknown>,
  count: number,
  vary: (i: number) => Record<string, unknown>,
  batch = 250,
): Promise<void> {
  const table = db.models[model] as unknown as RowModel<{ id: string; createdAt: Date }>;
  for (let start = 0; start < count; start += batch) {
    const rows = [];
    for (let i = start; i < Math.min(count, start + batch); i++)
      rows.push({ ...template, id: randomUUID(), ...UNIQUE[model]?.(), ...vary(i) });
    await table.bulkCreate(rows as never[]);
  }
}
