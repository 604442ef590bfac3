import fs from 'node:fs';
import path from 'node:path';
import { withRuntimeOf, dialectName } from '../helpers/db';
import { useCliSandbox } from '../helpers/cli';
import { operatorContext } from '../../src/services/access/operators';
import { createTerminal } from '../../src/services/processing/terminals/terminals';
import { decideRoute, type RoutingInput } from '../../src/services/routing/decide';

const CARD = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';
const MISSING = '00000000-0000-4000-8000-000000000000';

const s = useCliSandbox();
const cli = s.cli;
let t1: string;
let t2: string;

beforeAll(async () => {
  await withRuntimeOf(s.db, async (rt) => {
    const op = operatorContext(rt, { level: 'tenant', tenantId: s.sandbox.tenantId, livemode: false });
    const base = { providerIntegrationId: CARD, credentials: { merchantAccount: 'acct', apiKey: 'key' } };
    t1 = (
      await createTerminal(op, { ...base, name: 'CLI T1', supportedCurrencies: ['EUR', 'USD'], supportedBrands: ['visa', 'mastercard'] })
    ).id;
    t2 = (await createTerminal(op, { ...base, name: 'CLI T2', supportedCurrencies: ['EUR'] })).id;
  });
});

describe(`payplane routing-rules (${dialectName})`, () => {
  let v1: { id: string };
  let v2: { id: string };
  let splitId: string;

  test('create from flags, a JSON file and inline JSON; invalid input names the flag', async () => {
    const created = await cli(
      'routing-rules',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--name',
      'EU visa',
      '--currencies',
      'EUR',
      '--brands',
      'visa,mastercard',
      '--min-amount',
      '1.00',
      '--amount-currency',
      'EUR',
      '--terminals',
      `${t2},${t1}`,
      '--priority',
      '10',
      '--json',
    );
    expect(created.status).toBe(0);
    v1 = created.json();
    expect(v1).toMatchObject({
      ruleId: v1.id,
      version: 1,
      tenantId: s.sandbox.tenantId,
      name: 'EU visa',
      status: 'draft',
      priority: 10,
      conditions: {
        amount: { currency: 'EUR', min: 100, max: null },
        currencies: ['EUR'],
        brands: ['visa', 'mastercard'],
        paymentMethods: null,
        merchantIds: null,
      },
      outcome: { type: 'priority', terminals: [t2, t1] },
    });

    // conditions from a file, outcome inline; a split from flags
    const file = path.join(s.db.home, 'conditions.json');
    fs.writeFileSync(file, JSON.stringify({ merchantIds: [s.sandbox.merchantId], cardCountries: ['DE'] }));
    const fromJson = await cli(
      'routing-rules',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--name',
      'From JSON',
      '--conditions-json',
      file,
      '--outcome-json',
      JSON.stringify({ type: 'priority', terminals: [t1] }),
      '--json',
    );
    expect(fromJson.status).toBe(0);
    expect(fromJson.json().conditions).toMatchObject({ merchantIds: [s.sandbox.merchantId], cardCountries: ['DE'] });
    const split = await cli(
      'routing-rules',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--name',
      'A/B',
      '--split',
      `${t1}:70,${t2}:30`,
      '--json',
    );
    expect(split.json().outcome).toEqual({
      type: 'split',
      splits: [
        { terminalId: t1, weight: 70 },
        { terminalId: t2, weight: 30 },
      ],
    });

    // invalid input names the flag; references outside the tenant name the field
    const [zero, badJson, both, missing, currency] = await Promise.all([
      cli('routing-rules', 'create', '--tenant', s.sandbox.tenantId, '--name', 'Bad', '--split', `${t1}:0`, '--json'),
      cli(
        'routing-rules',
        'create',
        '--tenant',
        s.sandbox.tenantId,
        '--name',
        'Bad',
        '--conditions-json',
        '{nope',
        '--terminals',
        t1,
        '--json',
      ),
      cli('routing-rules', 'create', '--tenant', s.sandbox.tenantId, '--name', 'Bad', '--terminals', t1, '--split', `${t1}:1`, '--json'),
      cli('routing-rules', 'create', '--tenant', s.sandbox.tenantId, '--name', 'Bad', '--terminals', MISSING, '--json'),
      cli('routing-rules', 'create', '--tenant', s.sandbox.tenantId, '--name', 'Bad', '--currencies', 'eur', '--terminals', t1, '--json'),
    ]);
    expect(zero.status).toBe(2);
    expect(zero.json().error.errors).toEqual([{ path: '--split.splits[0].weight', message: 'must be a positive integer' }]);
    expect(badJson.status).toBe(2);
    expect(badJson.json().error.errors[0].path).toBe('--conditions-json');
    expect(both.status).toBe(2);
    expect(both.json().error.errors[0].path).toBe('--split');
    expect(missing.status).toBe(2);
    // looked up as the API looks it up (src/cli/validate.ts validateInput), the refusal naming the flag
    expect(missing.json().error.errors).toEqual([{ path: '--terminals.terminals[0]', message: 'no such terminal' }]);
    expect(currency.json().error.errors.map((e: { path: string }) => e.path)).toEqual(['--conditions-json.currencies[0]']);
    splitId = split.json().id;
  });

  test('update a draft; activate, clone, versions; illegal moves exit 5', async () => {
    const updated = await cli('routing-rules', 'update', v1.id, '--name', 'EU cards', '--json');
    expect(updated.status).toBe(0);
    expect(updated.json()).toMatchObject({ name: 'EU cards', conditions: { currencies: ['EUR'] } });
    expect((await cli('routing-rules', 'activate', v1.id, '--json')).json().status).toBe('active');
    const refused = await cli('routing-rules', 'update', v1.id, '--name', 'again', '--json');
    expect(refused.status).toBe(5);
    expect(refused.json().error).toMatchObject({ code: 'ROUTING_RULE_NOT_DRAFT', status: 409 });
    expect((await cli('routing-rules', 'activate', v1.id, '--json')).json().error.code).toBe('INVALID_STATE_TRANSITION');

    const clone = await cli('routing-rules', 'clone', v1.id, '--json');
    expect(clone.status).toBe(0);
    v2 = clone.json();
    expect(v2).toMatchObject({ ruleId: v1.id, version: 2, status: 'draft', name: 'EU cards' });
    await cli('routing-rules', 'update', v2.id, '--terminals', t1, '--json');
    expect((await cli('routing-rules', 'activate', v2.id, '--json')).json()).toMatchObject({
      status: 'active',
      outcome: { terminals: [t1] },
    });
    expect((await cli('routing-rules', 'get', v1.id, '--json')).json().status).toBe('archived');
    const versions = await cli('routing-rules', 'versions', v1.id, '--json');
    expect(versions.json().data.map((r: { version: number; status: string }) => [r.version, r.status])).toEqual([
      [2, 'active'],
      [1, 'archived'],
    ]);
    const table = await cli('routing-rules', 'versions', v2.id);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain('EU cards');
    expect(table.stdout).toMatch(/2 of 2/);
    const shown = await cli('routing-rules', 'get', v2.id);
    expect(shown.stdout).toContain(`priority: ${t1}`);
    expect(shown.stdout).toMatch(/currency in EUR/);
    expect(shown.stdout).toMatch(/amount at least 1\.00 EUR/);
  });

  test("decide prints the engine's decision; archive and delete; lists filter", async () => {
    // the decision of the dry run is the engine's for the same input
    const at = new Date(Date.now() + 60_000).toISOString();
    const decide = await cli(
      'routing-rules',
      'decide',
      '--merchant',
      s.sandbox.merchantId,
      '--amount',
      '50.00',
      '--currency',
      'EUR',
      '--brand',
      'visa',
      '--at',
      at,
      '--json',
    );
    expect(decide.status).toBe(0);
    const input: RoutingInput = {
      merchantId: s.sandbox.merchantId,
      amount: { currency: 'EUR', valueMinor: 5000 },
      paymentMethod: 'card',
      brand: 'visa',
      cardCountry: null,
      channelId: null,
      transactionType: 'payment',
      at: new Date(at),
    };
    const expected = await withRuntimeOf(s.db, (rt) =>
      decideRoute(operatorContext(rt, { level: 'tenant', tenantId: s.sandbox.tenantId, livemode: false }), input),
    );
    expect(decide.json()).toEqual(expected);
    expect(expected).toMatchObject({ ruleId: v1.id, ruleVersionId: v2.id, version: 2, strategy: 'priority', terminals: [t1] });
    const decideTable = await cli(
      'routing-rules',
      'decide',
      '--merchant',
      s.sandbox.merchantId,
      '--amount',
      '50.00',
      '--currency',
      'USD',
      '--brand',
      'amex',
    );
    expect(decideTable.status).toBe(0);
    expect(decideTable.stdout).toMatch(/brand_not_supported/);
    expect(decideTable.stdout).toMatch(/default order/);
    const badDecide = await cli(
      'routing-rules',
      'decide',
      '--merchant',
      s.sandbox.merchantId,
      '--amount',
      '50.00',
      '--currency',
      'euro',
      '--json',
    );
    expect(badDecide.status).toBe(2);
    expect(badDecide.json().error.errors[0].path).toBe('--currency');

    const archived = await cli('routing-rules', 'archive', v2.id, '--yes', '--json');
    expect(archived.json()).toMatchObject({ id: v2.id, status: 'archived' });
    expect((await cli('routing-rules', 'archive', v2.id, '--yes', '--json')).status).toBe(5);
    expect((await cli('routing-rules', 'delete', v1.id, '--yes', '--json')).json().error.code).toBe('ROUTING_RULE_NOT_DRAFT');
    const deleted = await cli('routing-rules', 'delete', splitId, '--yes', '--json');
    expect(deleted.json()).toMatchObject({ id: splitId, deletedAt: expect.any(String) });
    expect((await cli('routing-rules', 'get', splitId, '--json')).status).toBe(4);

    const listed = await cli('routing-rules', 'list', '--tenant', s.sandbox.tenantId, '--status', 'archived', '--json');
    expect(
      listed
        .json()
        .data.map((r: { id: string }) => r.id)
        .sort(),
    ).toEqual([v1.id, v2.id].sort());
    expect((await cli('routing-rules', 'list', '--name', 'json', '--json')).json().data.map((r: { name: string }) => r.name)).toEqual([
      'From JSON',
    ]);
    const plain = await cli('routing-rules', 'list', '--rule', v1.id);
    expect(plain.stdout).toContain('EU cards');
    expect(plain.stdout).toMatch(/2 of 2/);
  });
});
