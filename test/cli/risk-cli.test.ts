import fs from 'node:fs';
import path from 'node:path';
import { withRuntimeOf, dialectName } from '../helpers/db';
import { useCliSandbox } from '../helpers/cli';
import { evaluateRisk } from '../../src/services/risk/engine';
import { createSession } from '../../src/services/checkout/sessions';
import { completeCheckoutSession } from '../../src/services/checkout/completion';
import type { RiskSubject } from '../../src/services/risk/conditions';
import { operatorContext, operatorUserId as op } from '../../src/services/access/operators';

const MISSING = '00000000-0000-4000-8000-000000000000';
const CARD = '4242424242424242';
const OTHER_CARD = '5555555555554444';

const s = useCliSandbox();
const cli = s.cli;
let tenant: string[];
let fingerprint: string;

const payment = (card: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ amount: { currency: 'EUR', valueMinor: 2500 }, card: { number: card }, ...extra });
const paths = (res: { json(): { error: { errors: { path: string }[] } } }) => res.json().error.errors.map((e) => e.path);

beforeAll(async () => {
  tenant = ['--tenant', s.sandbox.tenantId];
});

describe(`payplane risk (${dialectName})`, () => {
  let blockList: { id: string };
  let velocity: { id: string };
  let blockRule: { id: string };
  let plan: { id: string };

  test('lists: create, get, update, list, entries, add-entry, remove-entry, delete; values are normalized and checked', async () => {
    // the card's fingerprint as a payment would have it, from a dry run without any plan
    const first = await cli('risk', 'evaluate', '--merchant', s.sandbox.merchantId, '--payment-json', payment(CARD), '--json');
    expect(first.status).toBe(0);
    expect(first.json()).toMatchObject({
      subject: {
        tenantId: s.sandbox.tenantId,
        merchantId: s.sandbox.merchantId,
        livemode: false,
        card: { bin: '424242', brand: 'visa', fingerprint: expect.any(String) },
      },
      decision: {
        decision: 'allow',
        evaluatedDecision: 'allow',
        enforced: true,
        score: 0,
        matchedRules: [],
        planIds: [],
        reason: null,
        thresholds: { challenge: 50, review: null, decline: 100 },
      },
    });
    fingerprint = first.json().subject.card.fingerprint;
    expect(fingerprint).not.toContain(CARD);

    const [created, ipList] = await Promise.all([
      cli(
        'risk',
        'lists',
        'create',
        ...tenant,
        '--name',
        'Blocked cards',
        '--entry-type',
        'card_fingerprint',
        '--description',
        'chargebacks',
        '--operator',
        'alice',
        '--json',
      ),
      cli('risk', 'lists', 'create', ...tenant, '--name', 'Proxies', '--entry-type', 'ip', '--json'),
    ]);
    expect(created.status).toBe(0);
    blockList = created.json();
    expect(blockList).toMatchObject({
      tenantId: s.sandbox.tenantId,
      livemode: false,
      name: 'Blocked cards',
      description: 'chargebacks',
      entryType: 'card_fingerprint',
      entryCount: 0,
      createdBy: op('alice'),
      deletedAt: null,
    });
    const ipId: string = ipList.json().id;

    const [added, range, badIp, badType] = await Promise.all([
      cli('risk', 'lists', 'add-entry', blockList.id, fingerprint, ...tenant, '--note', 'chargeback 2026-11', '--json'),
      cli('risk', 'lists', 'add-entry', ipId, '203.0.113.77/24', ...tenant, '--json'),
      cli('risk', 'lists', 'add-entry', ipId, 'not-an-address', ...tenant, '--json'),
      cli('risk', 'lists', 'create', ...tenant, '--name', 'Bad', '--entry-type', 'phone', '--json'),
    ]);
    expect(added.status).toBe(0);
    expect(added.json()).toMatchObject({
      listGroupId: blockList.id,
      entryType: 'card_fingerprint',
      value: fingerprint,
      note: 'chargeback 2026-11',
    });
    expect(range.json()).toMatchObject({ listGroupId: ipId, value: '203.0.113.0/24' });
    expect(badIp.status).toBe(2);
    expect(badIp.json().error.errors).toEqual([
      { path: 'VALUE', message: 'must be an IPv4 or IPv6 address or a CIDR range such as 203.0.113.0/24' },
    ]);
    expect(badType.status).toBe(2);
    const twice = await cli('risk', 'lists', 'add-entry', ipId, '203.0.113.0/24', ...tenant, '--json');
    expect(twice.status).toBe(5);
    expect(twice.json().error.code).toBe('LIST_ENTRY_EXISTS');

    const [entries, filtered, table, group] = await Promise.all([
      cli('risk', 'lists', 'entries', blockList.id, ...tenant, '--json'),
      cli('risk', 'lists', 'entries', ipId, ...tenant, '--value', '203.0.113.0/24', '--json'),
      cli('risk', 'lists', 'entries', blockList.id, ...tenant),
      cli('risk', 'lists', 'get', blockList.id, ...tenant, '--json'),
    ]);
    expect(entries.json().data.map((e: { value: string }) => e.value)).toEqual([fingerprint]);
    expect(filtered.json().data.map((e: { id: string }) => e.id)).toEqual([range.json().id]);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain(fingerprint);
    expect(table.stdout).toContain('chargeback 2026-11');
    expect(table.stdout).toMatch(/1 of 1/);
    expect(group.json()).toMatchObject({ id: blockList.id, entryCount: 1 });

    const updated = await cli('risk', 'lists', 'update', ipId, ...tenant, '--name', 'Open proxies', '--description', 'none', '--json');
    expect(updated.json()).toMatchObject({ id: ipId, name: 'Open proxies', description: null, entryType: 'ip', entryCount: 1 });
    const [all, ipOnly, live] = await Promise.all([
      cli('risk', 'lists', 'list', ...tenant, '--json'),
      cli('risk', 'lists', 'list', ...tenant, '--entry-type', 'ip', '--json'),
      cli('risk', 'lists', 'list', ...tenant, '--live', '--json'),
    ]);
    expect(
      all
        .json()
        .data.map((g: { id: string }) => g.id)
        .sort(),
    ).toEqual([blockList.id, ipId].sort());
    expect(ipOnly.json().data.map((g: { name: string }) => g.name)).toEqual(['Open proxies']);
    expect(live.json()).toMatchObject({ data: [], pagination: { totalCount: 0 } });

    // deletes ask for confirmation: a script must pass --yes
    const unconfirmed = await cli('risk', 'lists', 'remove-entry', ipId, range.json().id, ...tenant, '--json');
    expect(unconfirmed.status).toBe(2);
    expect(unconfirmed.json().error.code).toBe('CONFIRMATION_REQUIRED');
    const removed = await cli('risk', 'lists', 'remove-entry', ipId, range.json().id, ...tenant, '--yes', '--json');
    expect(removed.json()).toMatchObject({ id: range.json().id, deletedAt: expect.any(String) });
    const deleted = await cli('risk', 'lists', 'delete', ipId, ...tenant, '--yes', '--json');
    expect(deleted.json()).toMatchObject({ id: ipId, deletedAt: expect.any(String), entryCount: 0 });
    expect((await cli('risk', 'lists', 'get', ipId, ...tenant, '--json')).status).toBe(4);

    // the tenant is required (asked on a terminal); another tenant does not see the group
    const [noTenant, otherTenant, badTenant] = await Promise.all([
      cli('risk', 'lists', 'list', '--json'),
      cli('risk', 'lists', 'get', blockList.id, '--tenant', MISSING, '--json'),
      cli('risk', 'lists', 'list', '--tenant', 'acme', '--json'),
    ]);
    expect(noTenant.status).toBe(2);
    expect(noTenant.json().error).toMatchObject({ code: 'MISSING_FLAG', errors: [{ path: '--tenant', message: 'is required' }] });
    expect(otherTenant.status).toBe(4);
    expect(badTenant.status).toBe(2);
    expect(paths(badTenant)).toEqual(['--tenant']);
  });

  test('rules: create (a velocity rule and an in_list rule), get, update, list, delete; invalid conditions name the flag', async () => {
    const conditionsFile = path.join(s.db.home, 'block.json');
    fs.writeFileSync(conditionsFile, JSON.stringify([{ field: 'card_fingerprint', operator: 'in_list', value: blockList.id }]));
    const velocityConditions = [
      {
        field: 'card_fingerprint',
        operator: 'gte',
        value: 2,
        aggregation: { metric: 'count', identifier: 'card_fingerprint' },
        statisticWindow: '10m',
      },
    ];
    const [v, b, spare] = await Promise.all([
      cli(
        'risk',
        'rules',
        'create',
        ...tenant,
        '--name',
        'Card velocity',
        '--signal',
        'challenge',
        '--score-impact',
        '30',
        '--priority',
        '10',
        '--conditions-json',
        JSON.stringify(velocityConditions),
        '--json',
      ),
      cli(
        'risk',
        'rules',
        'create',
        ...tenant,
        '--name',
        'Blocked cards',
        '--signal',
        'block',
        '--score-impact',
        '100',
        '--priority',
        '20',
        '--conditions-json',
        conditionsFile,
        '--operator',
        'bob',
        '--json',
      ),
      cli(
        'risk',
        'rules',
        'create',
        ...tenant,
        '--name',
        'Big amounts',
        '--score-impact',
        '5',
        '--conditions-json',
        '[{"field":"amount","operator":"gt","value":"100000"}]',
        '--json',
      ),
    ]);
    expect(v.status).toBe(0);
    velocity = v.json();
    expect(velocity).toMatchObject({
      tenantId: s.sandbox.tenantId,
      livemode: false,
      name: 'Card velocity',
      signal: 'challenge',
      scoreImpact: 30,
      priority: 10,
      isActive: true,
      conditions: [
        {
          field: 'card_fingerprint',
          operator: 'gte',
          value: '2',
          statisticWindow: '10m',
          aggregation: {
            metric: 'count',
            identifier: 'card_fingerprint',
            period: { value: 10, unit: 'minute' },
            scope: ['tenant'],
            currency: null,
          },
        },
      ],
    });
    blockRule = b.json();
    expect(blockRule).toMatchObject({
      signal: 'block',
      scoreImpact: 100,
      priority: 20,
      createdBy: op('bob'),
      conditions: [{ field: 'card_fingerprint', operator: 'in_list', value: blockList.id, aggregation: null }],
    });
    expect(spare.json()).toMatchObject({ signal: 'allow', priority: 100, isActive: true });

    // issues name the flag: the schema's, the service's, and the flag's own
    const [notArray, badOperator, badField, wrongList, badSignal, missingScore] = await Promise.all([
      cli(
        'risk',
        'rules',
        'create',
        ...tenant,
        '--name',
        'Bad',
        '--score-impact',
        '1',
        '--conditions-json',
        '{"field":"amount"}',
        '--json',
      ),
      cli(
        'risk',
        'rules',
        'create',
        ...tenant,
        '--name',
        'Bad',
        '--score-impact',
        '1',
        '--conditions-json',
        '[{"field":"amount","operator":"contains","value":"1"}]',
        '--json',
      ),
      cli(
        'risk',
        'rules',
        'create',
        ...tenant,
        '--name',
        'Bad',
        '--score-impact',
        '1',
        '--conditions-json',
        '[{"field":"phone","operator":"eq","value":"1"}]',
        '--json',
      ),
      cli(
        'risk',
        'rules',
        'create',
        ...tenant,
        '--name',
        'Bad',
        '--score-impact',
        '1',
        '--conditions-json',
        `[{"field":"email","operator":"in_list","value":"${blockList.id}"}]`,
        '--json',
      ),
      cli(
        'risk',
        'rules',
        'create',
        ...tenant,
        '--name',
        'Bad',
        '--score-impact',
        '1',
        '--signal',
        'deny',
        '--conditions-json',
        conditionsFile,
        '--json',
      ),
      cli('risk', 'rules', 'create', ...tenant, '--name', 'Bad', '--conditions-json', conditionsFile, '--json'),
    ]);
    for (const res of [notArray, badOperator, badField, wrongList, badSignal, missingScore]) expect(res.status).toBe(2);
    expect(paths(notArray)).toEqual(['--conditions-json']);
    expect(badOperator.json().error.errors).toEqual([
      { path: '--conditions-json[0].operator', message: expect.stringContaining('for field amount') },
    ]);
    expect(paths(badField)).toEqual(['--conditions-json[0].field']);
    expect(wrongList.json().error.errors).toEqual([
      { path: '--conditions-json[0].value', message: expect.stringContaining('card_fingerprint entries') },
    ]);
    expect(missingScore.json().error.errors).toEqual([{ path: '--score-impact', message: 'is required' }]);

    const [inactive, shown] = await Promise.all([
      cli('risk', 'rules', 'update', spare.json().id, ...tenant, '--inactive', '--score-impact', '-5', '--description', 'small', '--json'),
      cli('risk', 'rules', 'get', velocity.id, ...tenant),
    ]);
    expect(inactive.json()).toMatchObject({ id: spare.json().id, isActive: false, scoreImpact: -5, description: 'small', signal: 'allow' });
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain('count(card_fingerprint, 10m) gte 2');
    const [nothing, bothWays] = await Promise.all([
      cli('risk', 'rules', 'update', velocity.id, ...tenant, '--json'),
      cli('risk', 'rules', 'update', velocity.id, ...tenant, '--active', '--inactive', '--json'),
    ]);
    expect(nothing.status).toBe(2);
    expect(bothWays.status).toBe(2);
    expect((await cli('risk', 'rules', 'get', velocity.id, ...tenant, '--json')).json()).toEqual(velocity);

    const [blocks, actives, listed] = await Promise.all([
      cli('risk', 'rules', 'list', ...tenant, '--signal', 'block', '--json'),
      cli('risk', 'rules', 'list', ...tenant, '--active', '--json'),
      cli('risk', 'rules', 'list', ...tenant),
    ]);
    expect(blocks.json().data.map((r: { id: string }) => r.id)).toEqual([blockRule.id]);
    expect(
      actives
        .json()
        .data.map((r: { id: string }) => r.id)
        .sort(),
    ).toEqual([velocity.id, blockRule.id].sort());
    expect(listed.stdout).toContain('Card velocity');
    expect(listed.stdout).toContain(`card_fingerprint in_list ${blockList.id}`);
    expect(listed.stdout).toMatch(/3 of 3/);

    const gone = await cli('risk', 'rules', 'delete', spare.json().id, ...tenant, '--yes', '--json');
    expect(gone.json()).toMatchObject({ id: spare.json().id, deletedAt: expect.any(String) });
    expect((await cli('risk', 'rules', 'get', spare.json().id, ...tenant, '--json')).status).toBe(4);
  });

  test('plans: create, get, update (thresholds kept unless named), enable, disable, list, delete', async () => {
    const [main, strict] = await Promise.all([
      cli('risk', 'plans', 'create', ...tenant, '--name', 'Default', '--rules', `${velocity.id},${blockRule.id}`, '--enable', '--json'),
      cli(
        'risk',
        'plans',
        'create',
        ...tenant,
        '--name',
        'Strict shop',
        '--merchant',
        s.sandbox.merchantId,
        '--rules',
        velocity.id,
        '--challenge-score',
        '30',
        '--json',
      ),
    ]);
    expect(main.status).toBe(0);
    plan = main.json();
    expect(plan).toMatchObject({
      tenantId: s.sandbox.tenantId,
      livemode: false,
      merchantId: null,
      name: 'Default',
      status: 'enabled',
      ruleIds: [velocity.id, blockRule.id],
      thresholds: { challenge: null, review: null, decline: null },
      ownerLevel: 'tenant',
    });
    const strictId: string = strict.json().id;
    expect(strict.json()).toMatchObject({
      merchantId: s.sandbox.merchantId,
      status: 'disabled',
      thresholds: { challenge: 30, review: null, decline: null },
    });

    const kept = await cli('risk', 'plans', 'update', strictId, ...tenant, '--decline-score', '80', '--json');
    expect(kept.json().thresholds).toEqual({ challenge: 30, review: null, decline: 80 });
    const [above, unknownRule, badScore, badMerchant] = await Promise.all([
      cli('risk', 'plans', 'update', strictId, ...tenant, '--decline-score', '20', '--json'),
      cli('risk', 'plans', 'update', strictId, ...tenant, '--rules', `${velocity.id},${MISSING}`, '--json'),
      cli('risk', 'plans', 'create', ...tenant, '--name', 'Bad', '--review-score', 'high', '--json'),
      cli('risk', 'plans', 'create', ...tenant, '--name', 'Bad', '--merchant', MISSING, '--review-score', '0', '--json'),
    ]);
    expect(above.status).toBe(2);
    expect(above.json().error.errors).toEqual([{ path: '--challenge-score', message: 'must not be above thresholds.decline' }]);
    // looked up as the API looks it up (validateRiskInput), before the service: the API's refusal, naming the flag
    expect([unknownRule.status, unknownRule.json().error.errors]).toEqual([2, [{ path: '--rules[1]', message: 'no such scoring rule' }]]);
    expect(badScore.json().error.errors).toEqual([{ path: '--review-score', message: 'must be an integer or none' }]);
    expect(paths(badMerchant)).toEqual(['--review-score']);
    const cleared = await cli(
      'risk',
      'plans',
      'update',
      strictId,
      ...tenant,
      '--merchant',
      'none',
      '--challenge-score',
      'none',
      '--name',
      'Strict',
      '--json',
    );
    expect(cleared.json()).toMatchObject({ name: 'Strict', merchantId: null, thresholds: { challenge: null, review: null, decline: 80 } });

    const enabled = await cli('risk', 'plans', 'enable', strictId, ...tenant, '--json');
    expect(enabled.json()).toMatchObject({ id: strictId, status: 'enabled' });
    const again = await cli('risk', 'plans', 'enable', strictId, ...tenant, '--json');
    expect(again.status).toBe(5);
    expect(again.json().error.code).toBe('INVALID_STATE_TRANSITION');
    expect((await cli('risk', 'plans', 'disable', strictId, ...tenant, '--yes', '--json')).json()).toMatchObject({
      id: strictId,
      status: 'disabled',
    });

    const [enabledOnly, got, table] = await Promise.all([
      cli('risk', 'plans', 'list', ...tenant, '--status', 'enabled', '--json'),
      cli('risk', 'plans', 'get', plan.id, ...tenant, '--json'),
      cli('risk', 'plans', 'list', ...tenant),
    ]);
    expect(enabledOnly.json().data.map((p: { id: string }) => p.id)).toEqual([plan.id]);
    expect(got.json()).toEqual(plan);
    expect(table.stdout).toContain('Default');
    expect(table.stdout).toContain('decline 80');
    expect(table.stdout).toMatch(/2 of 2/);

    const deleted = await cli('risk', 'plans', 'delete', strictId, ...tenant, '--yes', '--json');
    expect(deleted.json()).toMatchObject({ id: strictId, deletedAt: expect.any(String) });
    expect((await cli('risk', 'plans', 'get', strictId, ...tenant, '--json')).status).toBe(4);
  });

  test('config: get the defaults, set (values not given kept), reset', async () => {
    const defaults = await cli('risk', 'config', 'get', ...tenant, '--json');
    expect(defaults.json()).toEqual({
      tenantId: s.sandbox.tenantId,
      challengeScore: 50,
      reviewScore: null,
      declineScore: 100,
      enforcement: 'enforce',
      isDefault: true,
      updatedBy: null,
      createdAt: null,
      updatedAt: null,
    });
    const set = await cli(
      'risk',
      'config',
      'set',
      ...tenant,
      '--challenge-score',
      '40',
      '--review-score',
      '60',
      '--operator',
      'carol',
      '--json',
    );
    expect(set.json()).toMatchObject({
      challengeScore: 40,
      reviewScore: 60,
      declineScore: 100,
      enforcement: 'enforce',
      isDefault: false,
      updatedBy: op('carol'),
    });
    const monitor = await cli('risk', 'config', 'set', ...tenant, '--enforcement', 'monitor', '--review-score', 'none', '--json');
    expect(monitor.json()).toMatchObject({ challengeScore: 40, reviewScore: null, declineScore: 100, enforcement: 'monitor' });
    const [above, notNumber, nothing, shown] = await Promise.all([
      cli('risk', 'config', 'set', ...tenant, '--challenge-score', '500', '--json'),
      cli('risk', 'config', 'set', ...tenant, '--decline-score', 'none', '--json'),
      cli('risk', 'config', 'set', ...tenant, '--json'),
      cli('risk', 'config', 'get', ...tenant),
    ]);
    expect(above.status).toBe(2);
    expect(above.json().error.errors).toEqual([{ path: '--challenge-score', message: 'must not be above declineScore (100)' }]);
    expect(notNumber.json().error.errors).toEqual([{ path: '--decline-score', message: 'must be an integer' }]);
    expect(nothing.status).toBe(2);
    expect(shown.stdout).toMatch(/enforcement\s+monitor/);
    const reset = await cli('risk', 'config', 'reset', ...tenant, '--yes', '--json');
    expect(reset.json()).toMatchObject({
      challengeScore: 50,
      reviewScore: null,
      declineScore: 100,
      enforcement: 'enforce',
      isDefault: true,
    });
  });

  test("evaluate: the same input gives the same decision, the engine's and a real checkout payment's", async () => {
    const file = path.join(s.db.home, 'payment.json');
    fs.writeFileSync(file, JSON.stringify({ merchantId: s.sandbox.merchantId, ...JSON.parse(payment(CARD)) }));
    const [one, two] = await Promise.all([
      cli('risk', 'evaluate', '--payment-json', file, '--json'),
      cli('risk', 'evaluate', '--payment-json', file, '--json'),
    ]);
    expect(one.status).toBe(0);
    expect(two.json()).toEqual(one.json());
    const run = one.json();
    // the velocity rule counts this one payment (1 < 2); the block list holds the card
    expect(run.decision).toEqual({
      decision: 'decline',
      evaluatedDecision: 'decline',
      enforced: true,
      score: 100,
      matchedRules: [{ id: blockRule.id, name: 'Blocked cards', signal: 'block', scoreImpact: 100, priority: 20 }],
      thresholds: { challenge: 50, review: null, decline: 100 },
      planIds: [plan.id],
      reason: 'blocked by rule "Blocked cards"',
    });
    expect(run.subject.card.fingerprint).toBe(fingerprint);

    // the engine in this process, on the same database and subject
    const subject = run.subject as RiskSubject;
    const engine = await withRuntimeOf(s.db, (rt) =>
      evaluateRisk(operatorContext(rt, { level: 'tenant', tenantId: s.sandbox.tenantId, livemode: false }), subject),
    );
    expect(engine).toEqual(run.decision);

    // a real checkout payment with the card: declined by the risk checks with the dry run's decision
    const paid = await withRuntimeOf(s.db, async (rt) => {
      const ctx = operatorContext(rt, {
        level: 'merchant',
        tenantId: s.sandbox.tenantId,
        merchantId: s.sandbox.merchantId,
        livemode: false,
      });
      const session = await createSession(ctx, { amount: { currency: 'EUR', valueMinor: 2500 } });
      await completeCheckoutSession(ctx, session.id, {
        paymentMethod: { type: 'card', card: { number: CARD, expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' } },
      });
      const row = await rt.db.models.Payment.findOne({ where: { checkoutSessionId: session.id }, raw: true });
      return row as unknown as { status: string; errorCode: string; cardFingerprint: string; riskDecision: unknown };
    });
    expect(paid).toMatchObject({ status: 'failed', errorCode: 'RISK_DECLINED', cardFingerprint: fingerprint });
    const stored = typeof paid.riskDecision === 'string' ? JSON.parse(paid.riskDecision) : paid.riskDecision;
    expect(stored).toEqual(run.decision);

    // the dry run counts that payment now: the velocity rule matches too (2 payments of the card in 10 minutes)
    const after = await cli('risk', 'evaluate', '--payment-json', file, '--json');
    expect(after.json().decision).toMatchObject({
      decision: 'decline',
      score: 130,
      matchedRules: [
        { id: velocity.id, signal: 'challenge' },
        { id: blockRule.id, signal: 'block' },
      ],
      reason: 'blocked by rule "Blocked cards"',
    });
    // another card: allowed; the table shows the decision
    const [other, table] = await Promise.all([
      cli('risk', 'evaluate', '--merchant', s.sandbox.merchantId, '--payment-json', payment(OTHER_CARD), '--json'),
      cli('risk', 'evaluate', '--payment-json', file, '--tenant', s.sandbox.tenantId),
    ]);
    expect(other.json().decision).toMatchObject({ decision: 'allow', score: 0, matchedRules: [], planIds: [plan.id], reason: null });
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/decision\s+decline/);
    expect(table.stdout).toMatch(/score\s+130/);
    expect(table.stdout).toContain('blocked by rule "Blocked cards"');
    expect(table.stdout).toMatch(/Card velocity\s+│\s+challenge\s+│\s+30/);

    // under monitor enforcement the decision is recorded, not applied
    await cli('risk', 'config', 'set', ...tenant, '--enforcement', 'monitor', '--json');
    const monitored = await cli('risk', 'evaluate', '--payment-json', file, '--json');
    expect(monitored.json().decision).toMatchObject({ decision: 'allow', evaluatedDecision: 'decline', enforced: false });
    await cli('risk', 'config', 'reset', ...tenant, '--yes', '--json');
  });

  test('evaluate: invalid payments name the field of --payment-json (or --merchant), exit 2', async () => {
    const [fields, unknown, luhn, badMerchant, noFile, noMerchant, notInTenant] = await Promise.all([
      cli(
        'risk',
        'evaluate',
        '--payment-json',
        JSON.stringify({ merchantId: 'shop', amount: { currency: 'eur', valueMinor: 1 } }),
        '--json',
      ),
      cli('risk', 'evaluate', '--merchant', s.sandbox.merchantId, '--payment-json', payment(CARD, { colour: 'red' }), '--json'),
      cli('risk', 'evaluate', '--merchant', s.sandbox.merchantId, '--payment-json', payment('4242424242424241'), '--json'),
      cli('risk', 'evaluate', '--merchant', 'shop', '--payment-json', payment(CARD), '--json'),
      cli('risk', 'evaluate', '--payment-json', path.join(s.db.home, 'nope.json'), '--json'),
      cli('risk', 'evaluate', '--merchant', MISSING, '--payment-json', payment(CARD), '--json'),
      cli('risk', 'evaluate', '--merchant', s.sandbox.merchantId, '--tenant', MISSING, '--payment-json', payment(CARD), '--json'),
    ]);
    for (const res of [fields, unknown, luhn, badMerchant, noFile]) expect(res.status).toBe(2);
    expect(paths(fields)).toEqual(['--payment-json.merchantId', '--payment-json.amount.currency']);
    expect(unknown.json().error.errors).toEqual([{ path: '--payment-json.colour', message: 'is not a known field' }]);
    expect(luhn.json().error.errors).toEqual([{ path: '--payment-json.card.number', message: 'is not a valid card number (check digit)' }]);
    expect(paths(badMerchant)).toEqual(['--merchant']);
    expect(paths(noFile)).toEqual(['--payment-json']);
    expect(noMerchant.status).toBe(4);
    expect(notInTenant.status).toBe(4);
  });
});
