import { dialectName, testConfig } from '../helpers/db';
import { useCliSandbox } from '../helpers/cli';
import { openRuntime, closeRuntime } from '../../src/runtime';
import { operatorContext } from '../../src/services/access/operators';
import { inTransaction } from '../../src/domain/context';
import { resolveFees } from '../../src/services/fees/schedules';
import { postCapture } from '../../src/services/ledger/postings/capture';
import { postRefund } from '../../src/services/ledger/postings/refund';
import { newId } from '../../src/util/ids';

const s = useCliSandbox();
const cli = s.cli;
const paymentId = newId();
const refundId = newId();

beforeAll(async () => {
  // a captured EUR 100.00 (fee 1.65: 98.35 pending), 12.34 refunded; JPY 5000 available at once
  const rt = await openRuntime(testConfig(s.db));
  try {
    const ctx = operatorContext(rt, { level: 'tenant', tenantId: s.sandbox.tenantId, livemode: false });
    const at = rt.clock.now();
    const eur = await resolveFees(ctx, {
      type: 'payment',
      outcome: 'successful',
      amount: { currency: 'EUR', valueMinor: 10_000 },
      method: 'card',
      merchantId: s.sandbox.merchantId,
      at,
    });
    const jpy = await resolveFees(ctx, {
      type: 'payment',
      outcome: 'successful',
      amount: { currency: 'JPY', valueMinor: 5000 },
      method: 'card',
      merchantId: s.sandbox.merchantId,
      at,
    });
    // no JPY fee is assigned in the sandbox
    expect(jpy.merchantFee).toBe(0);
    const common = {
      tenantId: s.sandbox.tenantId,
      livemode: false,
      merchantId: s.sandbox.merchantId,
      providerIntegrationId: newId(),
      partnerId: null,
    };
    await inTransaction(ctx, async (t) => {
      await postCapture(t, { ...common, paymentId, breakdown: eur, availableImmediately: false });
      await postRefund(t, { ...common, paymentId, refundId, amount: { currency: 'EUR', valueMinor: 1234 }, fee: null });
      await postCapture(t, { ...common, paymentId: newId(), breakdown: jpy, availableImmediately: true });
    });
  } finally {
    await closeRuntime(rt);
  }
});

describe(`payplane balances (${dialectName})`, () => {
  test('a table with amounts in major units, --json with minor units, filters', async () => {
    const table = await cli('balances', '--tenant', s.sandbox.tenantId);
    expect(table.status).toBe(0);
    const eurLine = table.stdout.split('\n').find((l) => l.includes('EUR') && l.includes(s.sandbox.merchantId));
    expect(eurLine).toBeDefined();
    expect(eurLine).toContain('98.35 EUR');
    expect(eurLine).toContain('-12.34 EUR');
    expect(table.stdout).toContain('5000 JPY');
    expect(table.stdout).toContain('2 of 2');

    const json = await cli('balances', '--tenant', s.sandbox.tenantId, '--merchant', s.sandbox.merchantId, '--currency', 'EUR', '--json');
    expect(json.status).toBe(0);
    expect(json.json().data).toEqual([
      {
        merchantId: s.sandbox.merchantId,
        currency: 'EUR',
        pending: { currency: 'EUR', valueMinor: 9835 },
        available: { currency: 'EUR', valueMinor: -1234 },
        reserved: { currency: 'EUR', valueMinor: 0 },
        payable: { currency: 'EUR', valueMinor: 0 },
      },
    ]);
    // the platform (no --tenant) sees the merchant too; live mode holds nothing
    expect((await cli('balances', '--merchant', s.sandbox.merchantId, '--json')).json().data).toHaveLength(2);
    expect((await cli('balances', '--tenant', s.sandbox.tenantId, '--live', '--json')).json().data).toEqual([]);
  });

  test('balances transactions: newest first, --type and --source filters', async () => {
    const all = await cli('balances', 'transactions', '--tenant', s.sandbox.tenantId, '--json');
    expect(all.status).toBe(0);
    expect(all.json().data.map((t: { type: string; amount: unknown }) => [t.type, t.amount])).toEqual([
      ['payment', { currency: 'JPY', valueMinor: 5000 }],
      ['refund', { currency: 'EUR', valueMinor: -1234 }],
      ['payment', { currency: 'EUR', valueMinor: 9835 }],
    ]);
    const refunds = await cli('balances', 'transactions', '--tenant', s.sandbox.tenantId, '--type', 'refund', '--json');
    expect(refunds.json().data).toEqual([expect.objectContaining({ sourceId: refundId, balanceType: 'available' })]);
    const bySource = await cli('balances', 'transactions', '--tenant', s.sandbox.tenantId, '--source', paymentId);
    expect(bySource.status).toBe(0);
    expect(bySource.stdout).toContain('98.35 EUR');
    expect(bySource.stdout).toContain('pending');
    expect(bySource.stdout).toContain('1 of 1');
  });

  test('bad input names the flag; an unknown tenant is not found', async () => {
    const bad = await cli('balances', '--tenant', s.sandbox.tenantId, '--currency', 'eur');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--currency');
    const badMerchant = await cli('balances', '--merchant', 'nope');
    expect(badMerchant.status).not.toBe(0);
    expect(badMerchant.stderr).toContain('--merchant');
    const unknown = await cli('balances', '--tenant', newId());
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toMatch(/tenant/i);
  });
});
