import fs from 'node:fs';
import path from 'node:path';
import { useMoneyHarness, payWithCard, openSession, type MoneyHarness } from '../helpers/money';
import { dialectName } from '../helpers/db';
import { saveMethod } from '../helpers/withdrawals';
import { SANDBOX_CARD_PROVIDER_ID } from '../../src/services/processing/providers';
import { describeWhenPresent } from '../helpers/prerequisite';
import { eur } from '../helpers/amounts';

// Issue 20 item 5: the values the specification names ("observed" in its tables) are accepted where they are inputs
// and read back. The observed values are parsed from the specification's tables, so a new one fails this test until a
// recipe sends it (or a reason says why no request takes it).

const SPEC = path.resolve(__dirname, '../../../shared/spec/platform-api-spec.md');
const SPEC_TEXT = fs.existsSync(SPEC) ? fs.readFileSync(SPEC, 'utf8') : null;
const describeSpec = describeWhenPresent("the specification's observed values", SPEC_TEXT === null ? `${SPEC} is missing` : null);

interface Observed {
  section: string;
  field: string;
  value: string;
}

/** Every "observed" value of the specification's record tables and their prose lines, with its section and field. */
function observedValues(text: string): Observed[] {
  const out: Observed[] = [];
  let section = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('### ')) section = line.slice(4).trim();
    if (!section || !line.includes('observed') || line.startsWith('- ') || line.startsWith('Conventions')) continue;
    if (line.startsWith('|')) {
      const cells = line
        .replace(/^\||\|$/g, '')
        .split('|')
        .map((c) => c.trim());
      for (const m of cells[1].matchAll(/observed:?\s*([^;),]+)/g)) out.push({ section, field: cells[0], value: m[1].trim() });
    } else {
      for (const m of line.matchAll(/(\w[\w<>]*)\s*\((?:[^()]*?)observed:?\s*([^;),]+)/g))
        out.push({ section, field: m[1], value: m[2].trim() });
    }
  }
  return out;
}

const keyOf = (o: Observed) => `${o.section} / ${o.field} / ${o.value}`;

const m = useMoneyHarness();
let tenant: ReturnType<MoneyHarness['as']>;
let merchant: ReturnType<MoneyHarness['as']>;
let terminalId: string;

beforeAll(async () => {
  tenant = m.as(m.sandbox.tenantKey.secretKey);
  merchant = m.as(m.sandbox.merchantKey.secretKey);
  const terminals = await tenant.get('/v1/admin/terminals?limit=100');
  terminalId = terminals.body.data.find((t: { supportedPaymentMethodTypes: string[] }) =>
    t.supportedPaymentMethodTypes.includes('card'),
  ).id;
});

type Res = { status: number; body: { data?: Record<string, unknown> & { id?: string }; [k: string]: unknown } };
function ok<T extends Res>(res: T, what: string): T['body']['data'] & Record<string, any> {
  if (res.status < 200 || res.status > 299) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as never;
}

// ------------------------------------------------------------------------------------------------ the recipes
// Each input value is sent in a request that takes it, answers 2xx, and is read back by the matching GET.

const readBack = async (pathName: string) => ok(await tenant.get(pathName), `read ${pathName}`);

async function scoringRule(condition: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const created = ok(
    await tenant.post('/v1/admin/scoring-rules', { name: 'spec value', scoreImpact: 1, priority: 1, conditions: [condition], ...extra }),
    'scoring rule',
  );
  return readBack(`/v1/admin/scoring-rules/${created.id}`);
}
const sumAggregation = { metric: 'sum', period: { value: 1, unit: 'minute' }, scope: ['terminal'], identifier: 'card_fingerprint' };

async function terminalWith(body: Record<string, unknown>) {
  const created = ok(
    await tenant.post('/v1/admin/terminals', {
      providerIntegrationId: SANDBOX_CARD_PROVIDER_ID,
      name: 'spec value terminal',
      credentials: { merchantAccount: 'acct', apiKey: 'key' },
      supportedCurrencies: ['EUR'],
      ...body,
    }),
    'terminal',
  );
  return readBack(`/v1/admin/terminals/${created.id}`);
}

