import crypto from 'node:crypto';
import path from 'node:path';
import { type CliResult, useCliSandbox } from '../helpers/cli';
import { dialectName } from '../helpers/db';
import { TEST_IBAN } from '../helpers/withdrawals';
import { fundByAdjustment } from '../helpers/funding';
import { operatorContext } from '../../src/services/access/operators';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { updateTenant } from '../../src/services/tenants/tenants';
import { createAssignment, createPartner } from '../../src/services/partners';
import { createRestriction } from '../../src/services/processing/terminals/restrictions';
import { createTerminalLimit } from '../../src/services/processing/terminals/limits';
import { createLimit } from '../../src/services/limits/manage';
import { createFeeAssignment, createFeeSchedule } from '../../src/services/fees/schedules';
import { createRoutingRule } from '../../src/services/routing/rules';
import { addListEntry, createListGroup } from '../../src/services/risk/lists';
import { createScoringRule } from '../../src/services/risk/rules';
import { createAntifraudPlan } from '../../src/services/risk/plans';
import { createWithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { createWithdrawal } from '../../src/services/withdrawals';
import { createSubmission, submitSubmission } from '../../src/services/kyb/submissions';
import { uploadDocument } from '../../src/services/kyb/documents';
import { triggerPaymentEvent } from '../../src/services/sandbox/triggers/payments';

// Issue 24, item 9: --tenant and --merchant work on every command about one record as everywhere: they name whose the
// record must be; another tenant's or merchant's record is not found (exit 4), as over the API; a malformed one is a
// usage error naming the flag (exit 2). One database, two sandboxes (A owns every record, B is "someone else"); the
// records are made through the services, the commands run as the built binary, two at a time.

jest.setTimeout(300_000);

const s = useCliSandbox({ sandbox: false, runtime: true, env: { PAYPLANE_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' } });
let a: SandboxCredentials;
let b: SandboxCredentials;
let endpointId: string;
/** A's records, by the name the command table uses */
const id: Record<string, string> = {};
const cli = s.cli;

/** Runs `run` over the items, `width` at a time (the binary starts in a process of its own each time). */
async function inTurn<T, R>(items: T[], run: (item: T) => Promise<R>, width = 2): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await run(items[i]);
      }
    }),
  );
  return results;
}

/** What went otherwise than expected, as readable lines (the test compares the list with []). */
const outcome = (argv: string[], res: CliResult) =>
  `${argv.join(' ')} → exit ${res.status} ${res.stdout.slice(0, 200)}${res.stderr.slice(0, 200)}`;

