import { spawn, spawnSync } from 'node:child_process';
import { BIN, ROOT, useCliSandbox } from '../helpers/cli';
import { testWhenPresent } from '../helpers/prerequisite';
import { dialectName } from '../helpers/db';

// Issue 24, item 5: every --amount reads the same way (25.00 in the currency's major units; --amount-minor for
// minor units), its prompt too, and outputs show formatted amounts.

const t = useCliSandbox();
const cli = t.cli;

describe(`one unit for every amount (${dialectName})`, () => {
  test('fees quote and routing-rules decide read --amount 25.00 as 2500 minor units, as refunds and capture do', async () => {
    const major = await cli('fees', 'quote', '--tenant', t.sandbox.tenantId, '--merchant', t.sandbox.merchantId, '--amount', '25.00', '--currency', 'EUR', '--json');
    expect(major.status).toBe(0);
    expect(major.json()).toMatchObject({ amount: 2500, currency: 'EUR' });
    const minor = await cli('fees', 'quote', '--tenant', t.sandbox.tenantId, '--merchant', t.sandbox.merchantId, '--amount-minor', '2500', '--currency', 'EUR', '--json');
    expect(minor.json()).toEqual(major.json());
    const yen = await cli('fees', 'quote', '--tenant', t.sandbox.tenantId, '--merchant', t.sandbox.merchantId, '--amount', '1500', '--currency', 'JPY', '--json');
    expect(yen.json()).toMatchObject({ amount: 1500, currency: 'JPY' });
    const decide = await cli('routing-rules', 'decide', '--merchant', t.sandbox.merchantId, '--amount', '25.00', '--currency', 'EUR', '--brand', 'visa', '--json');
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
    const table = await cli('fees', 'quote', '--tenant', t.sandbox.tenantId, '--merchant', t.sandbox.merchantId, '--amount', '25.00', '--currency', 'EUR');
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/amount\s*│?\s*25\.00 EUR/);
    expect(table.stdout).not.toMatch(/minor units/);
  });

  const hasScript = spawnSync('script', ['--version']).status === 0;
  testWhenPresent('the terminal test', hasScript ? null : 'no `script` command (bsdutils)')('on a terminal the prompt for a missing --amount takes 25.00 as 25.00 EUR', async () => {
    const child = spawn('script', ['-qec', `${process.execPath} ${BIN} fees quote --tenant ${t.sandbox.tenantId} --merchant ${t.sandbox.merchantId} --currency EUR`, '/dev/null'], {
      cwd: ROOT, env: { ...process.env, ...t.env, NO_COLOR: '1', COLUMNS: '120' },
    });
    let out = '';
    let answered = false;
    child.stdout.on('data', (d) => {
      out += d;
      if (!answered && out.includes('Amount in EUR')) {
        answered = true;
        child.stdin.write('25.00\r');
      }
    });
    const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(out).toContain('Amount in EUR (e.g. 25.00)');
    expect(status).toBe(0);
    expect(out).toMatch(/amount\s*│?\s*25\.00 EUR/);
  }, 60_000);
});
