import { hasScript, runOnTerminal, useCliSandbox, type CliResult } from '../helpers/cli';
import { testWhenPresent } from '../helpers/prerequisite';
import { dialectName } from '../helpers/db';

// Issue 24, item 5: every amount flag reads the same way (25.00 in the currency's major units; its -minor twin for
// minor units: --amount-minor, --fixed-minor, --threshold-minor…), the prompts too, and outputs show formatted amounts.

const t = useCliSandbox();
const cli = t.cli;

describe(`one unit for every amount (${dialectName})`, () => {
  test('fees quote and routing-rules decide read --amount 25.00 as 2500 minor units, as refunds and capture do', async () => {
    const major = await cli(
      'fees',
      'quote',
      '--tenant',
      t.sandbox.tenantId,
      '--merchant',
      t.sandbox.merchantId,
      '--amount',
      '25.00',
      '--currency',
      'EUR',
      '--json',
    );
    expect(major.status).toBe(0);
    expect(major.json()).toMatchObject({ amount: 2500, currency: 'EUR' });
    const minor = await cli(
      'fees',
      'quote',
      '--tenant',
      t.sandbox.tenantId,
      '--merchant',
      t.sandbox.merchantId,
      '--amount-minor',
      '2500',
      '--currency',
      'EUR',
      '--json',
    );
    expect(minor.json()).toEqual(major.json());
    const yen = await cli(
      'fees',
      'quote',
      '--tenant',
      t.sandbox.tenantId,
      '--merchant',
      t.sandbox.merchantId,
      '--amount',
      '1500',
      '--currency',
      'JPY',
      '--json',
    );
    expect(yen.json()).toMatchObject({ amount: 1500, currency: 'JPY' });
    const decide = await cli(
      'routing-rules',
      'decide',
      '--merchant',
      t.sandbox.merchantId,
      '--amount',
      '25.00',
      '--currency',
      'EUR',
      '--brand',
      'visa',
      '--json',
    );
    expect(decide.status).toBe(0);

    for (const [args, path] of [
      [['--amount', '25.001', '--currency', 'EUR'], '--amount'],
      [['--amount', '25', '--amount-minor', '2500', '--currency', 'EUR'], '--amount'],
      [['--amount', '25.00', '--currency', 'euro'], '--currency'],
    ] as const) {
      const bad = await cli('fees', 'quote', '--tenant', t.sandbox.tenantId, '--merchant', t.sandbox.merchantId, ...args, '--json');
      expect(bad.status).toBe(2);
      expect(bad.json().error.errors[0].path).toBe(path);
    }
  });

  test('the quote shows formatted amounts', async () => {
    const table = await cli(
      'fees',
      'quote',
      '--tenant',
      t.sandbox.tenantId,
      '--merchant',
      t.sandbox.merchantId,
      '--amount',
      '25.00',
      '--currency',
      'EUR',
    );
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/amount\s*│?\s*25\.00 EUR/);
    expect(table.stdout).not.toMatch(/minor units/);
  });

  // every other amount flag: --X in major units of its currency, --X-minor in minor units, the same record either way;
  // too many decimals, both forms or no currency exit 2 naming the flag; tables show the formatted amount

  /** The exit 2 of each run, and the flag its first issue names. */
  const refusals = async (runs: Promise<CliResult>[]) =>
    (await Promise.all(runs)).map((r) => [r.status, r.json().error?.errors?.[0]?.path]);

  test("fee rules: --fixed, --min and --max in the rule's --currency (create and update)", async () => {
    const schedule = (...args: string[]) =>
      cli(
        'fee-schedules',
        'create',
        '--tenant',
        t.sandbox.tenantId,
        '--name',
        'Amounts',
        '--transaction-type',
        'payment',
        '--method',
        'fixed_plus_percentage',
        '--rate',
        '10000',
        '--currency',
        'EUR',
        ...args,
        '--json',
      );
    const major = await schedule('--fixed', '0.25', '--min', '0.10', '--max', '10.00');
    expect(major.status).toBe(0);
    expect(major.json().rules[0]).toMatchObject({
      fixedAmount: { currency: 'EUR', valueMinor: 25 },
      minAmount: { currency: 'EUR', valueMinor: 10 },
      maxAmount: { currency: 'EUR', valueMinor: 1000 },
    });
    const minor = await schedule('--fixed-minor', '25', '--min-minor', '10', '--max-minor', '1000');
    expect(minor.json().rules).toEqual(major.json().rules);

    const updated = await cli(
      'fee-schedules',
      'update',
      major.json().id,
      '--transaction-type',
      'payment',
      '--method',
      'fixed',
      '--currency',
      'JPY',
      '--fixed',
      '30',
      '--json',
    );
    expect(updated.json().rules[0].fixedAmount).toEqual({ currency: 'JPY', valueMinor: 30 });
    const shown = await cli('fee-schedules', 'get', minor.json().id);
    expect(shown.stdout).toMatch(/0\.25 EUR.*0\.10 EUR.*10\.00 EUR/);

    expect(
      await refusals([
        schedule('--fixed', '0.255'),
        schedule('--min', '0.1', '--min-minor', '10'),
        schedule('--max', '1.001'),
        cli(
          'fee-schedules',
          'create',
          '--name',
          'No currency',
          '--transaction-type',
          'payment',
          '--method',
          'fixed',
          '--fixed',
          '1.00',
          '--json',
        ),
      ]),
    ).toEqual([
      [2, '--fixed'],
      [2, '--min'],
      [2, '--max'],
      [2, '--fixed'],
    ]);
  });

  test('routing conditions: --min-amount and --max-amount in --amount-currency, else the one currency of --currencies', async () => {
    const terminals = (await cli('terminals', 'list', '--tenant', t.sandbox.tenantId, '--json')).json().data as {
      id: string;
      direction: string;
    }[];
    const payin = terminals.find((x) => x.direction === 'payin')!.id;
    const rule = (...args: string[]) =>
      cli('routing-rules', 'create', '--tenant', t.sandbox.tenantId, '--name', 'Amounts', '--terminals', payin, ...args, '--json');
    const major = await rule('--currencies', 'EUR', '--min-amount', '10.00', '--max-amount', '500');
    expect(major.status).toBe(0);
    expect(major.json().conditions.amount).toEqual({ currency: 'EUR', min: 1000, max: 50000 });
    const minor = await rule(
      '--currencies',
      'EUR',
      '--amount-currency',
      'EUR',
      '--min-amount-minor',
      '1000',
      '--max-amount-minor',
      '50000',
    );
    expect(minor.json().conditions).toEqual(major.json().conditions);
    const shown = await cli('routing-rules', 'get', major.json().id);
    expect(shown.stdout).toMatch(/amount 10\.00 EUR to 500\.00 EUR/);

    const issues = await Promise.all([
      rule('--amount-currency', 'EUR', '--min-amount', '10.001'),
      rule('--amount-currency', 'JPY', '--max-amount', '1.5'),
      rule('--currencies', 'EUR,USD', '--min-amount', '10'),
      rule('--amount-currency', 'EUR', '--max-amount', '5', '--max-amount-minor', '500'),
    ]);
    expect(issues.map((r) => [r.status, r.json().error.errors[0].path])).toEqual([
      [2, '--min-amount'],
      [2, '--max-amount'],
      [2, '--min-amount'],
      [2, '--max-amount'],
    ]);
    expect(issues[2].json().error.errors[0].message).toMatch(/--amount-currency/);
  });

  test('volume limits: --threshold in --currency (count stays a number of transactions)', async () => {
    const limit = (...args: string[]) =>
      cli('limits', 'create', '--merchant', t.sandbox.merchantId, '--period-unit', 'day', ...args, '--json');
    const major = await limit('--metric', 'volume', '--currency', 'EUR', '--threshold', '1000.00');
    expect(major.status).toBe(0);
    expect(major.json()).toMatchObject({ metric: 'volume', threshold: 100_000, currency: 'EUR' });
    const minor = await limit('--metric', 'volume', '--currency', 'EUR', '--threshold-minor', '100000');
    const record = (l: Record<string, unknown>) => ({ ...l, id: undefined, createdAt: undefined, updatedAt: undefined });
    expect(record(minor.json())).toEqual(record(major.json()));
    const table = await cli('limits', 'list', '--merchant', t.sandbox.merchantId);
    expect(table.stdout).toMatch(/volume\s*│\s*1000\.00 EUR/);

    expect(
      await refusals([
        limit('--metric', 'volume', '--currency', 'EUR', '--threshold', '1000.001'),
        limit('--metric', 'volume', '--currency', 'EUR', '--threshold', '1', '--threshold-minor', '100'),
        limit('--metric', 'count', '--threshold', '2.5'),
        limit('--metric', 'count', '--threshold-minor', '5'),
      ]),
    ).toEqual([
      [2, '--threshold'],
      [2, '--threshold'],
      [2, '--threshold'],
      [2, '--threshold-minor'],
    ]);
  });

  test('partner commissions: --fixed-amount in --fixed-currency (create and update)', async () => {
    const partner = (await cli('partners', 'create', '--tenant', t.sandbox.tenantId, '--name', 'Amounts', '--json')).json();
    const major = await cli(
      'partners',
      'assignments',
      'create',
      '--partner',
      partner.id,
      '--merchant',
      t.sandbox.merchantId,
      '--commission-rate',
      '1000',
      '--fixed-amount',
      '0.10',
      '--fixed-currency',
      'EUR',
      '--json',
    );
    expect(major.status).toBe(0);
    expect(major.json().commissionFixed).toEqual({ currency: 'EUR', valueMinor: 10 });
    const minor = await cli(
      'partners',
      'assignments',
      'update',
      major.json().id,
      '--fixed-amount-minor',
      '10',
      '--fixed-currency',
      'EUR',
      '--json',
    );
    expect({ ...minor.json(), updatedAt: undefined }).toEqual({ ...major.json(), updatedAt: undefined });
    const shown = await cli('partners', 'assignments', 'get', major.json().id);
    expect(shown.stdout).toMatch(/commissionFixed\s*0\.10 EUR/);

    const update = (...args: string[]) => cli('partners', 'assignments', 'update', major.json().id, ...args, '--json');
    expect(
      await refusals([
        update('--fixed-amount', '0.101', '--fixed-currency', 'EUR'),
        update('--fixed-amount', '0.10'),
        update('--fixed-amount', '0.10', '--fixed-amount-minor', '10', '--fixed-currency', 'EUR'),
      ]),
    ).toEqual([
      [2, '--fixed-amount'],
      [2, '--fixed-amount'],
      [2, '--fixed-amount'],
    ]);
  });

  // issue 32 item 5: a message about money names formatted amounts with their currency, as the flags take them
  test('messages about money name formatted amounts: refunds create --amount 1000 on a 25.00 EUR payment, a capture beyond the authorized', async () => {
    const trigger = async (type: string) => {
      const res = await cli('events', 'trigger', type, '--tenant', t.sandbox.tenantId, '--merchant', t.sandbox.merchantId, '--json');
      expect(res.status).toBe(0);
      return res.json().paymentId as string;
    };
    const paid = await trigger('payment.succeeded');
    const refund = await cli('refunds', 'create', paid, '--amount', '1000');
    expect(refund.status).toBe(6);
    expect(refund.stderr).toContain('Refund of 1000.00 EUR exceeds what remains refundable (25.00 EUR, pending refunds included).');
    expect(refund.stderr).not.toMatch(/100000|\b2500\b/);
    const json = await cli('refunds', 'create', paid, '--amount-minor', '2501', '--json');
    expect(json.json().error).toMatchObject({
      code: 'REFUND_EXCEEDS_REFUNDABLE',
      message: 'Refund of 25.01 EUR exceeds what remains refundable (25.00 EUR, pending refunds included).',
    });

    const authorized = await trigger('payment.requires_capture');
    const capture = await cli('payments', 'capture', authorized, '--amount', '25.01', '--json');
    expect(capture.status).toBe(6);
    expect(capture.json().error).toMatchObject({
      code: 'CAPTURE_EXCEEDS_AUTHORIZED',
      message: 'Capture of 25.01 EUR exceeds the authorized 25.00 EUR.',
    });
  }, 120_000);

  const onTerminal = testWhenPresent('the terminal test', hasScript() ? null : 'no `script` command (bsdutils)');

  /** Runs the binary on a pseudo-terminal (`script`), answers `answer` to the prompt that contains `question`. */
  async function answered(command: string, question: string, answer: string): Promise<{ status: number | null; out: string }> {
    const run = await runOnTerminal(command.split(' '), {
      env: { ...t.env, COLUMNS: '120' },
      steps: [{ waitFor: question, keys: `${answer}\r` }],
    });
    return { status: run.status, out: run.output };
  }

  onTerminal(
    'on a terminal the prompt for a missing --amount takes 25.00 as 25.00 EUR',
    async () => {
      const { status, out } = await answered(
        `fees quote --tenant ${t.sandbox.tenantId} --merchant ${t.sandbox.merchantId} --currency EUR`,
        'Amount in EUR',
        '25.00',
      );
      expect(out).toContain('Amount in EUR (e.g. 25.00)');
      expect(status).toBe(0);
      expect(out).toMatch(/amount\s*│?\s*25\.00 EUR/);
    },
    60_000,
  );

  onTerminal(
    'on a terminal the prompt for a missing volume --threshold takes 500.00 as 500.00 EUR',
    async () => {
      const { status, out } = await answered(
        `limits create --merchant ${t.sandbox.merchantId} --period-unit hour --metric volume --currency EUR`,
        'Threshold in EUR',
        '500.00',
      );
      expect(out).toContain('Threshold in EUR (e.g. 1000.00)');
      expect(status).toBe(0);
      expect(out).toMatch(/threshold\s*500\.00 EUR/);
    },
    60_000,
  );
});
