import crypto from 'node:crypto';
import { Sequelize } from 'sequelize';
import type request from 'supertest';
import { useApiHarness } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operations } from '../../src/api/index';
import type { Operation } from '../../src/api/registry';
import type { CallerContext } from '../../src/domain/context';
import { authenticate } from '../../src/services/access/authenticate';
import { allows } from '../../src/domain/permissions';
import { defineModels, type RowModel } from '../../src/db/models';
import { define, MODE_COLUMN, BOOLEAN, UUID, pk } from '../../src/db/model-kit';
import {
  IBAN,
  KINDS,
  VALID_BODIES,
  VALID_QUERIES,
  buildWorld,
  call,
  fillPath,
  kybPdf,
  pathParams,
  PATH_PARAMS,
  snapshot,
  type Kind,
  type World,
} from './world';

// The mode matrix (issue 20, item 2), generated from the models (src/db) and the operation registry (src/api). A caller
// works in exactly one mode (secret key: its livemode; user token: its mode claim, else the Payplane-Mode header; CLI:
// --live, or the record's own mode): a record of the other mode does not exist for it (404), a list shows rows of its
// mode only, and a livemode filter naming the other mode is an empty page.
// (a) every table with a livemode column is scoped by mode (define() derives it), or is a reviewed exception below;
// (b) every operation that names a record of a mode-scoped table in its path answers 404 to a caller of the other mode,
//     both ways where the world has a record of each mode; every list operation, without a filter and with the other
//     mode's livemode filter, shows no row of the other mode. A path parameter or a kind without a fixture fails here.

const ops = operations as Operation[];

// ---------------------------------------------------------------------------------------------------------------
// (a) the models

/** Tables with a livemode column that are not scoped by it, each with the reason (must match the model's modeExempt). */
const MODE_EXCEPTIONS: Record<string, string> = {
  Tenant: 'a tenant spans both modes: its livemode says whether it may hold live keys, not the mode the record lives in',
  Terminal:
    "a terminal is administered from either mode's keys (the tenant's catalog of routes); its livemode says which environment of " +
    'its acquirer it talks to (live or test credentials), not the mode the record lives in',
};

/** The model each kind of record of the world is stored in (a new kind must say which). */
const KIND_MODELS: Record<Kind, string> = {
  tenant: 'Tenant',
  apiKey: 'ApiKey',
  merchantEndpoint: 'WebhookEndpoint',
  tenantEndpoint: 'WebhookEndpoint',
  delivery: 'WebhookDelivery',
  company: 'Company',
  merchant: 'Merchant',
  merchantLimit: 'Limit',
  partner: 'Partner',
  partnerAssignment: 'PartnerAssignment',
  channel: 'Channel',
  channelLimit: 'Limit',
  user: 'User',
  invitation: 'Invitation',
  role: 'Role',
  kybSubmission: 'KybSubmission',
  kybDocument: 'KybDocument',
  providerIntegration: 'ProviderOverlay',
  terminal: 'Terminal',
  mpiAccount: 'Terminal',
  restriction: 'TerminalRestriction',
  terminalLimit: 'Limit',
  feeSchedule: 'FeeSchedule',
  feeAssignment: 'FeeAssignment',
  integrationProfile: 'IntegrationProfile',
  routingRule: 'RoutingRule',
  checkoutSession: 'CheckoutSession',
  payment: 'Payment',
  refund: 'Refund',
  withdrawalMethod: 'MerchantWithdrawalMethod',
  withdrawal: 'Withdrawal',
  antifraudPlan: 'AntifraudPlan',
  scoringRule: 'ScoringRule',
  listGroup: 'ListGroup',
  listEntry: 'ListEntry',
  balanceThreshold: 'BalanceThreshold',
  dispute: 'Dispute',
  settlement: 'SettlementStatement',
  payout: 'Payout',
};

const models = defineModels(new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false })) as unknown as Record<
  string,
  RowModel<object>
>;
const hasModeColumn = (m: RowModel<object>) => MODE_COLUMN in m.getAttributes();
const modeScoped = (kind: Kind): boolean => models[KIND_MODELS[kind]]?.scopeSpec.mode === MODE_COLUMN;