async function limitOf(base: string, body: Record<string, unknown>) {
  const created = ok(
    await tenant.post(base, { period: { value: 1, unit: 'day' }, metric: 'count', threshold: 1_000_000, ...body }),
    `limit ${base}`,
  );
  const list = ok(await tenant.get(`${base}?limit=100`), 'limits') as unknown as Record<string, unknown>[];
  return list.find((l) => l.id === created.id)!;
}
const merchantLimit = (body: Record<string, unknown>) => limitOf(`/v1/admin/merchants/${m.sandbox.merchantId}/limits`, body);

async function restriction(body: Record<string, unknown>) {
  const base = `/v1/admin/terminals/${terminalId}/restrictions`;
  const created = ok(await tenant.post(base, { action: 'deny', paymentMethod: 'card', ...body }), 'restriction');
  const list = ok(await tenant.get(`${base}?limit=100`), 'restrictions') as unknown as Record<string, unknown>[];
  const row = list.find((r) => r.id === created.id)!;
  ok(await tenant.post(`${base}/${created.id}/disable`), 'disable restriction');
  return row;
}

async function feeSchedule(body: Record<string, unknown>) {
  const created = ok(await tenant.post('/v1/admin/fee-schedules', { name: 'spec value fees', ...body }), 'fee schedule');
  return readBack(`/v1/admin/fee-schedules/${created.id}`);
}
const feeRule = (rule: Record<string, unknown>) =>
  feeSchedule({
    rules: [
      {
        transactionType: 'payment',
        transactionOutcome: 'successful',
        method: 'fixed',
        party: 'tenant',
        currency: 'EUR',
        fixedAmount: { currency: 'EUR', valueMinor: 10 },
        ...rule,
      },
    ],
  }).then((s) => s.rules[0]);

async function checkoutSession(body: Record<string, unknown>) {
  const created = await openSession(m, { amount: eur(1_000), ...body });
  return ok(await merchant.get(`/v1/checkout-sessions/${created.id}`), 'read session');
}
const agentic = (context: Record<string, unknown>) => checkoutSession({ agenticContext: context }).then((s) => s.agenticContext);

async function invitedUser(body: Record<string, unknown>) {
  const invited = ok(
    await tenant.post('/v1/users/invite', { email: `spec-${Math.random().toString(36).slice(2)}@example.com`, ...body }),
    'invite',
  );
  return readBack(`/v1/users/${invited.user.id}`);
}

async function apiKey() {
  const created = ok(await tenant.post('/v1/api-keys', { name: 'spec value key' }), 'api key');
  return readBack(`/v1/api-keys/${created.id}`);
}

