import { dialectName } from '../helpers/db';
import { hasScript, runOnTerminal, useCliSandbox } from '../helpers/cli';
import { testWhenPresent } from '../helpers/prerequisite';

/**
 * payplane withdrawal-methods: the catalog, create (flags, and prompts on a terminal with the IBAN typed unechoed),
 * list as a table and as JSON, get, update, suspend/reactivate, delete with confirmation; problems name the flags.
 * No output ever holds a full IBAN or account number.
 */

jest.setTimeout(180_000);

const s = useCliSandbox();
const cli = s.cli;

const IBAN = 'NL91ABNA0417164300';
const IBAN_2 = 'ES9121000418450200051332';
const ACCOUNT = '000123456789';
const SECRETS = [IBAN, IBAN_2, ACCOUNT, 'ABNA 0417 1643', '0417164300'];

afterAll(async () => {
  for (const out of s.outputs) for (const secret of SECRETS) expect(out.stdout + out.stderr).not.toContain(secret);
});

describe(`payplane withdrawal-methods (${dialectName})`, () => {
  let id: string;

  test('help lists the commands with examples', async () => {
    const [topic, create] = await Promise.all([cli('withdrawal-methods', '--help'), cli('withdrawal-methods', 'create', '--help')]);
    for (const cmd of ['types', 'list', 'get', 'create', 'update', 'delete', 'suspend', 'reactivate'])
      expect(topic.stdout).toContain(`withdrawal-methods ${cmd}`);
    expect(create.stdout).toContain('EXAMPLES');
    expect(create.stdout).toContain('--detail');
  });

  test("types shows the catalog as a table, and as the API's records with --json", async () => {
    const table = await cli('withdrawal-methods', 'types');
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/bank_account .*any .*iban, accountHolderName/);
    expect(table.stdout).toMatch(
      /us_bank_account .*USD .*routingNumber, accountNumber, accountHolderName .*accountType \(checking\|savings\)/,
    );
    const json = (await cli('withdrawal-methods', 'types', '--json')).json();
    expect(json.data.map((t: { type: string }) => t.type)).toEqual(['bank_account', 'us_bank_account']);
    expect(json.data[0].details[0]).toEqual({ key: 'iban', label: 'IBAN', required: true, format: 'iban', masked: true });
  });

  test('create with flags: cooling, details masked; bad details are exit 2 naming each --detail key', async () => {
    const res = await cli(
      'withdrawal-methods',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--merchant',
      s.sandbox.merchantId,
      '--type',
      'bank_account',
      '--label',
      'Main account',
      '--detail',
      'iban=nl91 ABNA 0417 1643 00',
      '--detail',
      'accountHolderName=Jane Doe',
      '--json',
    );
    expect(res.status).toBe(0);
    const method = res.json();
    expect(method).toMatchObject({
      tenantId: s.sandbox.tenantId,
      merchantId: s.sandbox.merchantId,
      livemode: false,
      methodType: 'bank_account',
      label: 'Main account',
      status: 'cooling',
      details: { iban: `${'•'.repeat(14)}4300`, accountHolderName: 'Jane Doe' },
    });
    expect(Date.parse(method.activatesAt) - Date.parse(method.createdAt)).toBe(24 * 3_600_000);
    id = method.id;

    const bad = await cli(
      'withdrawal-methods',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--merchant',
      s.sandbox.merchantId,
      '--type',
      'bank_account',
      '--label',
      'Bad',
      '--detail',
      'iban=NL91ABNA0417164301',
      '--detail',
      'nickname=x',
      '--json',
    );
    expect(bad.status).toBe(2);
    expect(
      bad
        .json()
        .error.errors.map((e: { path: string }) => e.path)
        .sort(),
    ).toEqual(['--detail.accountHolderName', '--detail.iban', '--detail.nickname']);
    const malformed = await cli(
      'withdrawal-methods',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--merchant',
      s.sandbox.merchantId,
      '--type',
      'bank_account',
      '--label',
      'x',
      '--detail',
      'iban',
      '--json',
    );
    expect(malformed.status).toBe(2);
    expect(malformed.json().error.errors).toEqual([{ path: '--detail', message: expect.stringMatching(/key=value/) }]);
    const unknown = await cli(
      'withdrawal-methods',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--merchant',
      s.sandbox.merchantId,
      '--type',
      'cash',
      '--label',
      'x',
      '--json',
    );
    expect(unknown.status).toBe(2);
    expect(unknown.json().error.errors[0].path).toBe('--type');
    // without a terminal, a missing flag is an error naming it
    const missing = await cli(
      'withdrawal-methods',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--type',
      'bank_account',
      '--label',
      'x',
      '--json',
    );
    expect(missing.status).toBe(2);
    expect(missing.json().error).toMatchObject({ code: 'MISSING_FLAG', errors: [{ path: '--merchant' }] });
  });

  test('a US bank account too; list as a table shows masked details only; filters', async () => {
    const us = await cli(
      'withdrawal-methods',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--merchant',
      s.sandbox.merchantId,
      '--type',
      'us_bank_account',
      '--label',
      'ACH',
      '--detail',
      'routingNumber=021000021',
      '--detail',
      `accountNumber=${ACCOUNT}`,
      '--detail',
      'accountHolderName=Jane Doe',
      '--json',
    );
    expect(us.status).toBe(0);
    expect(us.json().details.accountNumber).toBe('••••••••6789');
    const table = await cli('withdrawal-methods', 'list', '--tenant', s.sandbox.tenantId);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain('Main account');
    expect(table.stdout).toContain(`iban ${'•'.repeat(14)}4300`);
    expect(table.stdout).toContain('accountNumber ••••••••6789');
    expect(table.stdout).toContain('2 of 2');
    const filtered = (
      await cli(
        'withdrawal-methods',
        'list',
        '--tenant',
        s.sandbox.tenantId,
        '--type',
        'us_bank_account',
        '--merchant',
        s.sandbox.merchantId,
        '--json',
      )
    ).json();
    expect(filtered.data.map((m: { label: string }) => m.label)).toEqual(['ACH']);
    expect((await cli('withdrawal-methods', 'list', '--tenant', s.sandbox.tenantId, '--status', 'active', '--json')).json().data).toEqual(
      [],
    );
    // live mode holds none of the sandbox's methods
    expect((await cli('withdrawal-methods', 'list', '--tenant', s.sandbox.tenantId, '--live', '--json')).json().data).toEqual([]);
    const badFilter = await cli('withdrawal-methods', 'list', '--tenant', s.sandbox.tenantId, '--merchant', 'nope', '--json');
    expect(badFilter.status).toBe(2);
    expect(badFilter.json().error.errors[0].path).toBe('--merchant');
  });

  test('get, update (label keeps cooling as it is; new details restart it), suspend and reactivate', async () => {
    const got = await cli('withdrawal-methods', 'get', id, '--tenant', s.sandbox.tenantId);
    expect(got.status).toBe(0);
    expect(got.stdout).toMatch(/status +cooling/);
    expect(got.stdout).toContain('••••4300');
    const before = (await cli('withdrawal-methods', 'get', id, '--tenant', s.sandbox.tenantId, '--json')).json();

    const labelled = (await cli('withdrawal-methods', 'update', id, '--tenant', s.sandbox.tenantId, '--label', 'Salary', '--json')).json();
    expect(labelled).toMatchObject({ label: 'Salary', status: 'cooling', activatesAt: before.activatesAt, details: before.details });
    const moved = (
      await cli(
        'withdrawal-methods',
        'update',
        id,
        '--tenant',
        s.sandbox.tenantId,
        '--detail',
        `iban=${IBAN_2}`,
        '--detail',
        'accountHolderName=Jane Doe',
        '--json',
      )
    ).json();
    expect(moved).toMatchObject({ status: 'cooling', details: { iban: `${'•'.repeat(20)}1332`, accountHolderName: 'Jane Doe' } });
    expect(Date.parse(moved.activatesAt)).toBeGreaterThanOrEqual(Date.parse(before.activatesAt));
    const nothing = await cli('withdrawal-methods', 'update', id, '--tenant', s.sandbox.tenantId, '--json');
    expect(nothing.status).toBe(2);

    // suspend asks for confirmation: without a terminal, --yes is required
    const unconfirmed = await cli('withdrawal-methods', 'suspend', id, '--tenant', s.sandbox.tenantId, '--json');
    expect(unconfirmed.status).toBe(2);
    expect(unconfirmed.json().error.code).toBe('CONFIRMATION_REQUIRED');
    expect((await cli('withdrawal-methods', 'suspend', id, '--tenant', s.sandbox.tenantId, '--yes', '--json')).json().status).toBe(
      'suspended',
    );
    const again = await cli('withdrawal-methods', 'suspend', id, '--tenant', s.sandbox.tenantId, '--yes', '--json');
    expect(again.status).toBe(5);
    expect(again.json().error.code).toBe('INVALID_STATE_TRANSITION');
    const reactivated = await cli('withdrawal-methods', 'reactivate', id, '--tenant', s.sandbox.tenantId);
    expect(reactivated.status).toBe(0);
    expect(reactivated.stdout).toMatch(/status +cooling/);
  });

  test('delete asks for confirmation; afterwards the method is 404 (exit 4)', async () => {
    const unconfirmed = await cli('withdrawal-methods', 'delete', id, '--tenant', s.sandbox.tenantId, '--json');
    expect(unconfirmed.status).toBe(2);
    const deleted = await cli('withdrawal-methods', 'delete', id, '--tenant', s.sandbox.tenantId, '--yes');
    expect(deleted.status).toBe(0);
    expect(deleted.stdout).toContain('is deleted');
    const gone = await cli('withdrawal-methods', 'get', id, '--tenant', s.sandbox.tenantId, '--json');
    expect(gone.status).toBe(4);
    expect(gone.json().error.code).toBe('RESOURCE_NOT_FOUND');
    // another tenant's id, or no such tenant
    expect((await cli('withdrawal-methods', 'list', '--tenant', '00000000-0000-4000-8000-000000000000', '--json')).status).toBe(4);
  });

  testWhenPresent('the prompt test', hasScript() ? null : 'no `script` command (bsdutils)')(
    'on a terminal, create asks for the missing required details; the IBAN is typed without echo',
    async () => {
      const args = [
        'withdrawal-methods',
        'create',
        '--tenant',
        s.sandbox.tenantId,
        '--merchant',
        s.sandbox.merchantId,
        '--type',
        'bank_account',
        '--label',
        'Typed',
      ];
      // each answer is typed once its prompt shows; the run fails if one never does
      const run = await runOnTerminal(args, {
        env: s.env,
        steps: [
          { waitFor: 'IBAN (iban)', keys: `${IBAN}\r` },
          { waitFor: 'Account holder name (accountHolderName)', keys: 'Jane Typed\r' },
        ],
      });
      const output = { code: run.status, text: run.output };
      s.outputs.push({
        status: output.code ?? 1,
        stdout: output.text,
        stderr: '',
        json: () => {
          throw new Error('an interactive run prints no JSON');
        },
      });
      expect(output.code).toBe(0);
      expect(output.text).toMatch(/label +Typed/);
      expect(output.text).toContain(`iban ${'•'.repeat(14)}4300, accountHolderName Jane Typed`);
      expect(output.text).toMatch(/status +cooling/);
    },
  );
});
