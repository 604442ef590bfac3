import fs from 'node:fs';
import path from 'node:path';
import { dialectName, testConfig } from '../helpers/db';
import { useCliSandbox } from '../helpers/cli';
import { openRuntime, closeRuntime } from '../../src/runtime';
import { operatorContext } from '../../src/services/access/operators';
import { resolveFees } from '../../src/services/fees/schedules';
import type { FeeTransaction } from '../../src/services/fees/engine';

const s = useCliSandbox();
const cli = s.cli;

/** The fee engine's answer on the same database, for the same input. */
async function engine(tx: FeeTransaction) {
  const rt = await openRuntime(testConfig(s.db));
  try {
    return await resolveFees(operatorContext(rt, { level: 'tenant', tenantId: s.sandbox.tenantId, livemode: false }), tx);
  } finally {
    await closeRuntime(rt);
  }
}

describe(`payplane fee-schedules, fee-assignments and fees quote (${dialectName})`, () => {
  test('schedules from a rules file and from flags; only drafts update; quote equals the engine; close and archive', async () => {
    const rulesFile = path.join(s.db.home, 'rules.json');
    fs.writeFileSync(
      rulesFile,
      JSON.stringify([
        {
          transactionType: 'payment',
          method: 'fixed_plus_percentage',
          currency: 'EUR',
          fixedAmount: { currency: 'EUR', valueMinor: 25 },
          percentageRate: 14_500,
          maxAmount: { currency: 'EUR', valueMinor: 1_000 },
        },
        { transactionType: 'payment', method: 'percentage', currency: 'EUR', percentageRate: 3_333, party: 'provider' },
      ]),
    );
    const created = await cli(
      'fee-schedules',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--name',
      'CLI EU',
      '--rules-file',
      rulesFile,
      '--reserve-rate',
      '50000',
      '--hold-days',
      '30',
      '--rounding',
      'half_even',
      '--json',
    );
    expect(created.status).toBe(0);
    const schedule = created.json();
    expect(schedule).toMatchObject({
      tenantId: s.sandbox.tenantId,
      status: 'draft',
      rules: [
        { party: 'tenant', percentageRate: 14_500 },
        { party: 'provider', percentageRate: 3_333 },
      ],
      rollingReserve: { rate: 50_000, holdDays: 30, autoRelease: true, roundingMode: 'half_even' },
    });

    // one rule from flags; invalid input names the flag
    const flagged = await cli(
      'fee-schedules',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--name',
      'Flat',
      '--transaction-type',
      'payment',
      '--method',
      'fixed',
      '--currency',
      'EUR',
      '--fixed',
      '0.30',
      '--json',
    );
    expect(flagged.json().rules).toEqual([
      expect.objectContaining({ method: 'fixed', fixedAmount: { currency: 'EUR', valueMinor: 30 }, transactionOutcome: 'successful' }),
    ]);
    const bad = await cli(
      'fee-schedules',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--name',
      'Bad',
      '--transaction-type',
      'payment',
      '--method',
      'percentage',
      '--currency',
      'EUR',
      '--json',
    );
    expect(bad.status).toBe(2);
    expect(bad.json().error.errors).toEqual([{ path: '--rules-file[0].percentageRate', message: 'is required for method percentage' }]);

    expect((await cli('fee-schedules', 'update', schedule.id, '--name', 'CLI EU v2', '--json')).json().name).toBe('CLI EU v2');
    expect((await cli('fee-schedules', 'activate', schedule.id, '--json')).json().status).toBe('active');
    const refused = await cli('fee-schedules', 'update', schedule.id, '--name', 'again', '--json');
    expect(refused.status).toBe(5);
    expect(refused.json().error).toMatchObject({ code: 'FEE_SCHEDULE_NOT_DRAFT', status: 409 });
    const shown = await cli('fee-schedules', 'get', schedule.id);
    expect(shown.stdout).toMatch(/fixed_plus_percentage/);
    expect(shown.stdout).toMatch(/14500 \(1\.45%\)/);

    const assigned = await cli(
      'fee-assignments',
      'create',
      '--level',
      'merchant',
      '--target',
      s.sandbox.merchantId,
      '--schedule',
      schedule.id,
      '--currency',
      'EUR',
      '--payment-method',
      'card',
      '--json',
    );
    expect(assigned.status).toBe(0);
    const assignment = assigned.json();
    expect(assignment).toMatchObject({ level: 'merchant', targetEntityId: s.sandbox.merchantId, status: 'open' });
    const listed = await cli('fee-assignments', 'list', '--level', 'merchant', '--active-only', '--json');
    expect(listed.json().data.map((a: { id: string }) => a.id)).toEqual([assignment.id]);

    // the quote is the engine's result for the same input
    const at = new Date(Date.now() + 60_000).toISOString();
    const quote = await cli(
      'fees',
      'quote',
      '--tenant',
      s.sandbox.tenantId,
      '--merchant',
      s.sandbox.merchantId,
      '--amount',
      '123.45',
      '--currency',
      'EUR',
      '--method',
      'card',
      '--at',
      at,
      '--json',
    );
    expect(quote.status).toBe(0);
    const expected = await engine({
      type: 'payment',
      outcome: 'successful',
      amount: { currency: 'EUR', valueMinor: 12_345 },
      method: 'card',
      merchantId: s.sandbox.merchantId,
      at: new Date(at),
    });
    expect(quote.json()).toEqual(expected);
    // 25 + 1.45% of 12345 = 25 + 179.0025 -> 204 (tenant); 0.3333% = 41.146 -> 41 (provider)
    expect(quote.json()).toMatchObject({ tenantFee: 204, providerFee: 41, merchantFee: 245, net: 12_100, reserve: 605, currency: 'EUR' });
    const table = await cli(
      'fees',
      'quote',
      '--tenant',
      s.sandbox.tenantId,
      '--merchant',
      s.sandbox.merchantId,
      '--amount',
      '123.45',
      '--currency',
      'EUR',
      '--at',
      at,
    );
    expect(table.stdout).toMatch(/merchantFee\s*│?\s*2\.45 EUR/);
    const badQuote = await cli('fees', 'quote', '--merchant', s.sandbox.merchantId, '--amount', '0.10', '--currency', 'euro', '--json');
    expect(badQuote.status).toBe(2);
    expect(badQuote.json().error.errors[0].path).toBe('--currency');

    const closed = await cli('fee-assignments', 'close', assignment.id, '--yes', '--json');
    expect(closed.json()).toMatchObject({ status: 'closed', effectiveTo: expect.any(String) });
    expect((await cli('fee-assignments', 'close', assignment.id, '--yes', '--json')).status).toBe(5);
    expect((await cli('fee-schedules', 'archive', schedule.id, '--yes', '--json')).json().status).toBe('archived');
    const after = await cli(
      'fees',
      'quote',
      '--tenant',
      s.sandbox.tenantId,
      '--merchant',
      s.sandbox.merchantId,
      '--amount',
      '123.45',
      '--currency',
      'EUR',
      '--json',
    );
    expect(after.json()).toEqual(
      await engine({
        type: 'payment',
        outcome: 'successful',
        amount: { currency: 'EUR', valueMinor: 12_345 },
        method: 'card',
        merchantId: s.sandbox.merchantId,
        at: new Date(),
      }),
    );
    expect(after.json().lines.some((l: { feeScheduleId: string }) => l.feeScheduleId === schedule.id)).toBe(false);
  });
});
