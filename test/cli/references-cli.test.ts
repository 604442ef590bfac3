import fs from 'node:fs';
import path from 'node:path';
import { createTestDatabase, dialectName, testConfig, TEST_TOKEN_SECRET, type TestDatabase } from '../helpers/db';
import { ROOT, runCli } from '../helpers/cli';
import { openRuntime, closeRuntime, type Runtime } from '../../src/runtime';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { operatorContext } from '../../src/services/access/operators';
import { changeFeeScheduleStatus, createFeeSchedule } from '../../src/services/fees/schedules';
import { createPartner } from '../../src/services/partners';
import { createRole } from '../../src/services/access/roles';
import { createActiveUser } from '../../src/services/access/users';
import { operations } from '../../src/api/index';
import type { Operation } from '../../src/api/registry';
import { schemaFields } from '../../src/api/references';
import { declaresReferences, validateInput, validateWith } from '../../src/cli/validate';
import { validateRisk } from '../../src/cli/risk/input';
import { CreateAssignmentBody } from '../../src/api/partners/schemas';

// Issue 32 item 13: the API looks up every id a request names before the handler (src/services/references.ts), but the
// CLI called the services directly, with input validated by the API's schemas only: an operator at the terminal could
// give tenant B's terminal tenant A's fee schedule, a merchant of A a partner of B, a user of B a role of A. The
// commands now validate such input with validateInput (src/cli/validate.ts; validateRiskInput for the risk commands),
// which runs the pipeline's own check with the flags' names; validateWith and validateRisk refuse a schema that
// declares references. The scan below fails for a command that writes a referencing operation's input without it.

const walk = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
const rel = (file: string) => path.relative(ROOT, file);

// The sandbox's own commands (`sandbox init`, `events trigger`) write only records they made themselves in the sandbox
// tenant a moment before; no id of theirs comes from the operator.
const NOT_OPERATOR_INPUT = /^src\/cli\/sandbox\//;