beforeAll(async () => {
  a = await createSandbox(s.rt, { name: 'A' });
  b = await createSandbox(s.rt, { name: 'B' });
  const platform = operatorContext(s.rt, { level: 'platform', tenantId: null, livemode: false });
  const tenant = operatorContext(s.rt, { level: 'tenant', tenantId: a.tenantId, livemode: false });
  const merchant = operatorContext(s.rt, { level: 'merchant', tenantId: a.tenantId, merchantId: a.merchantId, livemode: false });
  const row = async (model: 'FeeSchedule' | 'FeeAssignment' | 'IntegrationProfile' | 'Terminal', where: object) =>
    (await (s.rt.db.models[model] as unknown as { findOne(o: object): Promise<{ get(k: string): unknown }> }).findOne({ where })).get(
      'id',
    ) as string;

  // first a real sandbox payment with a refund (before the restriction and the limits below could refuse it)
  const paid = await triggerPaymentEvent(s.rt, merchant, 'refund.succeeded');
  Object.assign(id, { payment: paid.paymentId, refund: paid.refundId });
  Object.assign(id, {
    tenant: a.tenantId,
    merchant: a.merchantId,
    company: a.companyId,
    terminal: a.terminalId,
    channel: a.payoutChannelId,
  });
  id.partner = (await createPartner(tenant, { name: 'Referral Co' })).id;
  id.assignment = (await createAssignment(tenant, { partnerId: id.partner, merchantId: a.merchantId, commissionRate: 10_000 })).id;
  const [brand] = (await s.rt.db.models.Terminal.findOne({ where: { id: a.terminalId } }))!.get('supportedBrands') as string[];
  id.brand = brand;
  id.restriction = (await createRestriction(tenant, a.terminalId, { action: 'deny', brand })).id;
  const count = { period: { value: 1, unit: 'day' as const }, metric: 'count' as const, threshold: 100 };
  id.terminalLimit = (await createTerminalLimit(tenant, a.terminalId, count)).id;
  id.channelLimit = (await createLimit(tenant, { entityType: 'channel', entityId: a.payoutChannelId, ...count })).id;
  id.merchantLimit = (await createLimit(tenant, { entityType: 'merchant', entityId: a.merchantId, ...count })).id;
  id.schedule = await row('FeeSchedule', { tenantId: a.tenantId });
  id.tenantAssignment = await row('FeeAssignment', { tenantId: a.tenantId, level: 'tenant' });
  id.feeAssignment = (
    await createFeeAssignment(tenant, {
      level: 'merchant',
      targetEntityId: a.merchantId,
      feeScheduleId: id.schedule,
      currency: 'EUR',
      paymentMethod: 'card',
    } as Parameters<typeof createFeeAssignment>[1])
  ).id;
  id.platformSchedule = (await createFeeSchedule(platform, { name: 'Platform fees' })).id;
  id.profile = await row('IntegrationProfile', { merchantId: a.merchantId });
  id.routingRule = (await createRoutingRule(tenant, { name: 'EU first', outcome: { type: 'priority', terminals: [a.terminalId] } })).id;
  id.listGroup = (await createListGroup(tenant, { name: 'Blocked IPs', entryType: 'ip' })).id;
  id.listEntry = (await addListEntry(tenant, id.listGroup, { value: '203.0.113.7' })).id;
  const conditions = [{ field: 'amount', operator: 'gt', value: '100000' }] as unknown as Parameters<
    typeof createScoringRule
  >[1]['conditions'];
  id.scoringRule = (await createScoringRule(tenant, { name: 'Big amounts', conditions, scoreImpact: 5, priority: 1 })).id;
  id.plan = (await createAntifraudPlan(tenant, { name: 'Default', ruleIds: [id.scoringRule] })).id;

  // money: funds, an active method and a pending withdrawal
  await updateTenant(platform, a.tenantId, { withdrawalCoolingPeriodHours: 0 });
  id.method = (
    await createWithdrawalMethod(merchant, {
      methodType: 'bank_account',
      label: 'Main account',
      details: { iban: TEST_IBAN, accountHolderName: 'Sandbox Merchant GmbH' },
    })
  ).id;
  await fundByAdjustment(platform, { tenantId: a.tenantId, merchantId: a.merchantId, valueMinor: 10_000, sourceId: 'scope-flags-funding' });
  id.withdrawal = (
    await createWithdrawal(merchant, { amount: { currency: 'EUR', valueMinor: 1_000 }, withdrawalMethodId: id.method }, 'scope-flags')
  ).id;

  // KYB: a submitted submission with one document
  const data = {
    legalName: 'Sandbox Merchant GmbH',
    registrationNumber: 'HRB 12345',
    country: 'DE',
    registeredAddress: { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
    owners: [{ name: 'Ada Lovelace', ownershipPercent: 100 }],
  };
  const draft = await createSubmission(merchant, { data });
  const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), crypto.randomBytes(2_000)]);
  const withDocument = await uploadDocument(merchant, draft.id, {
    contentType: 'application/pdf',
    filename: 'certificate.pdf',
    bytes: pdf,
    documentType: 'certificate_of_incorporation',
  });
  await submitSubmission(merchant, draft.id);
  Object.assign(id, { submission: draft.id, document: withDocument.documents[0].id });

  const created = await cli(
    'webhooks',
    'endpoints',
    'create',
    '--tenant',
    a.tenantId,
    '--merchant',
    a.merchantId,
    '--url',
    'https://hooks.example.com/a',
    '--event',
    '*',
    '--json',
  );
  expect(created.status).toBe(0);
  endpointId = created.json().id;
});

/**
 * Every command about one record that had no --tenant or --merchant before (or --tenant only): its arguments (A's
 * records) and flags that get it past its own checks, and whether a merchant can own the record (then --merchant
 * is checked too).
 */