/** Input values: the value, sent where it is an input, comes back in the read. */
const INPUTS: Record<string, () => Promise<void>> = {
  'Terminal / direction / payin': async () => expect((await terminalWith({ direction: 'payin' })).direction).toBe('payin'),
  'Terminal / status / active': async () => {
    const list = ok(await tenant.get('/v1/admin/terminals?status=active'), 'terminals by status') as unknown as { status: string }[];
    expect(list.length).toBeGreaterThan(0);
    expect(new Set(list.map((t) => t.status))).toEqual(new Set(['active']));
  },
  'Terminal / supportedPaymentMethodTypes / card': async () =>
    expect((await terminalWith({ supportedPaymentMethodTypes: ['card'] })).supportedPaymentMethodTypes).toEqual(['card']),
  'Terminal / executionModel / gateway_full': async () =>
    expect(
      (
        await terminalWith({
          threeDsConfig: {
            enabled: true,
            executionModel: 'gateway_full',
            mpiAccounts: [],
            rules: { processOnly3dsCards: false, declineOnAttemptStatus: false, allowMerchantDisable: true },
          },
        })
      ).threeDsConfig.executionModel,
    ).toBe('gateway_full'),
  'Limit (terminal limit and other entity limits) / entityType / merchant': async () =>
    expect((await merchantLimit({})).entityType).toBe('merchant'),
  'Limit (terminal limit and other entity limits) / period / minute': async () =>
    expect((await merchantLimit({ period: { value: 1, unit: 'minute' } })).period).toEqual({ value: 1, unit: 'minute' }),
  'Limit (terminal limit and other entity limits) / metric / volume': async () =>
    expect(await merchantLimit({ metric: 'volume', currency: 'EUR', threshold: 100_000_000 })).toMatchObject({
      metric: 'volume',
      currency: 'EUR',
    }),
  'Limit (terminal limit and other entity limits) / transactionType / payment': async () =>
    expect((await merchantLimit({ transactionType: 'payment' })).transactionType).toBe('payment'),
  'Limit (terminal limit and other entity limits) / status / active': async () => {
    const list = ok(
      await tenant.get(`/v1/admin/merchants/${m.sandbox.merchantId}/limits?status=active`),
      'limits by status',
    ) as unknown as { status: string }[];
    expect(list.length).toBeGreaterThan(0);
    expect(new Set(list.map((l) => l.status))).toEqual(new Set(['active']));
  },
  'Terminal restriction / action / allow': async () => expect((await restriction({ action: 'allow' })).action).toBe('allow'),
  'Terminal restriction / transactionType / payment': async () =>
    expect((await restriction({ transactionType: 'payment' })).transactionType).toBe('payment'),
  'Terminal restriction / status / active': async () => {
    const base = `/v1/admin/terminals/${terminalId}/restrictions`;
    const created = ok(await tenant.post(base, { action: 'deny', paymentMethod: 'card' }), 'restriction');
    const list = ok(await tenant.get(`${base}?status=active`), 'restrictions by status') as unknown as { id: string; status: string }[];
    expect(list.map((r) => r.id)).toContain(created.id);
    expect(new Set(list.map((r) => r.status))).toEqual(new Set(['active']));
    ok(await tenant.post(`${base}/${created.id}/disable`), 'disable restriction');
  },
  'Scoring rule / signal / allow': async () =>
    expect((await scoringRule({ field: 'amount', operator: 'gt', value: '1' }, { signal: 'allow' })).signal).toBe('allow'),
  'Scoring rule / field / amount': async () =>
    expect((await scoringRule({ field: 'amount', operator: 'gt', value: '1' })).conditions[0].field).toBe('amount'),
  'Scoring rule / operator / eq': async () =>
    expect((await scoringRule({ field: 'amount', operator: 'eq', value: '100' })).conditions[0].operator).toBe('eq'),
  'Scoring rule / metric / sum': async () =>
    expect(
      (await scoringRule({ field: 'amount', operator: 'gt', value: '1', aggregation: sumAggregation })).conditions[0].aggregation.metric,
    ).toBe('sum'),
  'Scoring rule / unit / minute': async () =>
    expect(
      (await scoringRule({ field: 'amount', operator: 'gt', value: '1', aggregation: sumAggregation })).conditions[0].aggregation.period,
    ).toEqual({ value: 1, unit: 'minute' }),
  'Scoring rule / string / terminal': async () =>
    expect(
      (await scoringRule({ field: 'amount', operator: 'gt', value: '1', aggregation: sumAggregation })).conditions[0].aggregation.scope,
    ).toEqual(['terminal']),
  'Scoring rule / identifier / card_fingerprint': async () =>
    expect(
      (await scoringRule({ field: 'amount', operator: 'gt', value: '1', aggregation: sumAggregation })).conditions[0].aggregation
        .identifier,
    ).toBe('card_fingerprint'),
  'Scoring rule / statisticWindow / 1d': async () => {
    const rule = await scoringRule({
      field: 'amount',
      operator: 'gt',
      value: '1',
      aggregation: { metric: 'count', identifier: 'card_fingerprint' },
      statisticWindow: '1d',
    });
    expect(rule.conditions[0]).toMatchObject({ statisticWindow: '1d', aggregation: { period: { value: 1, unit: 'day' } } });
  },
  'Integration profile / mode / checkout': async () => {
    // the sandbox merchant has its checkout profile: the value is read back, and a list filtered by it finds it
    const list = ok(
      await tenant.get(`/v1/admin/integration-profiles?mode=checkout&merchantId=${m.sandbox.merchantId}`),
      'profiles',
    ) as unknown as { mode: string }[];
    expect(list.map((p) => p.mode)).toEqual(['checkout']);
  },
  'Integration profile / status / enabled': async () => {
    const [profile] = ok(
      await tenant.get(`/v1/admin/integration-profiles?mode=checkout&merchantId=${m.sandbox.merchantId}`),
      'profiles',
    ) as unknown as { id: string }[];
    expect(ok(await tenant.patch(`/v1/admin/integration-profiles/${profile.id}`, { status: 'enabled' }), 'profile status').status).toBe(
      'enabled',
    );
  },
  'User / layer / merchant': async () =>
    expect((await invitedUser({ layer: 'merchant', merchantId: m.sandbox.merchantId })).layer).toBe('merchant'),
  'User / entityScope / { type: all }': async () =>
    expect((await invitedUser({ entityScope: { type: 'all' } })).entityScope).toEqual({ type: 'all' }),
  'User / status / pending_invitation': async () => {
    const user = await invitedUser({});
    expect(user.status).toBe('pending_invitation');
    const list = ok(await tenant.get('/v1/users?status=pending_invitation'), 'users by status') as unknown as { id: string }[];
    expect(list.map((u) => u.id)).toContain(user.id);
  },
  'Fee schedule / rollingReserve / 10000': async () =>
    expect((await feeSchedule({ rollingReserve: { rate: 10000, holdDays: 30, roundingMode: 'floor' } })).rollingReserve.rate).toBe(10000),
  'Fee schedule / rollingReserve / floor': async () =>
    expect((await feeSchedule({ rollingReserve: { rate: 500, holdDays: 30, roundingMode: 'floor' } })).rollingReserve.roundingMode).toBe(
      'floor',
    ),
  'Fee schedule / transactionType / payment': async () =>
    expect((await feeRule({ transactionType: 'payment' })).transactionType).toBe('payment'),
  'Fee schedule / transactionOutcome / successful': async () =>
    expect((await feeRule({ transactionOutcome: 'successful' })).transactionOutcome).toBe('successful'),
  'Fee schedule / method / fixed': async () => expect((await feeRule({ method: 'fixed' })).method).toBe('fixed'),
  'Fee schedule / percentageRate / 10000': async () =>
    expect((await feeRule({ method: 'percentage', fixedAmount: undefined, percentageRate: 10000 })).percentageRate).toBe(10000),
  'Provider integration / category / card_acquirer': async () => {
    const list = ok(
      await m.as(m.sandbox.platformToken).get('/v1/admin/provider-integrations?category=card_acquirer'),
      'providers by category',
    ) as unknown as { category: string }[];
    expect(list.length).toBeGreaterThan(0);
    expect(new Set(list.map((p) => p.category))).toEqual(new Set(['card_acquirer']));
  },
  'Checkout session / totals / total': async () => {
    const session = await checkoutSession({
      lineItems: [{ label: 'Book', unitAmount: { currency: 'EUR', valueMinor: 1_000 }, quantity: 1 }],
    });
    expect(session.totals.map((t: { type: string }) => t.type)).toContain('total');
  },
  'Checkout session / fulfillmentOptions / shipping': async () => {
    const option = { id: 'std', type: 'shipping', title: 'Standard', price: { currency: 'EUR', valueMinor: 0 } };
    expect((await checkoutSession({ fulfillmentOptions: [option] })).fulfillmentOptions[0].type).toBe('shipping');
  },
  'Checkout session / channel / acp': async () => expect((await agentic({ channel: 'acp' })).channel).toBe('acp'),
  'Checkout session / trustLayers / <card_network>_tap': async () =>
    expect((await agentic({ trustLayers: ['visa_tap'] })).trustLayers).toEqual(['visa_tap']),
  'Checkout session / status / verified': async () =>
    expect((await agentic({ agentVerification: { status: 'verified' } })).agentVerification.status).toBe('verified'),
  'Checkout session / tag / agent-browser-auth': async () =>
    expect((await agentic({ agentVerification: { tag: 'agent-browser-auth' } })).agentVerification.tag).toBe('agent-browser-auth'),
  'Checkout session / modality / human_present': async () =>
    expect((await agentic({ mandate: { modality: 'human_present' } })).mandate.modality).toBe('human_present'),
  'Checkout session / source / acp': async () =>
    expect((await agentic({ riskSignals: [{ source: 'acp', type: 'score', score: 0.1 }] })).riskSignals[0].source).toBe('acp'),
  'Checkout session / action / allow': async () =>
    expect((await agentic({ riskSignals: [{ source: 'acp', action: 'allow' }] })).riskSignals[0].action).toBe('allow'),
  'Checkout session / status / open': async () => {
    const session = await checkoutSession({});
    expect(session.status).toBe('open');
    const list = ok(await merchant.get('/v1/checkout-sessions?status=open'), 'sessions by status') as unknown as { id: string }[];
    expect(list.map((s) => s.id)).toContain(session.id);
  },
  'Payment / captureMethod / automatic': async () => {
    const session = await checkoutSession({ captureMethod: 'automatic' });
    expect(session.captureMethod).toBe('automatic');
    const paid = await payWithCard(m, '4242424242424242', { captureMethod: 'automatic' });
    expect(paid.payment.captureMethod).toBe('automatic');
  },
};