describe("every table with a livemode column is scoped by the caller's mode", () => {
  test('each model with livemode is mode-scoped, or a listed exception with a reason', () => {
    const wrong: string[] = [];
    for (const [name, model] of Object.entries(models)) {
      const spec = model.scopeSpec;
      if (!hasModeColumn(model)) {
        if (spec.mode !== null) wrong.push(`${name}: scoped by mode '${spec.mode}' without a ${MODE_COLUMN} column`);
        continue;
      }
      if (name in MODE_EXCEPTIONS) {
        if (spec.mode !== null || !spec.modeExempt)
          wrong.push(`${name}: listed as an exception, but scoped by mode (remove it from MODE_EXCEPTIONS)`);
      } else if (spec.mode !== MODE_COLUMN) {
        wrong.push(
          `${name} (${model.getTableName()}): has ${MODE_COLUMN} but is not scoped by it${spec.modeExempt ? ` (modeExempt: "${spec.modeExempt}" is not a reviewed exception: add it to MODE_EXCEPTIONS)` : ''}`,
        );
      }
    }
    for (const name of Object.keys(MODE_EXCEPTIONS)) if (!models[name]) wrong.push(`${name}: listed in MODE_EXCEPTIONS but no such model`);
    expect(wrong).toEqual([]);
    // the mode-scoped tables today (a table added with livemode joins them without a change here)
    const scoped = Object.entries(models)
      .filter(([, m]) => m.scopeSpec.mode)
      .map(([n]) => n);
    expect(scoped).toEqual(
      expect.arrayContaining(['Company', 'ApiKey', 'Payment', 'Refund', 'CheckoutSession', 'Withdrawal', 'ListGroup', 'AuditEntry']),
    );
  });

  test('define() derives the mode from the attributes: a livemode table cannot be declared mode: null without a reason', () => {
    const s = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
    const attrs = { id: pk, tenantId: UUID, livemode: BOOLEAN };
    const base = { resource: 'probe', tenant: 'tenantId', merchant: null };
    expect(define(s, 'P1', 'p1', attrs, base).scopeSpec.mode).toBe(MODE_COLUMN);
    expect(define(s, 'P2', 'p2', attrs, { ...base, mode: 'livemode' }).scopeSpec.mode).toBe(MODE_COLUMN);
    expect(() => define(s, 'P3', 'p3', attrs, { ...base, mode: null })).toThrow(/modeExempt/);
    expect(() => define(s, 'P4', 'p4', { id: pk, tenantId: UUID }, { ...base, modeExempt: 'no column to be exempt from' })).toThrow(
      /no livemode column/,
    );
    expect(() => define(s, 'P5', 'p5', attrs, { ...base, modeExempt: 'x' })).toThrow(/why/);
    expect(define(s, 'P6', 'p6', attrs, { ...base, modeExempt: 'a reason long enough to be read' }).scopeSpec.mode).toBeNull();
    expect(define(s, 'P7', 'p7', { id: pk, tenantId: UUID }, base).scopeSpec.mode).toBeNull();
  });

  test('every kind of record of the world names its model, and world.ts agrees with the model on its mode', () => {
    const kinds = Object.keys(KINDS) as Kind[];
    expect(
      kinds.filter((k) => !models[KIND_MODELS[k]]).map((k) => `${k}: add its model to KIND_MODELS in test/security/mode-matrix.test.ts`),
    ).toEqual([]);
    // the isolation matrix's other-mode callers read KINDS[k].modeScoped: it must follow the models
    expect(
      kinds
        .filter((k) => KINDS[k].modeScoped !== modeScoped(k))
        .map((k) => `${k}: KINDS.modeScoped in world.ts is ${KINDS[k].modeScoped}, the model says ${modeScoped(k)}`),
    ).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// (b) the operations

/** Lists of a table in MODE_EXCEPTIONS: their rows' livemode is an attribute, not the mode they live in. */
const LISTS_OF_EXCEPTIONS: Record<string, string> = {
  listTenants: 'Tenant',
  listTerminals: 'Terminal',
};
/** List operations whose livemode filter the specification makes a no-op: rows always belong to the caller's mode. */
const LIVEMODE_FILTER_IGNORED: Record<string, string> = {
  listMerchantWithdrawalMethods: 'platform-api-spec.md: "accepted for compatibility, rows always belong to the caller\'s mode"',
};

type Mode = 'test' | 'live';
interface ModeCaller {
  name: string;
  level: 'M' | 'T' | 'P';
  mode: Mode;
  credential(): string;
}

let world: World;
/** the live records of tenant A (kinds without one here are tried in one direction only: live callers on test records) */
const live: Partial<Record<Kind, string>> = {};
let liveIds: Set<string>;
let testIds: Set<string>;
let before: Record<Kind, unknown[]>;
const contexts = new Map<string, CallerContext>();

const CALLERS: ModeCaller[] = [
  { name: 'test tenant key of A', level: 'T', mode: 'test', credential: () => world.a.tenantKey.secret },
  { name: 'test merchant key of A1', level: 'M', mode: 'test', credential: () => world.a.m1Key.secret },
  { name: 'test operator user of A', level: 'T', mode: 'test', credential: () => world.a.operatorToken },
  { name: 'test platform user', level: 'P', mode: 'test', credential: () => platformTokens.test },
  { name: 'live tenant key of A', level: 'T', mode: 'live', credential: () => world.aLive.tenantKey },
  { name: 'live merchant key of A1', level: 'M', mode: 'live', credential: () => world.aLive.m1Key },
  { name: 'live operator user of A', level: 'T', mode: 'live', credential: () => world.aLive.operatorToken },
  { name: 'live platform user', level: 'P', mode: 'live', credential: () => platformTokens.live },
];
const platformTokens = { test: '', live: '' };

/** The kinds buildLive() makes a live record of (checked once it ran). */
const LIVE_KINDS: Kind[] = [
  'company',
  'tenantEndpoint',
  'merchantEndpoint',
  'apiKey',
  'scoringRule',
  'antifraudPlan',
  'listGroup',
  'listEntry',
  'checkoutSession',
  'withdrawalMethod',
  'delivery',
  'balanceThreshold',
];
/**
 * Kinds with no live record in the world, with the reason: their operations are tried by the live callers on the test
 * records only.
 */
const NO_LIVE_RECORD: Partial<Record<Kind, string>> = {
  payment: 'a live payment needs a live acquirer (the sandbox acquirer serves test mode)',
  refund: 'a refund of a live payment',
  withdrawal: 'a withdrawal needs a live balance, written by live payments',
  dispute: 'a dispute of a live payment, opened by a live acquirer',
  settlement: 'a live statement is opened by a live ledger movement, written by live payments',
  payout: 'a payout needs a live balance and a live payout provider (the sandbox payout provider serves test mode)',
};
/** Whether the world holds a record of `kind` in `mode` (the world's own records are test mode; a kind without a mode serves both). */
const hasRecord = (kind: Kind, mode: Mode): boolean => mode === 'test' || !modeScoped(kind) || LIVE_KINDS.includes(kind);
/** The record of `kind` in `mode`: the world's records are test mode; the live ones are made in beforeAll. */
const recordOf = (kind: Kind, mode: Mode): string => {
  const id = mode === 'live' && modeScoped(kind) ? live[kind] : world.a.ids[kind];
  if (!id) throw new Error(`no ${mode} record of ${kind}`);
  return id;
};
const uniq = () => crypto.randomBytes(4).toString('hex');

async function ok(res: request.Test, what: string): Promise<Record<string, any>> {
  const r = await res;
  if (r.status !== 200 && r.status !== 201) throw new Error(`mode matrix: ${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as Record<string, any>;
}

/** Live records of A, made by A's live callers through the API (a record of each kind the live tenant can hold). */
async function buildLive(): Promise<void> {
  const T = (method: string, path: string) => call(h, method, path, world.aLive.tenantKey);
  const M = (method: string, path: string) => call(h, method, path, world.aLive.m1Key);
  const mark = world.a.mark;
  live.company = (await ok(T('post', '/v1/admin/companies').send({ name: `${mark} live company`, country: 'DE' }), 'live company')).id;
  live.tenantEndpoint = (
    await ok(
      T('post', '/v1/admin/webhook-endpoints').send({ url: `https://hooks.example.test/${mark}/live-tenant`, events: ['*'] }),
      'live tenant endpoint',
    )
  ).id;
  live.merchantEndpoint = (
    await ok(
      M('post', '/v1/webhooks/endpoints').send({ url: `https://hooks.example.test/${mark}/live-merchant`, events: ['*'] }),
      'live merchant endpoint',
    )
  ).id;
  live.apiKey = (
    await ok(
      M('post', '/v1/api-keys').send({ name: `${mark} live spare key`, ownerType: 'merchant', permissions: ['payments:payments:view'] }),
      'live api key',
    )
  ).id;
  live.scoringRule = (
    await ok(
      T('post', '/v1/admin/scoring-rules').send({
        name: `${mark} live scoring`,
        conditions: [{ field: 'amount', operator: 'gte', value: 99_000_000 }],
        scoreImpact: 10,
        priority: 100,
      }),
      'live scoring rule',
    )
  ).id;
  live.antifraudPlan = (
    await ok(
      T('post', '/v1/admin/antifraud-plans').send({ name: `${mark} live plan`, merchantId: world.a.m1, ruleIds: [live.scoringRule] }),
      'live plan',
    )
  ).id;
  live.listGroup = (
    await ok(T('post', '/v1/admin/list-groups').send({ name: `${mark} live list`, entryType: 'email' }), 'live list group')
  ).id;
  live.listEntry = (
    await ok(T('post', `/v1/admin/list-groups/${live.listGroup}/entries`).send({ value: `live-${mark}@example.com` }), 'live list entry')
  ).id;
  live.checkoutSession = (
    await ok(
      M('post', '/v1/checkout-sessions').send({ amount: { currency: 'EUR', valueMinor: 4321 }, merchantReference: `${mark}-live` }),
      'live checkout session',
    )
  ).id;
  live.withdrawalMethod = (
    await ok(
      M('post', '/v1/merchant-withdrawal-methods').send({
        methodType: 'bank_account',
        label: `${mark} live account`,
        details: { iban: IBAN, accountHolderName: 'Live Holder' },
      }),
      'live withdrawal method',
    )
  ).id;
  live.balanceThreshold = (
    await ok(
      M('post', '/v1/balance-thresholds').send({
        balanceType: 'available',
        direction: 'above',
        amount: { currency: 'EUR', valueMinor: 60_000_321 },
      }),
      'live balance threshold',
    )
  ).id;
  const deliveries = (await ok(
    T('get', `/v1/admin/webhook-deliveries?endpoint_id=${live.tenantEndpoint}&limit=1`),
    'live deliveries',
  )) as unknown as { id: string }[];
  if (deliveries[0]) live.delivery = deliveries[0].id;
}

const h = useApiHarness({ config: { sandboxDelayMs: 0 } });
beforeAll(async () => {
  world = await buildWorld(h);
  platformTokens.test = (await h.rt.tokens.issue(h.sandbox.platformUserId, 86_400, false)).token;
  platformTokens.live = (await h.rt.tokens.issue(h.sandbox.platformUserId, 86_400, true)).token;
  await buildLive();
  h.clock.advance(60_000);
  before = await snapshot(h, world.a);
  // the ids of the world's records of a mode-scoped kind (a kind without a mode is listed in both modes)
  testIds = new Set((Object.keys(KINDS) as Kind[]).filter(modeScoped).map((k) => world.a.ids[k]));
  liveIds = new Set(Object.values(live));
  for (const caller of CALLERS)
    contexts.set(caller.name, await authenticate(h.rt, { authorization: `Bearer ${caller.credential()}`, ip: '127.0.0.1' }));
}, 180_000);

function describeAnswer(res: request.Response): string {
  const body = Buffer.isBuffer(res.body) ? `<${res.body.length} bytes>` : JSON.stringify(res.body);
  return `${res.status} ${body.slice(0, 400)}`;
}

async function send(op: Operation, path: string, credential: string, query?: Record<string, string>): Promise<request.Response> {
  const url = query && Object.keys(query).length ? `${path}?${new URLSearchParams(query)}` : path;
  let req = call(h, op.method, url, credential, { file: op.kind === 'file' });
  if (op.requireIdempotencyKey) req = req.set('Idempotency-Key', `mode-${uniq()}`);
  if (op.upload) return req.set('Content-Type', 'application/pdf').send(kybPdf('other-mode'));
  const body = op.id in VALID_BODIES ? VALID_BODIES[op.id] : op.body && op.method !== 'get' ? {} : undefined;
  return body === undefined ? req : req.send(body as object);
}

/** The 403 a caller's level, permissions or credential kind gives before any record is looked at, if any. */
function deniedFor(op: Operation, caller: ModeCaller): string | undefined {
  if (!op.levels.includes(caller.level)) return 'LEVEL_NOT_ALLOWED';
  const ctx = contexts.get(caller.name)!;
  if (!allows(ctx.permissions, op.permission)) return 'PERMISSION_DENIED';
  if (op.secretKeyOnly && ctx.credential !== 'secret_key') return 'SECRET_KEY_REQUIRED';
  return undefined;
}

const idOps = ops.filter((op) => pathParams(op.path).length > 0);
const kindsOf = (op: Operation): (Kind | undefined)[] => pathParams(op.path).map((p) => PATH_PARAMS[p.key]);

interface IdCase {
  op: Operation;
  caller: ModeCaller;
  /** the mode of the records named */
  recordMode: Mode;
}
const idCases: IdCase[] = [];
const idMissing: string[] = [];
for (const op of idOps) {
  const kinds = kindsOf(op);
  const unmapped = pathParams(op.path).filter((p) => !PATH_PARAMS[p.key]);
  if (unmapped.length) {
    idMissing.push(...unmapped.map((p) => `${op.id}: add '${p.key}' to PATH_PARAMS in test/security/world.ts`));
    continue;
  }
  if (!kinds.some((k) => modeScoped(k!))) continue;
  if (op.body && op.method !== 'get' && !op.upload && !(op.id in VALID_BODIES) && !op.body.safeParse({}).success) {
    idMissing.push(
      `${op.id} (${op.method.toUpperCase()} ${op.path}) needs a body: add a valid one to VALID_BODIES in test/security/world.ts`,
    );
    continue;
  }
  if (op.query && !(op.id in VALID_QUERIES) && !op.query.safeParse({}).success) {
    idMissing.push(`${op.id} needs query parameters: add them to VALID_QUERIES in test/security/world.ts`);
    continue;
  }
  for (const caller of CALLERS) {
    if (!op.levels.includes(caller.level)) continue;
    const recordMode: Mode = caller.mode === 'test' ? 'live' : 'test';
    // a record of the other mode for every mode-scoped kind of the path (the world's test records always exist)
    if (kinds.some((k) => !hasRecord(k!, recordMode))) continue; // NO_LIVE_RECORD: tried the other way only
    idCases.push({ op, caller, recordMode });
  }
}

describe(`a record of the other mode is a 404, generated from the registry (${dialectName})`, () => {
  test('every path parameter has a record, every operation a valid body, every mode-scoped kind a record of each mode', () => {
    expect(idMissing).toEqual([]);
    const kinds = (Object.keys(KINDS) as Kind[]).filter(modeScoped);
    expect(
      kinds
        .filter((k) => !LIVE_KINDS.includes(k) && !(k in NO_LIVE_RECORD))
        .map((k) => `${k}: make a live record in buildLive() or say why not in NO_LIVE_RECORD`),
    ).toEqual([]);
    expect(LIVE_KINDS.filter((k) => !live[k]).map((k) => `buildLive() made no live ${k}`)).toEqual([]);
    expect(kinds).toEqual(expect.arrayContaining(['company', 'apiKey', 'payment', 'checkoutSession', 'withdrawal', 'listGroup']));
    expect(idCases.filter((c) => c.recordMode === 'live').length).toBeGreaterThan(40);
    expect(idCases.filter((c) => c.recordMode === 'test').length).toBeGreaterThan(80);
  });

  test.each(idCases.map((c) => [`${c.caller.name}: ${c.op.method.toUpperCase()} ${c.op.path} on the ${c.recordMode} record`, c] as const))(
    '%s',
    async (_t, c) => {
      const params = Object.fromEntries(pathParams(c.op.path).map((p) => [p.name, recordOf(PATH_PARAMS[p.key], c.recordMode)]));
      const res = await send(c.op, fillPath(c.op.path, params), c.caller.credential(), VALID_QUERIES[c.op.id]);
      const denied = deniedFor(c.op, c.caller);
      const expected = denied ? { status: 403, code: denied } : { status: 404 };
      const code = String(res.body?.code ?? '');
      if (res.status !== expected.status || (denied ? code !== denied : !/_NOT_FOUND$/.test(code))) {
        throw new Error(`expected ${expected.status} ${denied ?? '*_NOT_FOUND'}, got ${describeAnswer(res)}`);
      }
      // the same read by a caller of the record's mode answers 200 (the same level first; a platform user reads the
      // platform's endpoints only, the tenant's own callers read A's): the 404 is the mode, not a broken fixture
      if (!denied && c.op.method === 'get') {
        const twins = CALLERS.filter((o) => o.mode === c.recordMode && !deniedFor(c.op, o)).sort(
          (x, y) => Number(y.level === c.caller.level) - Number(x.level === c.caller.level),
        );
        const answers: string[] = [];
        for (const twin of twins) {
          const control = await send(c.op, fillPath(c.op.path, params), twin.credential(), VALID_QUERIES[c.op.id]);
          if (control.status === 200) break;
          answers.push(`${twin.name}: ${describeAnswer(control)}`);
        }
        if (answers.length === twins.length)
          throw new Error(`positive control: no caller of the ${c.recordMode} mode reads the record:\n${answers.join('\n')}`);
      }
    },
  );

  test("creating a merchant under a company of the other mode is a 404 naming body.companyId (both ways), and its own mode's is 201", async () => {
    for (const [credential, companyId] of [
      [world.a.tenantKey.secret, live.company!],
      [world.aLive.tenantKey, world.a.ids.company],
    ]) {
      const res = await call(h, 'post', '/v1/admin/merchants', credential).send({ companyId, name: `other mode ${uniq()}` });
      expect([res.status, res.body.code, res.body.errors?.[0]?.path]).toEqual([404, 'RESOURCE_NOT_FOUND', 'body.companyId']);
    }
    const own = await call(h, 'post', '/v1/admin/merchants', world.aLive.tenantKey).send({
      companyId: live.company,
      name: `live mode ${uniq()}`,
    });
    expect(own.status).toBe(201);
  });

  test('afterwards, every test record of A reads exactly as before, and the live company is unchanged', async () => {
    const after = await snapshot(h, world.a);
    for (const kind of Object.keys(KINDS) as Kind[]) expect([kind, after[kind]]).toEqual([kind, before[kind]]);
    const company = await call(h, 'get', `/v1/admin/companies/${live.company}`, world.aLive.tenantKey);
    expect([company.status, company.body.data?.status, company.body.data?.name, company.body.data?.livemode]).toEqual([
      200,
      'active',
      `${world.a.mark} live company`,
      true,
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Lists: rows of the caller's mode only; the other mode's livemode filter is an empty page

const listOps = ops.filter((op) => op.kind === 'list');
interface ListCase {
  op: Operation;
  caller: ModeCaller;
  filter: 'none' | 'other-mode';
}
const listCases: ListCase[] = [];
for (const op of listOps) {
  const kinds = kindsOf(op);
  // a list under a record of a mode-scoped kind (a payment's refunds) is that record's read: a 404 above
  if (kinds.some((k) => !k || modeScoped(k))) continue;
  if (op.query && !op.query.safeParse({}).success) continue;
  const declaresMode = Boolean((op.query as { shape?: Record<string, unknown> } | undefined)?.shape?.livemode);
  for (const caller of CALLERS) {
    if (deniedLevel(op, caller)) continue;
    listCases.push({ op, caller, filter: 'none' });
    if (declaresMode) listCases.push({ op, caller, filter: 'other-mode' });
  }
}
function deniedLevel(op: Operation, caller: ModeCaller): boolean {
  return !op.levels.includes(caller.level);
}

/** The rows a list answers, each with its id and livemode (when the record has one). */
function rowsOf(res: request.Response): { id?: string; livemode?: unknown }[] {
  if (res.status !== 200 || !Array.isArray(res.body?.data)) throw new Error(`not a list: ${describeAnswer(res)}`);
  return res.body.data as { id?: string; livemode?: unknown }[];
}

describe(`lists hold rows of the caller's mode only, generated from the registry (${dialectName})`, () => {
  test('the lists with a livemode filter are tried with it; a list of an exempt table names its exception', () => {
    expect(
      Object.entries(LISTS_OF_EXCEPTIONS).filter(([id, model]) => !(model in MODE_EXCEPTIONS) || !listOps.some((op) => op.id === id)),
    ).toEqual([]);
    const withFilter = new Set(listCases.filter((c) => c.filter === 'other-mode').map((c) => c.op.id));
    expect([...withFilter].sort()).toEqual(expect.arrayContaining(['listApiKeys', 'listCompanies', 'listMerchantWithdrawalMethods']));
    expect(Object.keys(LIVEMODE_FILTER_IGNORED).filter((id) => !withFilter.has(id))).toEqual([]);
  });

  test.each(
    listCases.map(
      (c) => [`${c.caller.name}: GET ${c.op.path}${c.filter === 'other-mode' ? `?livemode=${c.caller.mode === 'test'}` : ''}`, c] as const,
    ),
  )('%s', async (_t, c) => {
    const params = Object.fromEntries(pathParams(c.op.path).map((p) => [p.name, world.a.ids[PATH_PARAMS[p.key]]]));
    // the largest page where the operation pages (the catalogs answer every entry at once and take no parameter)
    const query: Record<string, string> = c.op.query?.safeParse({ limit: '100' }).success ? { limit: '100' } : {};
    if (c.filter === 'other-mode') query.livemode = String(c.caller.mode === 'test');
    const res = await send(c.op, fillPath(c.op.path, params), c.caller.credential(), query);
    const denied = deniedFor(c.op, c.caller);
    if (denied) {
      expect([res.status, res.body?.code]).toEqual([403, denied]);
      return;
    }
    const rows = rowsOf(res);
    const mine = c.caller.mode === 'live';
    const otherIds = mine ? testIds : liveIds;
    const exempt = c.op.id in LISTS_OF_EXCEPTIONS;
    const wrong = rows.filter((r) => (!exempt && typeof r.livemode === 'boolean' && r.livemode !== mine) || (r.id && otherIds.has(r.id)));
    if (wrong.length) throw new Error(`rows of the other mode: ${JSON.stringify(wrong).slice(0, 400)}`);
    if (c.filter === 'other-mode' && !(c.op.id in LIVEMODE_FILTER_IGNORED)) {
      expect([rows.length, res.body.pagination?.totalCount]).toEqual([0, 0]);
    }
  });

  test('positive controls: each mode lists its own records (companies, keys, endpoints, withdrawal methods, risk lists)', async () => {
    const ids = async (path: string, credential: string) =>
      rowsOf(await call(h, 'get', `${path}${path.includes('?') ? '&' : '?'}limit=100`, credential)).map((r) => r.id);
    for (const [mode, T, M, rec] of [
      ['test', world.a.tenantKey.secret, world.a.m1Key.secret, world.a.ids],
      ['live', world.aLive.tenantKey, world.aLive.m1Key, live],
    ] as const) {
      expect([mode, await ids('/v1/admin/companies', T)]).toEqual([mode, expect.arrayContaining([rec.company])]);
      expect([mode, await ids(`/v1/admin/companies?livemode=${mode === 'live'}`, T)]).toEqual([
        mode,
        expect.arrayContaining([rec.company]),
      ]);
      expect([mode, await ids('/v1/api-keys', M)]).toEqual([mode, expect.arrayContaining([rec.apiKey])]);
      expect([mode, await ids('/v1/admin/webhook-endpoints', T)]).toEqual([mode, expect.arrayContaining([rec.tenantEndpoint])]);
      expect([mode, await ids('/v1/merchant-withdrawal-methods', M)]).toEqual([mode, expect.arrayContaining([rec.withdrawalMethod])]);
      expect([mode, await ids('/v1/admin/list-groups', T)]).toEqual([mode, expect.arrayContaining([rec.listGroup])]);
      expect([mode, await ids('/v1/checkout-sessions', M)]).toEqual([mode, expect.arrayContaining([rec.checkoutSession])]);
    }
    // the issue's case: a sandbox caller asking for the live companies gets an empty page
    const asked = await call(h, 'get', '/v1/admin/companies?livemode=true', world.a.tenantKey.secret);
    expect([asked.status, asked.body.data, asked.body.pagination.totalCount]).toEqual([200, [], 0]);
  });
});