function commands(): Array<{ argv: string[]; merchant: boolean }> {
  const tenantOnly = (...argv: string[]) => ({ argv, merchant: false });
  const merchants = (...argv: string[]) => ({ argv, merchant: true });
  const limit = ['--period-unit', 'day', '--metric', 'count', '--threshold', '5'];
  const out = path.join(s.db.home, 'download.pdf');
  return [
    // status moves (src/cli/status-move.ts) and the rest of tenants, merchants and partners
    tenantOnly('tenants', 'get', id.tenant),
    tenantOnly('tenants', 'update', id.tenant, '--name', 'Not mine'),
    tenantOnly('tenants', 'activate', id.tenant),
    tenantOnly('tenants', 'suspend', id.tenant, '--yes'),
    tenantOnly('tenants', 'disable', id.tenant, '--yes'),
    merchants('merchants', 'activate', id.merchant),
    merchants('merchants', 'suspend', id.merchant, '--yes'),
    merchants('merchants', 'disable', id.merchant, '--yes'),
    merchants('merchants', 'request-live', id.merchant),
    merchants('merchants', 'approve-live', id.merchant),
    merchants('merchants', 'reject-live', id.merchant),
    tenantOnly('partners', 'get', id.partner),
    tenantOnly('partners', 'update', id.partner, '--name', 'Not mine'),
    tenantOnly('partners', 'activate', id.partner),
    tenantOnly('partners', 'suspend', id.partner, '--yes'),
    tenantOnly('partners', 'disable', id.partner, '--yes'),
    merchants('partners', 'assignments', 'get', id.assignment),
    merchants('partners', 'assignments', 'update', id.assignment, '--commission-rate', '5'),
    merchants('partners', 'assignments', 'suspend', id.assignment, '--yes'),
    // platform context by id: terminals, channels, limits, fees, routing, integration profiles
    tenantOnly('terminals', 'get', id.terminal),
    tenantOnly('terminals', 'update', id.terminal, '--name', 'Not mine'),
    tenantOnly('terminals', 'disable', id.terminal, '--yes'),
    tenantOnly('terminals', 'rotate-credentials', id.terminal, '--credential', 'apiKey=not-mine'),
    tenantOnly('terminals', '3ds', 'show', id.terminal),
    tenantOnly('terminals', '3ds', 'set', id.terminal, '--no-enabled'),
    tenantOnly('terminals', 'limits', 'list', id.terminal),
    tenantOnly('terminals', 'limits', 'create', id.terminal, ...limit),
    tenantOnly('terminals', 'limits', 'disable', id.terminal, id.terminalLimit, '--yes'),
    tenantOnly(
      'terminals',
      'mpi-accounts',
      'add',
      id.terminal,
      '--brand',
      id.brand,
      '--merchant-name',
      'Not mine',
      '--mpi-merchant-id',
      'm1',
      '--acquirer-bin',
      '411111',
      '--merchant-country',
      'DE',
    ),
    tenantOnly('terminals', 'mpi-accounts', 'update', id.terminal, id.brand, '--merchant-name', 'Not mine'),
    tenantOnly('terminals', 'mpi-accounts', 'delete', id.terminal, id.brand, '--yes'),
    tenantOnly('terminals', 'restrictions', 'list', id.terminal),
    tenantOnly('terminals', 'restrictions', 'create', id.terminal, '--action', 'deny', '--brand', id.brand),
    tenantOnly('terminals', 'restrictions', 'update', id.terminal, id.restriction, '--action', 'allow'),
    tenantOnly('terminals', 'restrictions', 'disable', id.terminal, id.restriction, '--yes'),
    tenantOnly('channels', 'get', id.channel),
    tenantOnly('channels', 'update', id.channel, '--name', 'Not mine'),
    tenantOnly('channels', 'disable', id.channel, '--yes'),
    tenantOnly('channels', 'limits', 'list', id.channel),
    tenantOnly('channels', 'limits', 'create', id.channel, ...limit),
    tenantOnly('channels', 'limits', 'disable', id.channel, id.channelLimit, '--yes'),
    merchants('limits', 'disable', id.merchantLimit, '--yes'),
    tenantOnly('fee-schedules', 'get', id.schedule),
    tenantOnly('fee-schedules', 'update', id.schedule, '--name', 'Not mine'),
    tenantOnly('fee-schedules', 'activate', id.schedule),
    tenantOnly('fee-schedules', 'archive', id.schedule, '--yes'),
    merchants('fee-assignments', 'get', id.feeAssignment),
    merchants('fee-assignments', 'close', id.feeAssignment, '--yes'),
    tenantOnly('routing-rules', 'get', id.routingRule),
    tenantOnly('routing-rules', 'update', id.routingRule, '--name', 'Not mine'),
    tenantOnly('routing-rules', 'activate', id.routingRule),
    tenantOnly('routing-rules', 'archive', id.routingRule, '--yes'),
    tenantOnly('routing-rules', 'clone', id.routingRule),
    tenantOnly('routing-rules', 'delete', id.routingRule, '--yes'),
    tenantOnly('routing-rules', 'versions', id.routingRule),
    merchants('integration-profiles', 'get', id.profile),
    merchants('integration-profiles', 'update', id.profile, '--session-lifetime', '1800'),
    // --tenant with a meaning of its own (act as the tenant): the record is checked too, --merchant added where it applies
    tenantOnly('risk', 'plans', 'get', id.plan),
    tenantOnly('risk', 'plans', 'update', id.plan, '--name', 'Not mine'),
    tenantOnly('risk', 'plans', 'enable', id.plan),
    tenantOnly('risk', 'plans', 'disable', id.plan, '--yes'),
    tenantOnly('risk', 'plans', 'delete', id.plan, '--yes'),
    tenantOnly('risk', 'rules', 'get', id.scoringRule),
    tenantOnly('risk', 'rules', 'update', id.scoringRule, '--name', 'Not mine'),
    tenantOnly('risk', 'rules', 'delete', id.scoringRule, '--yes'),
    tenantOnly('risk', 'lists', 'get', id.listGroup),
    tenantOnly('risk', 'lists', 'update', id.listGroup, '--name', 'Not mine'),
    tenantOnly('risk', 'lists', 'delete', id.listGroup, '--yes'),
    tenantOnly('risk', 'lists', 'entries', id.listGroup),
    tenantOnly('risk', 'lists', 'add-entry', id.listGroup, '198.51.100.1'),
    tenantOnly('risk', 'lists', 'remove-entry', id.listGroup, id.listEntry, '--yes'),
    merchants('payments', 'get', id.payment),
    merchants('payments', 'cancel', id.payment, '--yes'),
    merchants('payments', 'capture', id.payment),
    merchants('refunds', 'create', id.payment),
    merchants('refunds', 'list', id.payment),
    merchants('refunds', 'get', id.refund),
    merchants('withdrawals', 'get', id.withdrawal),
    merchants('withdrawals', 'approve', id.withdrawal),
    merchants('withdrawals', 'reject', id.withdrawal, '--reason', 'not mine'),
    merchants('withdrawals', 'cancel', id.withdrawal, '--yes'),
    merchants('withdrawals', 'execute', id.withdrawal, '--complete', '--reference', 'not-mine'),
    merchants('withdrawal-methods', 'get', id.method),
    merchants('withdrawal-methods', 'update', id.method, '--label', 'Not mine'),
    merchants('withdrawal-methods', 'suspend', id.method, '--yes'),
    merchants('withdrawal-methods', 'reactivate', id.method),
    merchants('withdrawal-methods', 'delete', id.method, '--yes'),
    merchants('kyb', 'review', 'get', id.submission),
    merchants('kyb', 'review', 'approve', id.submission),
    merchants('kyb', 'review', 'reject', id.submission, '--reason', 'not mine'),
    merchants('kyb', 'review', 'request-information', id.submission, '--message', 'not mine'),
    merchants('kyb', 'review', 'document-verdict', id.submission, id.document, '--verdict', 'rejected'),
    merchants('kyb', 'documents', 'download', id.submission, id.document, '--out', out),
  ];
}

