import { useCliSandbox } from '../helpers/cli';
import { dialectName } from '../helpers/db';

// payplane balances thresholds list|create|delete (issue 23, part 4): the built binary on one sandbox.

jest.setTimeout(180_000);

const s = useCliSandbox();
const OTHER = '00000000-0000-4000-8000-000000000000';

describe(`payplane balances thresholds (${dialectName})`, () => {
  let id: string;

  test('help lists the commands with examples', async () => {
    const [topic, create] = await Promise.all([
      s.cli('balances', 'thresholds', '--help'),
      s.cli('balances', 'thresholds', 'create', '--help'),
    ]);
    for (const cmd of ['list', 'create', 'delete']) expect(topic.stdout).toContain(`balances thresholds ${cmd}`);
    expect(create.stdout).toContain('EXAMPLES');
    expect(create.stdout).toContain('--amount-minor');
  });

  test('create: the amount in major units of --currency, or --amount-minor; --json is the API record', async () => {
    const { tenantId, merchantId } = s.sandbox;
    const made = await s.cli(
      'balances',
      'thresholds',
      'create',
      '--tenant',
      tenantId,
      '--merchant',
      merchantId,
      '--currency',
      'EUR',
      '--balance-type',
      'available',
      '--direction',
      'above',
      '--amount',
      '1234.50',
      '--json',
    );
    expect(made.status).toBe(0);
    expect(made.json()).toMatchObject({
      merchantId,
      tenantId,
      livemode: false,
      currency: 'EUR',
      balanceType: 'available',
      direction: 'above',
      amount: { currency: 'EUR', valueMinor: 123_450 },
      crossed: false,
    });
    id = made.json().id;
    const minor = await s.cli(
      'balances',
      'thresholds',
      'create',
      '--tenant',
      tenantId,
      '--merchant',
      merchantId,
      '--currency',
      'JPY',
      '--balance-type',
      'pending',
      '--direction',
      'below',
      '--amount-minor',
      '500',
    );
    expect(minor.status).toBe(0);
    expect(minor.stdout).toMatch(/amount +500 JPY\n/);
  });

  test('bad input is a usage error (exit 2) naming the flag', async () => {
    const { tenantId, merchantId } = s.sandbox;
    const base = [
      'balances',
      'thresholds',
      'create',
      '--tenant',
      tenantId,
      '--merchant',
      merchantId,
      '--balance-type',
      'available',
      '--direction',
      'above',
    ];
    const cases: [string[], string][] = [
      [[...base, '--currency', 'EUR', '--amount', '1.234'], '--amount'],
      [[...base, '--currency', 'EUR', '--amount', '0'], '--amount'],
      [[...base, '--currency', 'EUR', '--amount-minor', '0'], '--amount-minor'],
      [[...base, '--currency', 'EUR', '--amount', '5', '--amount-minor', '500'], '--amount'],
      [[...base, '--currency', 'XQQ', '--amount-minor', '500'], '--currency'],
      [[...base, '--currency', 'EUR'], '--amount'],
      [
        [
          'balances',
          'thresholds',
          'create',
          '--tenant',
          tenantId,
          '--currency',
          'EUR',
          '--balance-type',
          'available',
          '--direction',
          'above',
          '--amount',
          '5',
          '--merchant',
          'nope',
        ],
        '--merchant',
      ],
    ];
    for (const [argv, flag] of cases) {
      const res = await s.cli(...argv, '--json');
      expect([argv.join(' '), res.status]).toEqual([argv.join(' '), 2]);
      expect(res.json().error.errors.map((e: { path: string }) => e.path)).toContain(flag);
    }
    const badEnum = await s.cli(
      ...base.slice(0, -4),
      '--balance-type',
      'reserved',
      '--direction',
      'above',
      '--currency',
      'EUR',
      '--amount',
      '5',
    );
    expect(badEnum.status).toBe(2);
    expect(badEnum.stderr).toContain('balance-type');
  });

  test('list: a table with formatted amounts, filters, --json', async () => {
    const { tenantId, merchantId } = s.sandbox;
    const table = await s.cli('balances', 'thresholds', 'list', '--tenant', tenantId);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/Currency/);
    expect(table.stdout).toContain('1234.50 EUR');
    const json = await s.cli(
      'balances',
      'thresholds',
      'list',
      '--tenant',
      tenantId,
      '--merchant',
      merchantId,
      '--currency',
      'EUR',
      '--json',
    );
    expect(json.status).toBe(0);
    expect(json.json().data.map((t: { id: string }) => t.id)).toEqual([id]);
    const none = await s.cli('balances', 'thresholds', 'list', '--tenant', tenantId, '--direction', 'below', '--currency', 'EUR');
    expect(none.stdout).toContain('No balance thresholds.');
    expect((await s.cli('balances', 'thresholds', 'list', '--tenant', tenantId, '--live', '--json')).json().data).toEqual([]);
  });

  test("delete: asks for confirmation or --yes; another merchant's or tenant's scope is not found (exit 4)", async () => {
    const { tenantId, merchantId } = s.sandbox;
    const unconfirmed = await s.cli('balances', 'thresholds', 'delete', id, '--tenant', tenantId, '--json');
    expect(unconfirmed.status).toBe(2);
    for (const scope of [
      ['--tenant', OTHER],
      ['--tenant', tenantId, '--merchant', OTHER],
    ]) {
      const other = await s.cli('balances', 'thresholds', 'delete', id, ...scope, '--yes', '--json');
      expect(other.status).toBe(4);
      expect(other.json().error.code).toBe('RESOURCE_NOT_FOUND');
    }
    const deleted = await s.cli('balances', 'thresholds', 'delete', id, '--tenant', tenantId, '--merchant', merchantId, '--yes');
    expect(deleted.status).toBe(0);
    expect(deleted.stdout).toMatch(/Balance threshold available above 1234.50 EUR \(.*\) is deleted/);
    const again = await s.cli('balances', 'thresholds', 'delete', id, '--tenant', tenantId, '--yes', '--json');
    expect(again.status).toBe(4);
  });
});