describe('every CLI command writing input that names records runs the reference check', () => {
  const ops = operations as Operation[];
  const apiText = walk(path.join(ROOT, 'src/api'))
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
  const cliFiles = [...walk(path.join(ROOT, 'commands')), ...walk(path.join(ROOT, 'src/cli'))]
    .map((f) => ({ file: rel(f), text: fs.readFileSync(f, 'utf8') }))
    .filter((f) => !NOT_OPERATOR_INPUT.test(f.file));

  /** The service function an operation's handler calls (`handler: (ctx, { body }) => fees.createFeeAssignment(ctx, body)`). */
  const serviceOf = (op: Operation): string | undefined => {
    const at = apiText.indexOf(`id: '${op.id}'`);
    const handler = apiText.indexOf('handler:', at);
    return apiText.slice(handler, handler + 600).match(/=>\s*(?:\{[^]*?)?(?:await\s+)?(?:\w+\.)?(\w+)\(ctx\b/)?.[1];
  };
  const writes = ops.filter(
    (op) =>
      op.method !== 'get' &&
      [...(op.query ? schemaFields(op.query, 'query') : []), ...(op.body && !op.upload ? schemaFields(op.body, 'body') : [])].some(
        (f) => f.refersTo !== undefined,
      ),
  );

  test('the operations that write references are found, each with the service function its handler calls', () => {
    expect(writes.length).toBeGreaterThan(20);
    expect(writes.filter((op) => !serviceOf(op)).map((op) => op.id)).toEqual([]);
    expect(writes.map((op) => [op.id, serviceOf(op)])).toEqual(
      expect.arrayContaining([
        ['createFeeAssignment', 'createFeeAssignment'],
        ['createPartnerAssignment', 'createAssignment'],
        ['updateUser', 'updateUser'],
        ['inviteUser', 'inviteUser'],
      ]),
    );
  });

  // Lists whose query names records check the ids their filters are given as the API does (a filter naming a record
  // outside the command's scope is 404 naming the flag), but for lists whose flags give no id to a filter.
  const LISTS_NAMING_NO_RECORD = new Set([
    // no id reaches their filters: --tenant (--merchant, --as-user) choose the context, the filters are words and states
    'commands/companies/list.ts',
    'commands/roles/list.ts',
    'commands/risk/rules/list.ts',
    'commands/risk/lists/list.ts',
  ]);

  test('a list command (or src/cli helper) calling a list whose query names records checks them too', () => {
    const reads = ops.filter(
      (op) => op.method === 'get' && op.query && schemaFields(op.query, 'query').some((f) => f.refersTo !== undefined),
    );
    const unchecked = new Set<string>();
    for (const op of reads) {
      const fn = serviceOf(op);
      expect([op.id, fn === undefined]).toEqual([op.id, false]);
      for (const { file, text } of cliFiles) {
        if (new RegExp(`\\b${fn}\\(`).test(text) && !/\b(validateInput|validateRiskInput)\(/.test(text)) unchecked.add(file);
      }
    }
    expect([...unchecked].filter((f) => !LISTS_NAMING_NO_RECORD.has(f))).toEqual([]);
    // each file named is one of them (a file converted since leaves the set)
    expect([...LISTS_NAMING_NO_RECORD].filter((f) => !unchecked.has(f))).toEqual([]);
  });

  test('a command (or src/cli helper) calling such a service validates its input with validateInput or validateRiskInput', () => {
    const unchecked: string[] = [];
    let callers = 0;
    for (const op of writes) {
      const fn = serviceOf(op)!;
      for (const { file, text } of cliFiles) {
        if (!new RegExp(`\\b${fn}\\(`).test(text)) continue;
        callers += 1;
        if (!/\b(validateInput|validateRiskInput)\(/.test(text)) unchecked.push(`${file}: ${fn} (${op.id}) without validateInput`);
      }
    }
    expect(unchecked).toEqual([]);
    expect(callers).toBeGreaterThan(20);
  });

  test('validateWith and validateRisk refuse a schema that declares references; validateInput takes it', async () => {
    expect(declaresReferences(CreateAssignmentBody)).toBe(true);
    const value = {
      partnerId: '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01',
      merchantId: '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e02',
      commissionRate: 0,
    };
    expect(() => validateWith(CreateAssignmentBody, value)).toThrow(/declares references.*validateInput/);
    expect(() => validateRisk(CreateAssignmentBody, value, {})).toThrow(/declares references.*validateRiskInput/);
    // malformed input is refused before anything is looked up, naming the flag
    await expect(
      validateInput(undefined as never, CreateAssignmentBody, { ...value, merchantId: 'x' }, { merchantId: 'merchant' }),
    ).rejects.toMatchObject({ exitCode: 2, errors: [{ path: '--merchant', message: expect.any(String) }] });
  });

  test('no validateWith or validateRisk call in commands/ and src/cli/ names an API schema that declares references', () => {
    const schemas = new Map<string, unknown[]>();
    for (const file of walk(path.join(ROOT, 'src/api')).filter((f) => /schemas\.ts$|common\.ts$/.test(f))) {
      for (const [name, value] of Object.entries(require(file) as Record<string, unknown>)) {
        if (value && typeof value === 'object' && '_zod' in value) schemas.set(name, [...(schemas.get(name) ?? []), value]);
      }
    }
    const refused: string[] = [];
    let calls = 0;
    for (const { file, text } of [...cliFiles]) {
      // `X.pick({...})` narrows the schema: validateWith's own guard judges the narrowed one when it runs
      for (const m of text.matchAll(/\b(validateWith|validateRisk)\(\s*(\w+)(\.\w+)?/g)) {
        calls += 1;
        if (m[3] === '.pick' || m[3] === '.omit') continue;
        if ((schemas.get(m[2]) ?? []).some((s) => declaresReferences(s as never))) refused.push(`${file}: ${m[1]}(${m[2]})`);
      }
    }
    expect(calls).toBeGreaterThan(30);
    expect(refused).toEqual([]);
  });
});

// The built binary, on this database: records of two tenants named together are refused naming the flag, nothing written.
describe(`the CLI never links records of two tenants (${dialectName})`, () => {
  let db: TestDatabase;
  let rt: Runtime;
  let env: Record<string, string>;
  let a: SandboxCredentials;
  let b: SandboxCredentials;
  const cli = (...args: string[]) => runCli(args, env);
  const fixtures = {} as {
    scheduleA: string;
    scheduleB: string;
    partnerA: string;
    partnerB: string;
    roleA: string;
    roleB: string;
    userB: string;
  };
  const paths = (res: { json(): { error: { errors?: { path: string }[] } } }) => (res.json().error.errors ?? []).map((e) => e.path);

  beforeAll(async () => {
    db = await createTestDatabase();
    env = { DATABASE_URL: db.url, PAYPLANE_HOME: db.home, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET };
    rt = await openRuntime(testConfig(db));
    a = await createSandbox(rt, { name: 'Tenant A' });
    b = await createSandbox(rt, { name: 'Tenant B' });
    const of = (tenantId: string) => operatorContext(rt, { level: 'tenant', tenantId, livemode: false });
    const schedule = async (tenantId: string) => {
      const created = await createFeeSchedule(of(tenantId), { name: 'Costs' });
      return (await changeFeeScheduleStatus(of(tenantId), created.id, 'activate')).id;
    };
    fixtures.scheduleA = await schedule(a.tenantId);
    fixtures.scheduleB = await schedule(b.tenantId);
    fixtures.partnerA = (await createPartner(of(a.tenantId), { name: 'A partner' })).id;
    fixtures.partnerB = (await createPartner(of(b.tenantId), { name: 'B partner' })).id;
    fixtures.roleA = (await createRole(of(a.tenantId), { name: 'A viewers', permissions: ['payments:payments:view'] })).id;
    fixtures.roleB = (await createRole(of(b.tenantId), { name: 'B viewers', permissions: ['payments:payments:view'] })).id;
    fixtures.userB = (await createActiveUser(of(b.tenantId), { layer: 'operator', email: 'b-operator@example.com' })).id;
  }, 120_000);
  afterAll(async () => {
    await closeRuntime(rt);
    await db.drop();
  });

  const count = (model: 'FeeAssignment' | 'PartnerAssignment' | 'User') =>
    (rt.db.models[model] as unknown as { count(): Promise<number> }).count();

  test("fee-assignments create: tenant B's assignment of tenant A's schedule exits 2 naming --schedule; nothing written", async () => {
    const before = await count('FeeAssignment');
    const res = await cli(
      'fee-assignments',
      'create',
      '--level',
      'tenant',
      '--target',
      b.tenantId,
      '--schedule',
      fixtures.scheduleA,
      '--currency',
      'EUR',
      '--payment-method',
      'card',
      '--json',
    );
    expect([res.status, res.json().error.code, paths(res)]).toEqual([2, 'VALIDATION_FAILED', ['--schedule']]);
    expect(res.json().error.errors[0].message).toMatch(/fee schedule of another tenant/);
    const merchant = await cli(
      'fee-assignments',
      'create',
      '--level',
      'merchant',
      '--target',
      a.merchantId,
      '--schedule',
      fixtures.scheduleB,
      '--currency',
      'EUR',
      '--payment-method',
      'card',
      '--json',
    );
    expect([merchant.status, paths(merchant)]).toEqual([2, ['--schedule']]);
    const unknown = await cli(
      'fee-assignments',
      'create',
      '--level',
      'merchant',
      '--target',
      '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9eff',
      '--schedule',
      fixtures.scheduleA,
      '--currency',
      'EUR',
      '--payment-method',
      'card',
      '--json',
    );
    expect([unknown.status, unknown.json().error.code, paths(unknown)]).toEqual([4, 'RESOURCE_NOT_FOUND', ['--target']]);
    expect(await count('FeeAssignment')).toBe(before);
    // the same command naming one tenant's records writes the assignment
    // (the sandbox assigns its tenant's card fees already: wallet is free)
    const own = await cli(
      'fee-assignments',
      'create',
      '--level',
      'tenant',
      '--target',
      b.tenantId,
      '--schedule',
      fixtures.scheduleB,
      '--currency',
      'EUR',
      '--payment-method',
      'wallet',
      '--json',
    );
    expect([own.status, own.json().feeScheduleId]).toEqual([0, fixtures.scheduleB]);
    expect(await count('FeeAssignment')).toBe(before + 1);
  });

  test('partners assignments create: a partner of B and a merchant of A exits 2 naming --merchant; nothing written', async () => {
    const before = await count('PartnerAssignment');
    const res = await cli(
      'partners',
      'assignments',
      'create',
      '--partner',
      fixtures.partnerB,
      '--merchant',
      a.merchantId,
      '--commission-rate',
      '1000',
      '--json',
    );
    expect([res.status, res.json().error.code, paths(res)]).toEqual([2, 'VALIDATION_FAILED', ['--merchant']]);
    expect(res.json().error.errors[0].message).toMatch(/merchant of another tenant/);
    expect(await count('PartnerAssignment')).toBe(before);
    const own = await cli(
      'partners',
      'assignments',
      'create',
      '--partner',
      fixtures.partnerA,
      '--merchant',
      a.merchantId,
      '--commission-rate',
      '1000',
      '--json',
    );
    expect([own.status, own.json().partnerId]).toEqual([0, fixtures.partnerA]);
    expect(await count('PartnerAssignment')).toBe(before + 1);
  });

  test("users update and users invite: a role of A for a user of B is refused naming the --role given; the user's roles and the users unchanged", async () => {
    const res = await cli('users', 'update', fixtures.userB, '--role', fixtures.roleB, '--role', fixtures.roleA, '--json');
    expect([res.status, res.json().error.code, paths(res)]).toEqual([4, 'RESOURCE_NOT_FOUND', ['--role[1]']]);
    expect((await cli('users', 'get', fixtures.userB, '--json')).json().roleIds).toEqual([]);
    const users = await count('User');
    const invited = await cli(
      'users',
      'invite',
      '--tenant',
      b.tenantId,
      '--email',
      'b-invitee@example.com',
      '--role',
      fixtures.roleA,
      '--json',
    );
    expect([invited.status, invited.json().error.code, paths(invited)]).toEqual([4, 'RESOURCE_NOT_FOUND', ['--role[0]']]);
    expect(await count('User')).toBe(users);
    const own = await cli('users', 'update', fixtures.userB, '--role', fixtures.roleB, '--json');
    expect([own.status, own.json().roleIds]).toEqual([0, [fixtures.roleB]]);
  });

  test("terminals update and channels: another tenant's cost schedule exits 2, an unknown provider integration 4, naming the flag; nothing changed", async () => {
    const before = (await cli('terminals', 'get', b.terminalId, '--json')).json().providerCostScheduleId;
    const terminal = await cli('terminals', 'update', b.terminalId, '--cost-schedule', fixtures.scheduleA, '--json');
    expect([terminal.status, terminal.json().error.code, paths(terminal)]).toEqual([2, 'VALIDATION_FAILED', ['--cost-schedule']]);
    expect((await cli('terminals', 'get', b.terminalId, '--json')).json().providerCostScheduleId).toBe(before);
    const unknown = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9eff';
    const channels = await rt.db.models.Channel.count();
    const created = await cli(
      'channels',
      'create',
      '--tenant',
      b.tenantId,
      '--name',
      'Cards',
      '--direction',
      'payin',
      '--currency',
      'EUR',
      '--provider-integration',
      unknown,
      '--json',
    );
    expect([created.status, created.json().error.code, paths(created)]).toEqual([4, 'RESOURCE_NOT_FOUND', ['--provider-integration']]);
    expect(created.json().error.errors[0].message).toBe('no such provider integration');
    expect(await rt.db.models.Channel.count()).toBe(channels);
    const updated = await cli('channels', 'update', b.payoutChannelId, '--provider-integration', unknown, '--json');
    expect([updated.status, paths(updated)]).toEqual([4, ['--provider-integration']]);
    expect((await cli('channels', 'get', b.payoutChannelId, '--json')).json().providerIntegrationId).not.toBe(unknown);
  });
});