describe(`scope flags on one record (${dialectName})`, () => {
  test('webhooks endpoints get and update take --tenant and --merchant: the owner passes, anyone else is 404', async () => {
    const own = await cli('webhooks', 'endpoints', 'get', endpointId, '--tenant', a.tenantId, '--merchant', a.merchantId, '--json');
    expect(own.status).toBe(0);
    expect(own.json()).toMatchObject({ id: endpointId });
    const updated = await cli(
      'webhooks',
      'endpoints',
      'update',
      endpointId,
      '--tenant',
      a.tenantId,
      '--merchant',
      a.merchantId,
      '--description',
      'shop',
      '--json',
    );
    expect(updated.status).toBe(0);
    expect(updated.json()).toMatchObject({ description: 'shop' });
    for (const scope of [
      ['--tenant', b.tenantId],
      ['--tenant', a.tenantId, '--merchant', b.merchantId],
      ['--merchant', b.merchantId],
    ]) {
      const other = await cli('webhooks', 'endpoints', 'update', endpointId, ...scope, '--description', 'not mine', '--json');
      expect(other.status).toBe(4);
      expect(other.json().error.code).toBe('RESOURCE_NOT_FOUND');
    }
    expect((await cli('webhooks', 'endpoints', 'get', endpointId, '--json')).json().description).toBe('shop');
  });

  test('keys and merchants the same; a malformed --tenant is a usage error', async () => {
    expect((await cli('keys', 'get', a.tenantKey.id, '--tenant', a.tenantId, '--json')).status).toBe(0);
    expect((await cli('keys', 'get', a.tenantKey.id, '--tenant', b.tenantId, '--json')).status).toBe(4);
    expect((await cli('merchants', 'get', a.merchantId, '--tenant', a.tenantId, '--merchant', a.merchantId, '--json')).status).toBe(0);
    expect((await cli('merchants', 'get', a.merchantId, '--merchant', b.merchantId, '--json')).status).toBe(4);
    const bad = await cli('keys', 'get', a.tenantKey.id, '--tenant', 'not-a-uuid', '--json');
    expect(bad.status).toBe(2);
    expect(bad.json().error.errors[0].path).toBe('--tenant');
  });

  test("every other command about one record: another tenant's record is not found (exit 4), another merchant's too, and nothing changes", async () => {
    // --tenant B on each command; where a merchant owns the record --tenant A --merchant B instead (the tenant is
    // right, the merchant is not), and --tenant B as well on the reads
    const runs = commands().flatMap(({ argv, merchant }) => [
      ...(!merchant || argv.includes('get') ? [[...argv, '--tenant', b.tenantId, '--json']] : []),
      ...(merchant ? [[...argv, '--tenant', a.tenantId, '--merchant', b.merchantId, '--json']] : []),
    ]);
    expect(runs.length).toBeGreaterThan(85);
    const results = await inTurn(runs, (argv) => cli(...argv));
    const unexpected = runs.flatMap((argv, i) => {
      const res = results[i];
      const code = res.status === 4 ? (JSON.parse(res.stdout) as { error: { code: string } }).error.code : undefined;
      return code === 'RESOURCE_NOT_FOUND' ? [] : [outcome(argv, res)];
    });
    expect(unexpected).toEqual([]);
    // nothing was changed by the refused commands
    const [terminal, tenant, plan, withdrawal] = await Promise.all([
      s.rt.db.models.Terminal.findOne({ where: { id: id.terminal } }),
      s.rt.db.models.Tenant.findOne({ where: { id: id.tenant } }),
      s.rt.db.models.AntifraudPlan.findOne({ where: { id: id.plan } }),
      s.rt.db.models.Withdrawal.findOne({ where: { id: id.withdrawal } }),
    ]);
    expect([
      terminal!.get('name'),
      terminal!.get('status'),
      tenant!.get('status'),
      plan!.get('name'),
      plan!.get('deletedAt'),
      withdrawal!.get('status'),
    ]).toEqual([expect.not.stringMatching(/Not mine/), 'active', 'active', 'Default', null, 'pending']);
  });

  test('the owner passes (exit 0): a read of each kind of record, a platform-context update and the status moves', async () => {
    const tenant = ['--tenant', a.tenantId];
    const merchant = [...tenant, '--merchant', a.merchantId];
    const runs: Array<[string[], string]> = [
      [['tenants', 'get', id.tenant, ...tenant], id.tenant],
      [['partners', 'get', id.partner, ...tenant], id.partner],
      [['partners', 'assignments', 'get', id.assignment, ...merchant], id.assignment],
      [['terminals', 'get', id.terminal, ...tenant], id.terminal],
      [['terminals', 'update', id.terminal, ...tenant, '--name', 'EU cards (A)'], id.terminal],
      [['terminals', 'restrictions', 'update', id.terminal, id.restriction, ...tenant, '--action', 'deny'], id.restriction],
      [['channels', 'get', id.channel, ...tenant], id.channel],
      [['channels', 'limits', 'list', id.channel, ...tenant], id.channelLimit],
      [['fee-schedules', 'get', id.schedule, ...tenant], id.schedule],
      [['fee-assignments', 'get', id.feeAssignment, ...merchant], id.feeAssignment],
      [['routing-rules', 'get', id.routingRule, ...tenant], id.routingRule],
      [['integration-profiles', 'get', id.profile, ...merchant], id.profile],
      [['risk', 'plans', 'get', id.plan, ...tenant], id.plan],
      [['risk', 'rules', 'get', id.scoringRule, ...tenant], id.scoringRule],
      [['risk', 'lists', 'entries', id.listGroup, ...tenant], id.listEntry],
      [['payments', 'get', id.payment, ...merchant], id.payment],
      [['refunds', 'get', id.refund, ...merchant], id.refund],
      [['withdrawals', 'get', id.withdrawal, ...merchant], id.withdrawal],
      [['withdrawal-methods', 'get', id.method, ...merchant], id.method],
      [['kyb', 'review', 'get', id.submission, ...merchant], id.submission],
    ];
    const results = await inTurn(runs, ([argv]) => cli(...argv, '--json'));
    const unexpected = runs.flatMap(([argv, expected], i) => {
      const res = results[i];
      return res.status === 0 && res.stdout.includes(expected) ? [] : [outcome(argv, res)];
    });
    expect(unexpected).toEqual([]);
    // status moves, one after the other (and back)
    for (const [topic, record, scope] of [
      ['tenants', id.tenant, tenant],
      ['merchants', id.merchant, merchant],
      ['partners', id.partner, tenant],
    ] as const) {
      const suspended = await cli(topic, 'suspend', record, ...scope, '--yes', '--json');
      expect([topic, suspended.status, suspended.status === 0 && suspended.json().status]).toEqual([topic, 0, 'suspended']);
      const active = await cli(topic, 'activate', record, ...scope, '--json');
      expect([topic, active.status, active.status === 0 && active.json().status]).toEqual([topic, 0, 'active']);
    }
  });

  test("whose a record is follows the API: platform records are no tenant's, tenant-wide ones no merchant's, a company is its merchants'", async () => {
    const [platformSchedule, asTenant, tenantWide, asMerchant, channelLimit, company, otherCompany, planField] = await Promise.all([
      cli('fee-schedules', 'get', id.platformSchedule, '--json'),
      cli('fee-schedules', 'get', id.platformSchedule, '--tenant', a.tenantId, '--json'),
      cli('fee-assignments', 'get', id.tenantAssignment, '--tenant', a.tenantId, '--json'),
      cli('fee-assignments', 'get', id.tenantAssignment, '--tenant', a.tenantId, '--merchant', a.merchantId, '--json'),
      cli('limits', 'disable', id.channelLimit, '--merchant', a.merchantId, '--yes', '--json'),
      cli('companies', 'get', id.company, '--merchant', a.merchantId, '--json'),
      cli('companies', 'get', id.company, '--merchant', b.merchantId, '--json'),
      // risk plans update --merchant is the plan's merchant (a field), not a check
      cli('risk', 'plans', 'update', id.plan, '--tenant', a.tenantId, '--merchant', a.merchantId, '--json'),
    ]);
    expect([
      platformSchedule.status,
      asTenant.status,
      tenantWide.status,
      asMerchant.status,
      channelLimit.status,
      company.status,
      otherCompany.status,
      planField.status,
    ]).toEqual([0, 4, 0, 4, 4, 0, 4, 0]);
    expect(planField.json().merchantId).toBe(a.merchantId);
  });

  test('a malformed --tenant or --merchant is a usage error naming it (exit 2), on every kind of command', async () => {
    const runs: Array<[string[], string]> = [
      [['tenants', 'suspend', id.tenant, '--yes', '--tenant', 'not-a-uuid'], '--tenant'],
      [['merchants', 'disable', id.merchant, '--yes', '--merchant', 'nope'], '--merchant'],
      [['terminals', 'get', id.terminal, '--tenant', 'not-a-uuid'], '--tenant'],
      [['fee-assignments', 'close', id.feeAssignment, '--yes', '--merchant', 'nope'], '--merchant'],
      [['risk', 'plans', 'get', id.plan, '--tenant', 'not-a-uuid'], '--tenant'],
      [['payments', 'cancel', id.payment, '--yes', '--merchant', 'nope'], '--merchant'],
      [['payments', 'get', id.payment, '--tenant', 'not-a-uuid'], '--tenant'],
      [['withdrawal-methods', 'get', id.method, '--tenant', a.tenantId, '--merchant', 'nope'], '--merchant'],
      [['withdrawals', 'approve', id.withdrawal, '--tenant', 'not-a-uuid'], '--tenant'],
      [['kyb', 'review', 'approve', id.submission, '--tenant', 'not-a-uuid'], '--tenant'],
    ];
    const results = await inTurn(runs, ([argv]) => cli(...argv, '--json'));
    const unexpected = runs.flatMap(([argv, flag], i) => {
      const res = results[i];
      return res.status === 2 &&
        (JSON.parse(res.stdout) as { error: { errors?: Array<{ path: string }> } }).error.errors?.[0]?.path === flag
        ? []
        : [outcome(argv, res)];
    });
    expect(unexpected).toEqual([]);
  });
});