/** Values the platform reports (no request takes them as input): read where the platform produces them, or why not. */
const OUTPUTS: Record<string, (() => Promise<void>) | string> = {
  'API key / environment / test': async () => expect((await apiKey()).environment).toBe('test'),
  'API key / keyType / public': async () => expect((await apiKey()).keyType).toBe('public'),
  'API key / inboundFormat / service_native': async () => expect((await apiKey()).inboundFormat).toBe('service_native'),
  'API key / createdByType / user': "who created a key: a user token's keys carry user (issue 20 item 14 maps CLI actors to users)",
  'Withdrawal / entityType / merchant': "set by the platform: withdrawals are requested from a merchant's balance (test/withdrawals)",
  // a withdrawal's destination is its method's: the method type is the input
  'Withdrawal / destination / bank_account': async () => {
    const method = await saveMethod(m, 'Spec value account');
    expect(ok(await merchant.get(`/v1/merchant-withdrawal-methods/${method.id}`), 'method').methodType).toBe('bank_account');
  },
  'Withdrawal / status / pending': 'the state a new withdrawal starts in (test/withdrawals)',
  // the schema takes any version; the terminal's provider must support it: the sandbox-card provider declares 2.2.0 and
  // 2.1.0 only (3DS 1.0 is retired), so the answer names the provider's versions, not a refused value
  'Terminal / preferredVersion / 1.0': async () => {
    const res = await tenant.post('/v1/admin/terminals', {
      providerIntegrationId: SANDBOX_CARD_PROVIDER_ID,
      name: 'spec value terminal',
      credentials: { merchantAccount: 'acct', apiKey: 'key' },
      supportedCurrencies: ['EUR'],
      threeDsConfig: {
        enabled: true,
        executionModel: 'gateway_full',
        rules: { processOnly3dsCards: false, declineOnAttemptStatus: false, allowMerchantDisable: true },
        mpiAccounts: [
          {
            brand: 'visa',
            enabled: true,
            merchantName: 'Shop',
            merchantId: 'm1',
            merchantCountry: 'DE',
            acquirerBin: '400000',
            preferredVersion: '1.0',
          },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { path: 'body.threeDsConfig.mpiAccounts[0].preferredVersion', message: expect.stringContaining('sandbox-card supports') },
    ]);
  },
  'Provider integration / protocol / rest': async () => {
    const list = ok(await m.as(m.sandbox.platformToken).get('/v1/admin/provider-integrations'), 'providers') as unknown as {
      protocol: string;
    }[];
    expect(list.map((p) => p.protocol)).toContain('rest');
  },
  'Checkout session / paymentStatus / processing': "the status of the session's payment while the provider is asked (test/checkout)",
  'Payment / action / redirect': async () => {
    const paid = await payWithCard(m, '4000002760003184', { settle: false });
    await m.settle();
    const read = ok(await tenant.get(`/v1/payments/${paid.paymentId}`), 'payment');
    expect(read.action?.type).toBe('redirect');
  },
  'Payment / threeDSResult / 1.0': "reported by the provider's 3DS answer (the sandbox reports 2.2.0)",
  'Payment / threeDSResult / authenticated': async () => {
    const paid = await payWithCard(m, '4000000000003220');
    expect(paid.payment.threeDSResult?.status).toBe('authenticated');
  },
  'Payment / threeDSResult / Y': "reported by the provider's 3DS answer (enrolled)",
  'Payment / threeDSResult / frictionless': "reported by the provider's 3DS answer (challengeFlow)",
  'Payment / threeDSResult / low_value': "reported by the provider's 3DS answer (exemptionApplied)",
  'Refund / status / pending': 'the state a new refund starts in (test/payments)',
};

describeSpec(`the specification's observed values (${dialectName})`, () => {
  const observed = observedValues(SPEC_TEXT ?? '');

  test("the specification's tables are parsed, and every observed value has a recipe", () => {
    expect(observed.length).toBeGreaterThan(40);
    const missing = observed.map(keyOf).filter((k) => !(k in INPUTS) && !(k in OUTPUTS));
    expect(missing).toEqual([]);
  });

  test.each(observed.map((o) => [keyOf(o)]))('%s', async (key) => {
    const input = INPUTS[key];
    const output = OUTPUTS[key];
    if (input) return input();
    if (typeof output === 'function') return output();
    expect(typeof output).toBe('string');
  });
});
