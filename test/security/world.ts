import crypto from 'node:crypto';
import request from 'supertest';
import type { ApiHarness } from '../helpers/api';
import { fundByAdjustment } from '../helpers/funding';
import { operatorContext } from '../../src/services/access/operators';
import { createTenant } from '../../src/services/tenants/tenants';
import { createCompanyRecord, createMerchantRecord } from '../../src/services/organization/records';
import { createProfile } from '../../src/services/profiles';
import { changeFeeScheduleStatus, createFeeAssignment, createFeeSchedule } from '../../src/services/fees/schedules';
import { createTerminal } from '../../src/services/processing/terminals/terminals';
import { createChannel } from '../../src/services/channels';
import { createApiKey } from '../../src/services/api-keys/keys';
import { createActiveUser } from '../../src/services/access/users';
import { SANDBOX_CARD_PROVIDER_ID, SANDBOX_PAYOUT_PROVIDER_ID } from '../../src/services/processing/providers';
import { runDueSandboxOperations } from '../../src/services/sandbox/acquirer';
import { runPayouts } from '../../src/services/payouts/run';

// The isolation world: tenant A (a live-capable tenant: merchants A1 and A2, A1 owning every merchant record, all of
// them in test mode) and tenant B (a sandbox tenant built the same way), one record of every kind an operation's path
// can name, and the callers that must not see A's records. B is built like A so that every operation has a record of
// B's own to show that B's callers do reach it (the 404 on A's is isolation, not a broken credential), and so that the
// values A and B share by construction (statuses, timestamps of the frozen clock, the global provider ids) are told
// apart from the ones only A's records hold.

/** Every kind of record a path parameter can name. */
export type Kind =
  | 'tenant'
  | 'apiKey'
  | 'merchantEndpoint'
  | 'tenantEndpoint'
  | 'delivery'
  | 'company'
  | 'merchant'
  | 'merchantLimit'
  | 'partner'
  | 'partnerAssignment'
  | 'channel'
  | 'channelLimit'
  | 'user'
  | 'invitation'
  | 'role'
  | 'kybSubmission'
  | 'kybDocument'
  | 'providerIntegration'
  | 'terminal'
  | 'mpiAccount'
  | 'restriction'
  | 'terminalLimit'
  | 'feeSchedule'
  | 'feeAssignment'
  | 'integrationProfile'
  | 'routingRule'
  | 'checkoutSession'
  | 'payment'
  | 'refund'
  | 'withdrawalMethod'
  | 'withdrawal'
  | 'antifraudPlan'
  | 'scoringRule'
  | 'listGroup'
  | 'listEntry'
  | 'balanceThreshold'
  | 'dispute'
  | 'settlement'
  | 'payout';

/**
 * Which record fills each path parameter, keyed by the operation's path up to and including the parameter. An
 * operation added under a known path (/v1/payments/{id}/disputes) is covered at once; a path parameter with no entry
 * here fails the isolation test, naming the key to add.
 */
export const PATH_PARAMS: Record<string, Kind> = {
  '/v1/api-keys/{id}': 'apiKey',
  '/v1/admin/tenants/{id}': 'tenant',
  '/v1/webhooks/endpoints/{id}': 'merchantEndpoint',
  '/v1/admin/webhook-endpoints/{endpoint_id}': 'tenantEndpoint',
  '/v1/admin/webhook-deliveries/{id}': 'delivery',
  '/v1/admin/companies/{id}': 'company',
  '/v1/admin/merchants/{id}': 'merchant',
  '/v1/admin/merchants/{id}/limits/{limitId}': 'merchantLimit',
  '/v1/admin/partners/{id}': 'partner',
  '/v1/admin/partner-assignments/{id}': 'partnerAssignment',
  '/v1/admin/channels/{id}': 'channel',
  '/v1/admin/channels/{id}/limits/{limitId}': 'channelLimit',
  '/v1/users/{id}': 'user',
  '/v1/invitations/{id}': 'invitation',
  '/v1/roles/{id}': 'role',
  '/v1/kyb-submissions/{id}': 'kybSubmission',
  '/v1/kyb-submissions/{id}/documents/{documentId}': 'kybDocument',
  '/v1/admin/kyb-submissions/{id}': 'kybSubmission',
  '/v1/admin/kyb-submissions/{id}/documents/{documentId}': 'kybDocument',
  '/v1/admin/provider-integrations/{id}': 'providerIntegration',
  '/v1/admin/terminals/{id}': 'terminal',
  '/v1/admin/terminals/{id}/3ds-config/mpi-accounts/{brand}': 'mpiAccount',
  '/v1/admin/terminals/{id}/restrictions/{restrictionId}': 'restriction',
  '/v1/admin/terminals/{id}/limits/{limitId}': 'terminalLimit',
  '/v1/admin/fee-schedules/{id}': 'feeSchedule',
  '/v1/admin/fee-assignments/{id}': 'feeAssignment',
  '/v1/admin/integration-profiles/{id}': 'integrationProfile',
  '/v1/admin/routing-rules/{id}': 'routingRule',
  '/v1/checkout-sessions/{id}': 'checkoutSession',
  '/v1/payments/{id}': 'payment',
  '/v1/refunds/{id}': 'refund',
  '/v1/merchant-withdrawal-methods/{id}': 'withdrawalMethod',
  '/v1/withdrawals/{id}': 'withdrawal',
  '/v1/admin/antifraud-plans/{id}': 'antifraudPlan',
  '/v1/admin/scoring-rules/{id}': 'scoringRule',
  '/v1/admin/list-groups/{id}': 'listGroup',
  '/v1/admin/list-groups/{id}/entries/{entryId}': 'listEntry',
  '/v1/balance-thresholds/{id}': 'balanceThreshold',
  '/v1/disputes/{id}': 'dispute',
  '/v1/settlements/{id}': 'settlement',
  '/v1/payouts/{id}': 'payout',
};

/** The path parameters of an operation's path, each with its PATH_PARAMS key. */
export function pathParams(path: string): { name: string; key: string }[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], key: path.slice(0, m.index + m[0].length) }));
}

export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name]));
}

/**
 * owner: whose the record is. `merchant`: merchant A1's (another merchant of A must not see it); `tenant`: the tenant's
 * as a whole (every caller of A may see it); `global`: the platform's catalog, the same for every tenant (no isolation).
 * modeScoped: the record belongs to one mode (test here): a caller of the other mode must not see it.
 */
export interface KindSpec {
  owner: 'merchant' | 'tenant' | 'global';
  modeScoped: boolean;
  /** a tenant-wide record an operator limited to some merchants sees only through one of them (a company) */
  viaMerchants?: boolean;
  /** How the owner reads the record: GET paths (as the tenant key unless `as` says merchant A1), `pick` for a list. */
  reads(w: TenantWorld): { path: string; as?: 'merchant'; pick?: string; file?: boolean }[];
}

export const KINDS: Record<Kind, KindSpec> = {
  tenant: { owner: 'tenant', modeScoped: false, reads: (w) => [{ path: `/v1/admin/tenants/${w.tenantId}` }] },
  apiKey: { owner: 'merchant', modeScoped: true, reads: (w) => [{ path: `/v1/api-keys/${w.ids.apiKey}` }] },
  merchantEndpoint: {
    owner: 'merchant',
    modeScoped: true,
    reads: (w) => [{ path: `/v1/webhooks/endpoints/${w.ids.merchantEndpoint}`, as: 'merchant' }],
  },
  tenantEndpoint: { owner: 'tenant', modeScoped: true, reads: (w) => [{ path: `/v1/admin/webhook-endpoints/${w.ids.tenantEndpoint}` }] },
  delivery: { owner: 'tenant', modeScoped: true, reads: (w) => [{ path: `/v1/admin/webhook-deliveries/${w.ids.delivery}` }] },
  company: { owner: 'tenant', modeScoped: true, viaMerchants: true, reads: (w) => [{ path: `/v1/admin/companies/${w.ids.company}` }] },
  merchant: {
    owner: 'merchant',
    modeScoped: false,
    reads: (w) => [{ path: `/v1/admin/merchants/${w.m1}` }, { path: `/v1/admin/merchants/${w.m1}/3ds-config` }],
  },
  merchantLimit: {
    owner: 'merchant',
    modeScoped: false,
    reads: (w) => [{ path: `/v1/admin/merchants/${w.m1}/limits?limit=100`, pick: w.ids.merchantLimit }],
  },
  partner: { owner: 'tenant', modeScoped: false, reads: (w) => [{ path: `/v1/admin/partners/${w.ids.partner}` }] },
  partnerAssignment: {
    owner: 'merchant',
    modeScoped: false,
    reads: (w) => [{ path: `/v1/admin/partner-assignments/${w.ids.partnerAssignment}` }],
  },
  channel: { owner: 'tenant', modeScoped: false, reads: (w) => [{ path: `/v1/admin/channels/${w.ids.channel}` }] },
  channelLimit: {
    owner: 'tenant',
    modeScoped: false,
    reads: (w) => [{ path: `/v1/admin/channels/${w.ids.channel}/limits?limit=100`, pick: w.ids.channelLimit }],
  },
  user: { owner: 'merchant', modeScoped: false, reads: (w) => [{ path: `/v1/users/${w.ids.user}` }] },
  invitation: { owner: 'merchant', modeScoped: false, reads: (w) => [{ path: `/v1/invitations?limit=100`, pick: w.ids.invitation }] },
  role: { owner: 'merchant', modeScoped: false, reads: (w) => [{ path: `/v1/roles/${w.ids.role}` }] },
  kybSubmission: { owner: 'merchant', modeScoped: false, reads: (w) => [{ path: `/v1/admin/kyb-submissions/${w.ids.kybSubmission}` }] },
  kybDocument: {
    owner: 'merchant',
    modeScoped: false,
    reads: (w) => [
      { path: `/v1/admin/kyb-submissions/${w.ids.kybSubmission}` },
      { path: `/v1/kyb-submissions/${w.ids.kybSubmission}/documents/${w.ids.kybDocument}/content`, as: 'merchant', file: true },
    ],
  },
  providerIntegration: {
    owner: 'global',
    modeScoped: false,
    reads: (w) => [{ path: `/v1/admin/provider-integrations/${w.ids.providerIntegration}` }],
  },
  terminal: {
    owner: 'tenant',
    modeScoped: false,
    reads: (w) => [{ path: `/v1/admin/terminals/${w.ids.terminal}` }, { path: `/v1/admin/terminals/${w.ids.terminal}/3ds-config` }],
  },
  mpiAccount: { owner: 'tenant', modeScoped: false, reads: (w) => [{ path: `/v1/admin/terminals/${w.ids.terminal}/3ds-config` }] },
  restriction: {
    owner: 'tenant',
    modeScoped: false,
    reads: (w) => [{ path: `/v1/admin/terminals/${w.ids.terminal}/restrictions?limit=100`, pick: w.ids.restriction }],
  },
  terminalLimit: {
    owner: 'tenant',
    modeScoped: false,
    reads: (w) => [{ path: `/v1/admin/terminals/${w.ids.terminal}/limits?limit=100`, pick: w.ids.terminalLimit }],
  },
  feeSchedule: { owner: 'tenant', modeScoped: false, reads: (w) => [{ path: `/v1/admin/fee-schedules/${w.ids.feeSchedule}` }] },
  feeAssignment: { owner: 'tenant', modeScoped: false, reads: (w) => [{ path: `/v1/admin/fee-assignments/${w.ids.feeAssignment}` }] },
  integrationProfile: {
    owner: 'merchant',
    modeScoped: false,
    reads: (w) => [{ path: `/v1/admin/integration-profiles/${w.ids.integrationProfile}` }],
  },
  routingRule: {
    owner: 'tenant',
    modeScoped: false,
    reads: (w) => [
      { path: `/v1/admin/routing-rules/${w.ids.routingRule}` },
      { path: `/v1/admin/routing-rules/${w.ids.routingRule}/versions` },
    ],
  },
  checkoutSession: { owner: 'merchant', modeScoped: true, reads: (w) => [{ path: `/v1/checkout-sessions/${w.ids.checkoutSession}` }] },
  payment: {
    owner: 'merchant',
    modeScoped: true,
    reads: (w) => [{ path: `/v1/payments/${w.ids.payment}` }, { path: `/v1/payments/${w.ids.payment}/refunds` }],
  },
  refund: { owner: 'merchant', modeScoped: true, reads: (w) => [{ path: `/v1/refunds/${w.ids.refund}` }] },
  withdrawalMethod: {
    owner: 'merchant',
    modeScoped: true,
    reads: (w) => [{ path: `/v1/merchant-withdrawal-methods/${w.ids.withdrawalMethod}` }],
  },
  withdrawal: { owner: 'merchant', modeScoped: true, reads: (w) => [{ path: `/v1/withdrawals/${w.ids.withdrawal}` }] },
  antifraudPlan: { owner: 'merchant', modeScoped: true, reads: (w) => [{ path: `/v1/admin/antifraud-plans/${w.ids.antifraudPlan}` }] },
  scoringRule: { owner: 'tenant', modeScoped: true, reads: (w) => [{ path: `/v1/admin/scoring-rules/${w.ids.scoringRule}` }] },
  listGroup: { owner: 'tenant', modeScoped: true, reads: (w) => [{ path: `/v1/admin/list-groups/${w.ids.listGroup}` }] },
  listEntry: {
    owner: 'tenant',
    modeScoped: true,
    reads: (w) => [{ path: `/v1/admin/list-groups/${w.ids.listGroup}/entries?limit=100`, pick: w.ids.listEntry }],
  },
  balanceThreshold: {
    owner: 'merchant',
    modeScoped: true,
    reads: (w) => [{ path: '/v1/balance-thresholds?limit=100', pick: w.ids.balanceThreshold }],
  },
  dispute: {
    owner: 'merchant',
    modeScoped: true,
    reads: (w) => [{ path: `/v1/disputes/${w.ids.dispute}` }, { path: `/v1/disputes?paymentId=${w.refs.disputedPayment}` }],
  },
  settlement: {
    owner: 'merchant',
    modeScoped: true,
    reads: (w) => [
      { path: `/v1/settlements/${w.ids.settlement}` },
      { path: `/v1/settlements/${w.ids.settlement}/lines` },
      { path: `/v1/settlements/${w.ids.settlement}/download`, file: true },
    ],
  },
  payout: { owner: 'merchant', modeScoped: true, reads: (w) => [{ path: `/v1/payouts/${w.ids.payout}` }] },
};

export interface Key {
  id: string;
  secret: string;
}

export interface TenantWorld {
  label: 'A' | 'B';
  /** every free-text value of this tenant's records carries it */
  mark: string;
  tenantId: string;
  m1: string;
  m2: string;
  tenantKey: Key;
  m1Key: Key;
  m2Key: Key;
  operatorToken: string;
  m1UserToken: string;
  m2UserToken: string;
  /** the clientSecret of a second open session of merchant 1 (not the world's session) */
  otherSessionSecret: string;
  /** the amounts this tenant's money records were made with, chosen apart from the other tenant's */
  amounts: { session: number; payment: number; refund: number; withdrawal: number };
  /** the id of the record of each kind (the brand for an MPI account) */
  ids: Record<Kind, string>;
  /**
   * records that ids in bodies and query filters name besides those; merchant 2's own (a role, a clerk, a withdrawal
   * method, an antifraud plan) let a caller of merchant 2 show that its body is valid with its own ids; tenantWidePlan
   * is an antifraud plan of no merchant (disabled), which an operator limited to merchant 2 sees but must not change
   */
  refs: {
    payinChannel: string;
    invitedUser: string;
    paidSession: string;
    disputedPayment: string;
    m2WithdrawalMethod: string;
    m2Role: string;
    m2User: string;
    m2Plan: string;
    tenantWidePlan: string;
  };
}

export interface World {
  a: TenantWorld;
  b: TenantWorld;
  /** tenant A's other-mode credentials and revoked keys, and an operator of A limited to merchant A2 */
  aLive: { tenantKey: string; m1Key: string; operatorToken: string };
  aRevoked: { tenantKey: string; m1Key: string };
  aOperatorOfA2: string;
}

export const CARD = { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ada Lovelace' };
/** the sandbox card whose payment is disputed (fraudulent) once captured */
export const DISPUTE_CARD = '4000000000000259';
export const IBAN = 'DE89370400440532013000';

/** supertest as `credential`; problems and file downloads parsed so that every answer can be searched. */
export function call(
  h: ApiHarness,
  method: string,
  path: string,
  credential: string,
  options: { headers?: Record<string, string>; file?: boolean } = {},
): request.Test {
  const agent = request(h.app) as unknown as Record<string, (path: string) => request.Test>;
  let req = agent[method](path).set('Authorization', `Bearer ${credential}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) req = req.set(name, value);
  if (options.file) {
    req = req.buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        cb(null, /json/.test(String(res.headers['content-type'])) ? JSON.parse(bytes.toString()) : bytes);
      });
    });
  }
  return req;
}

async function ok(res: request.Response | Promise<request.Response>, what: string, status = [200, 201]): Promise<Record<string, any>> {
  const r = await res;
  if (!status.includes(r.status)) throw new Error(`world: ${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as Record<string, any>;
}

/** A PDF that carries the tenant's mark (the document's content must not reach an outsider either). */
export function kybPdf(mark: string): Buffer {
  return Buffer.concat([Buffer.from(`%PDF-1.7\n% ${mark}-certificate-of-incorporation\n`), crypto.randomBytes(200)]);
}

async function settle(h: ApiHarness): Promise<void> {
  for (let round = 0; round < 50; round++) {
    if ((await runDueSandboxOperations(h.rt)) === 0) return;
  }
  throw new Error('world: the sandbox acquirer did not settle');
}

async function buildTenant(h: ApiHarness, label: 'A' | 'B', live: boolean): Promise<TenantWorld> {
  const mark = `zq${label.toLowerCase()}${crypto.randomBytes(3).toString('hex')}`;
  const k = label === 'A' ? 1 : 2;
  const amounts = {
    session: 100_000 * k + 23_457,
    payment: 100_000 * k + 45_678,
    refund: 10_000 * k + 3_579,
    withdrawal: 10_000 * k + 4_680,
  };
  const platform = operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: false });
  const tenant = await createTenant(platform, {
    name: `${mark} tenant`,
    livemode: live,
    defaultCurrency: 'EUR',
    defaultLocale: 'en',
    allowedCurrencies: ['EUR', 'USD'],
    allowedCountries: [],
    doorRateLimitPerMinute: 1_000_000,
    withdrawalCoolingPeriodHours: 0,
    contactEmail: `ops-${mark}@example.com`,
  });
  const tenantId = tenant.id;
  const operator = operatorContext(h.rt, { level: 'tenant', tenantId, livemode: false });
  const company = await createCompanyRecord(operator, { name: `${mark} company`, country: 'DE', livemode: false });
  const m1 = (
    await createMerchantRecord(operator, {
      companyId: company.id,
      name: `${mark} merchant one`,
      defaultCurrency: 'EUR',
      liveStatus: live ? 'approved' : undefined,
    })
  ).id;
  const company2 = await createCompanyRecord(operator, { name: `${mark} second company`, country: 'FR', livemode: false });
  const m2 = (await createMerchantRecord(operator, { companyId: company2.id, name: `${mark} merchant two`, defaultCurrency: 'EUR' })).id;
  const profile = await createProfile(operator, { merchantId: m1, mode: 'checkout', sessionLifetime: 3600 });
  await createProfile(operator, { merchantId: m2, mode: 'checkout', sessionLifetime: 3600 });
  const fees = await createFeeSchedule(operator, {
    name: `${mark} fees`,
    rules: [
      {
        transactionType: 'payment',
        transactionOutcome: 'successful',
        method: 'fixed_plus_percentage',
        currency: 'EUR',
        fixedAmount: { currency: 'EUR', valueMinor: 25 },
        percentageRate: 14000,
        party: 'tenant',
      },
      {
        transactionType: 'withdrawal',
        transactionOutcome: 'any',
        method: 'fixed',
        currency: 'EUR',
        fixedAmount: { currency: 'EUR', valueMinor: 50 },
        party: 'tenant',
      },
    ],
  } as Parameters<typeof createFeeSchedule>[1]);
  await changeFeeScheduleStatus(operator, fees.id, 'activate');
  const feeAssignment = await createFeeAssignment(operator, {
    level: 'tenant',
    targetEntityId: tenantId,
    feeScheduleId: fees.id,
    currency: 'EUR',
    paymentMethod: 'card',
  } as Parameters<typeof createFeeAssignment>[1]);
  const terminal = await createTerminal(operator, {
    providerIntegrationId: SANDBOX_CARD_PROVIDER_ID,
    name: `${mark} card terminal`,
    supportedCurrencies: ['EUR', 'USD'],
    supportedBrands: ['visa', 'mastercard', 'amex'],
    supportedPaymentMethodTypes: ['card'],
    mcc: '5734',
    descriptor: 'ISOLATION',
    credentials: { merchantAccount: `${mark}-account`, apiKey: crypto.randomBytes(18).toString('base64url') },
  });
  const channel = await createChannel(operator, {
    name: `${mark} payouts`,
    direction: 'payout',
    currencies: ['EUR', 'USD'],
    providerIntegrationId: SANDBOX_PAYOUT_PROVIDER_ID,
    description: `${mark} payout channel`,
  });
  await createTerminal(operator, {
    providerIntegrationId: SANDBOX_PAYOUT_PROVIDER_ID,
    name: `${mark} payout terminal`,
    supportedCurrencies: ['EUR', 'USD'],
    supportedBrands: [],
    supportedPaymentMethodTypes: ['bank_transfer'],
    credentials: { accountId: `${mark}-payouts`, signingKey: crypto.randomBytes(18).toString('base64url') },
  });
  const key = async (merchantId: string | null, name: string): Promise<Key> => {
    const ctx = merchantId ? operatorContext(h.rt, { level: 'merchant', tenantId, merchantId, livemode: false }) : operator;
    const issued = await createApiKey(ctx, { name: `${mark} ${name}`, ownerType: merchantId ? 'merchant' : 'tenant', livemode: false });
    return { id: issued.id, secret: issued.secretKey };
  };
  const tenantKey = await key(null, 'tenant key');
  const m1Key = await key(m1, 'merchant one key');
  const m2Key = await key(m2, 'merchant two key');
  const token = async (layer: 'operator' | 'merchant', merchantId: string | undefined, name: string, livemode = false) => {
    const user = await createActiveUser(operator, {
      layer,
      merchantId,
      email: `${name}-${mark}@example.com`,
      displayName: `${mark} ${name}`,
      owner: true,
    });
    return (await h.rt.tokens.issue(user.id, 86_400, livemode)).token;
  };
  const operatorToken = await token('operator', undefined, 'operator');
  const m1UserToken = await token('merchant', m1, 'merchant-one-owner');
  const m2UserToken = await token('merchant', m2, 'merchant-two-owner');

  const T = (method: string, path: string) => call(h, method, path, tenantKey.secret);
  const M = (method: string, path: string) => call(h, method, path, m1Key.secret);
  const ids: Partial<Record<Kind, string>> = {
    tenant: tenantId,
    company: company.id,
    merchant: m1,
    integrationProfile: profile.id,
    feeSchedule: fees.id,
    feeAssignment: feeAssignment.id,
    terminal: terminal.id,
    channel: channel.id,
    providerIntegration: SANDBOX_CARD_PROVIDER_ID,
    mpiAccount: 'visa',
  };

  // webhook endpoints first, so that the events below are delivered to the tenant's endpoint
  ids.tenantEndpoint = (
    await ok(
      T('post', '/v1/admin/webhook-endpoints').send({
        url: `https://hooks.example.test/${mark}/tenant`,
        events: ['*'],
        description: `${mark} tenant endpoint`,
      }),
      'tenant endpoint',
    )
  ).id;
  ids.merchantEndpoint = (
    await ok(
      M('post', '/v1/webhooks/endpoints').send({
        url: `https://hooks.example.test/${mark}/merchant`,
        events: ['*'],
        description: `${mark} merchant endpoint`,
      }),
      'merchant endpoint',
    )
  ).id;
  ids.apiKey = (
    await ok(
      M('post', '/v1/api-keys').send({
        name: `${mark} spare merchant key`,
        ownerType: 'merchant',
        permissions: ['payments:payments:view'],
      }),
      'api key',
    )
  ).id;
  const limitBody = { period: { value: 1, unit: 'day' }, metric: 'volume', threshold: 9_000_000 + k, currency: 'EUR' };
  ids.merchantLimit = (await ok(T('post', `/v1/admin/merchants/${m1}/limits`).send(limitBody), 'merchant limit')).id;
  ids.channelLimit = (await ok(T('post', `/v1/admin/channels/${channel.id}/limits`).send(limitBody), 'channel limit')).id;
  ids.terminalLimit = (await ok(T('post', `/v1/admin/terminals/${terminal.id}/limits`).send(limitBody), 'terminal limit')).id;
  ids.restriction = (
    await ok(T('post', `/v1/admin/terminals/${terminal.id}/restrictions`).send({ action: 'deny', brand: 'amex' }), 'restriction')
  ).id;
  await ok(
    T('post', `/v1/admin/terminals/${terminal.id}/3ds-config/mpi-accounts`).send({
      brand: 'visa',
      merchantName: `${mark} 3ds name`,
      mcc: '5734',
    }),
    'mpi account',
  );
  ids.partner = (
    await ok(T('post', '/v1/admin/partners').send({ name: `${mark} partner`, contactEmail: `partner-${mark}@example.com` }), 'partner')
  ).id;
  ids.partnerAssignment = (
    await ok(
      T('post', '/v1/admin/partner-assignments').send({ partnerId: ids.partner, merchantId: m1, commissionRate: 15000 }),
      'partner assignment',
    )
  ).id;
  ids.role = (
    await ok(
      T('post', '/v1/roles').send({
        name: `${mark} viewer role`,
        description: `${mark} role`,
        permissions: ['payments:payments:view'],
        layer: 'merchant',
        merchantId: m1,
      }),
      'role',
    )
  ).id;
  ids.user = (
    await createActiveUser(operator, {
      layer: 'merchant',
      merchantId: m1,
      email: `clerk-${mark}@example.com`,
      displayName: `${mark} clerk`,
      owner: false,
    })
  ).id;
  await ok(T('patch', `/v1/users/${ids.user}`).send({ roleIds: [ids.role] }), 'user role');
  const invited = await ok(
    T('post', '/v1/users/invite').send({
      email: `invitee-${mark}@example.com`,
      displayName: `${mark} invitee`,
      layer: 'merchant',
      merchantId: m1,
    }),
    'invitation',
  );
  ids.invitation = invited.invitation.id;
  const payinChannel = (
    await ok(T('post', '/v1/admin/channels').send({ name: `${mark} web shop`, direction: 'payin', currencies: ['EUR'] }), 'payin channel')
  ).id as string;
  ids.routingRule = (
    await ok(
      T('post', '/v1/admin/routing-rules').send({
        name: `${mark} routing`,
        description: `${mark} rule`,
        outcome: { type: 'priority', terminals: [terminal.id] },
      }),
      'routing rule',
    )
  ).id;
  ids.scoringRule = (
    await ok(
      T('post', '/v1/admin/scoring-rules').send({
        name: `${mark} scoring`,
        description: `${mark} big amounts`,
        conditions: [{ field: 'amount', operator: 'gte', value: 99_000_000 }],
        scoreImpact: 10,
        priority: 100,
      }),
      'scoring rule',
    )
  ).id;
  ids.antifraudPlan = (
    await ok(
      T('post', '/v1/admin/antifraud-plans').send({
        name: `${mark} plan`,
        description: `${mark} plan`,
        merchantId: m1,
        ruleIds: [ids.scoringRule],
      }),
      'antifraud plan',
    )
  ).id;
  const m2Plan = (
    await ok(
      T('post', '/v1/admin/antifraud-plans').send({ name: `${mark} second merchant plan`, merchantId: m2, ruleIds: [ids.scoringRule] }),
      'merchant two plan',
    )
  ).id as string;
  const tenantWidePlan = (
    await ok(
      T('post', '/v1/admin/antifraud-plans').send({ name: `${mark} tenant-wide plan`, ruleIds: [ids.scoringRule] }),
      'tenant-wide plan',
    )
  ).id as string;
  const m2Role = (
    await ok(
      T('post', '/v1/roles').send({
        name: `${mark} second merchant role`,
        permissions: ['payments:payments:view'],
        layer: 'merchant',
        merchantId: m2,
      }),
      'merchant two role',
    )
  ).id as string;
  const m2User = (
    await createActiveUser(operator, {
      layer: 'merchant',
      merchantId: m2,
      email: `clerk-two-${mark}@example.com`,
      displayName: `${mark} second clerk`,
      owner: false,
    })
  ).id;
  ids.listGroup = (
    await ok(
      T('post', '/v1/admin/list-groups').send({ name: `${mark} blocked emails`, description: `${mark} list`, entryType: 'email' }),
      'list group',
    )
  ).id;
  ids.listEntry = (
    await ok(
      T('post', `/v1/admin/list-groups/${ids.listGroup}/entries`).send({ value: `blocked-${mark}@example.com`, note: `${mark} note` }),
      'list entry',
    )
  ).id;

  // a balance threshold of merchant 1, far above anything the world posts (no event of it)
  ids.balanceThreshold = (
    await ok(
      M('post', '/v1/balance-thresholds').send({
        balanceType: 'available',
        direction: 'above',
        amount: { currency: 'EUR', valueMinor: 70_000_000 + 1_000 * k + 321 },
      }),
      'balance threshold',
    )
  ).id;

  // KYB: a submitted submission of merchant 1 with one document
  ids.kybSubmission = (
    await ok(
      M('post', '/v1/kyb-submissions').send({
        data: {
          legalName: `${mark} Trading GmbH`,
          registrationNumber: `HRB ${mark}`,
          country: 'DE',
          incorporationDate: '2019-04-01',
          website: `https://${mark}.example`,
          registeredAddress: { line1: `${mark} Str. 1`, city: 'Berlin', postalCode: '10115', country: 'DE' },
          owners: [{ name: `${mark} Owner`, ownershipPercent: 100 }],
        },
      }),
      'kyb submission',
    )
  ).id;
  const uploaded = await ok(
    M('post', `/v1/kyb-submissions/${ids.kybSubmission}/documents?type=certificate_of_incorporation&filename=${mark}-certificate.pdf`)
      .set('Content-Type', 'application/pdf')
      .send(kybPdf(mark)),
    'kyb document',
  );
  ids.kybDocument = uploaded.documents[0].id;
  await ok(M('post', `/v1/kyb-submissions/${ids.kybSubmission}/submit`), 'kyb submit');

  // money: an open session, a captured payment with a refund, a withdrawal method and a pending withdrawal
  const sessionBody = (valueMinor: number, ref: string) => ({
    amount: { currency: 'EUR', valueMinor },
    merchantReference: `${mark}-${ref}`,
    successUrl: `https://${mark}.example/ok`,
    cancelUrl: `https://${mark}.example/cancel`,
    customerInfo: { email: `customer-${mark}@example.com`, name: `${mark} Customer` },
    metadata: { order: `${mark}-${ref}` },
  });
  ids.checkoutSession = (
    await ok(M('post', '/v1/checkout-sessions').send(sessionBody(amounts.session, 'open-order')), 'checkout session')
  ).id;
  const other = await ok(
    M('post', '/v1/checkout-sessions').send(sessionBody(amounts.session + 1, 'second-order')),
    'second checkout session',
  );
  const paid = await ok(M('post', '/v1/checkout-sessions').send(sessionBody(amounts.payment, 'paid-order')), 'paid session');
  const completed = await ok(
    M('post', `/v1/checkout-sessions/${paid.id}/complete`).send({ paymentMethod: { type: 'card', card: CARD } }),
    'complete',
  );
  await settle(h);
  ids.payment = completed.paymentId;
  ids.refund = (
    await ok(
      M('post', `/v1/payments/${ids.payment}/refunds`)
        .set('Idempotency-Key', `${mark}-refund`)
        .send({
          amount: { currency: 'EUR', valueMinor: amounts.refund },
          reason: 'requested_by_customer',
          merchantReference: `${mark}-refund-ref`,
          metadata: { why: `${mark}` },
        }),
      'refund',
    )
  ).id;
  await settle(h);
  // a payment with the sandbox's fraud dispute card: captured, then disputed by the acquirer (needs_response)
  const disputedSession = await ok(
    M('post', '/v1/checkout-sessions').send(sessionBody(amounts.payment + 7, 'disputed-order')),
    'disputed session',
  );
  const disputed = await ok(
    M('post', `/v1/checkout-sessions/${disputedSession.id}/complete`).send({
      paymentMethod: { type: 'card', card: { ...CARD, number: DISPUTE_CARD } },
    }),
    'complete disputed',
  );
  await settle(h);
  const disputes = (await ok(M('get', `/v1/disputes?paymentId=${disputed.paymentId}`), 'dispute')) as unknown as { id: string }[];
  if (disputes.length !== 1) throw new Error("world: the dispute card's payment was not disputed");
  ids.dispute = disputes[0].id;
  ids.withdrawalMethod = (
    await ok(
      M('post', '/v1/merchant-withdrawal-methods').send({
        methodType: 'bank_account',
        label: `${mark} main account`,
        details: { iban: IBAN, accountHolderName: `${mark} Holder GmbH` },
      }),
      'withdrawal method',
    )
  ).id;
  const m2Method = await ok(
    call(h, 'post', '/v1/merchant-withdrawal-methods', m2Key.secret).send({
      methodType: 'bank_account',
      label: `${mark} second merchant account`,
      details: { iban: IBAN, accountHolderName: `${mark} Two GmbH` },
    }),
    'second withdrawal method',
  );
  await fundByAdjustment(platform, {
    tenantId,
    merchantId: m1,
    valueMinor: 1_000_000,
    sourceId: `${mark}-funding`,
    description: 'isolation funding',
  });
  // merchant 2 can withdraw too (the positive controls of its callers)
  await fundByAdjustment(platform, {
    tenantId,
    merchantId: m2,
    valueMinor: 1_000_000,
    sourceId: `${mark}-funding-two`,
    description: 'isolation funding',
  });
  ids.withdrawal = (
    await ok(
      M('post', '/v1/withdrawals')
        .set('Idempotency-Key', `${mark}-withdrawal`)
        .send({
          amount: { currency: 'EUR', valueMinor: amounts.withdrawal },
          withdrawalMethodId: ids.withdrawalMethod,
          withdrawalChannelId: channel.id,
        }),
      'withdrawal',
    )
  ).id;
  // merchant 1's settlement statement of the day in EUR, opened by the payment's capture
  const statements = (await ok(M('get', '/v1/settlements?currency=EUR'), 'settlements')) as unknown as { id: string; merchantId: string }[];
  ids.settlement = statements.find((st) => st.merchantId === m1)?.id;
  // a payout of merchant 1: a daily schedule to its method, run for it (the world's tenant has no payout terminal: it
  // stays pending); then merchant 1 is funded again for the withdrawals of the positive controls
  await ok(M('put', '/v1/payout-schedule').send({ interval: 'daily', withdrawalMethodId: ids.withdrawalMethod }), 'payout schedule');
  const payouts = await runPayouts(h.rt, { tenantId, merchantId: m1, modes: [false] });
  if (payouts.created.length !== 1)
    throw new Error(`world: payout run made ${payouts.created.length} payouts (${JSON.stringify(payouts.skipped)})`);
  ids.payout = payouts.created[0].id;
  await fundByAdjustment(platform, {
    tenantId,
    merchantId: m1,
    valueMinor: 1_000_000,
    sourceId: `${mark}-funding-again`,
    description: 'isolation funding',
  });
  // a delivery to the tenant's endpoint (of the events above)
  const deliveries = (await ok(
    T('get', `/v1/admin/webhook-deliveries?endpoint_id=${ids.tenantEndpoint}&limit=1`),
    'deliveries',
  )) as unknown as { id: string }[];
  if (deliveries.length === 0) throw new Error('world: no delivery to the tenant endpoint');
  ids.delivery = deliveries[0].id;

  const missing = (Object.keys(KINDS) as Kind[]).filter((kind) => !ids[kind]);
  if (missing.length > 0) throw new Error(`world: no record of ${missing.join(', ')}`);
  return {
    label,
    mark,
    tenantId,
    m1,
    m2,
    tenantKey,
    m1Key,
    m2Key,
    operatorToken,
    m1UserToken,
    m2UserToken,
    otherSessionSecret: other.clientSecret,
    amounts,
    ids: ids as Record<Kind, string>,
    refs: {
      payinChannel,
      invitedUser: invited.user.id,
      paidSession: paid.id,
      disputedPayment: disputed.paymentId,
      m2WithdrawalMethod: m2Method.id,
      m2Role,
      m2User,
      m2Plan,
      tenantWidePlan,
    },
  };
}

/** Builds A (live-capable: it also holds live keys) and B, and A's other-mode, revoked and entity-scoped callers. */
export async function buildWorld(h: ApiHarness): Promise<World> {
  const a = await buildTenant(h, 'A', true);
  const b = await buildTenant(h, 'B', false);
  const live = (merchantId: string | null) =>
    createApiKey(
      operatorContext(
        h.rt,
        merchantId
          ? { level: 'merchant', tenantId: a.tenantId, merchantId, livemode: true }
          : { level: 'tenant', tenantId: a.tenantId, livemode: true },
      ),
      { name: `${a.mark} live key`, ownerType: merchantId ? 'merchant' : 'tenant', livemode: true },
    );
  const liveTenant = await live(null);
  const liveM1 = await live(a.m1);
  const operatorA = operatorContext(h.rt, { level: 'tenant', tenantId: a.tenantId, livemode: false });
  const liveOperator = await createActiveUser(operatorA, { layer: 'operator', email: `live-operator-${a.mark}@example.com`, owner: true });
  const revoked = async (merchantId: string | null): Promise<string> => {
    const ctx = merchantId ? operatorContext(h.rt, { level: 'merchant', tenantId: a.tenantId, merchantId, livemode: false }) : operatorA;
    const issued = await createApiKey(ctx, { name: `${a.mark} revoked`, ownerType: merchantId ? 'merchant' : 'tenant', livemode: false });
    await ok(call(h, 'post', `/v1/api-keys/${issued.id}/revoke`, a.tenantKey.secret), 'revoke');
    return issued.secretKey;
  };
  const scopedUser = await createActiveUser(operatorA, { layer: 'operator', email: `scoped-${a.mark}@example.com`, owner: true });
  await ok(
    call(h, 'patch', `/v1/users/${scopedUser.id}`, a.tenantKey.secret).send({ entityScope: { type: 'merchants', merchantIds: [a.m2] } }),
    'entity scope',
  );
  return {
    a,
    b,
    aLive: {
      tenantKey: liveTenant.secretKey,
      m1Key: liveM1.secretKey,
      operatorToken: (await h.rt.tokens.issue(liveOperator.id, 86_400, true)).token,
    },
    aRevoked: { tenantKey: await revoked(null), m1Key: await revoked(a.m1) },
    aOperatorOfA2: (await h.rt.tokens.issue(scopedUser.id, 86_400, false)).token,
  };
}

/** The owner's view of every record of `w`: kind -> the answers of its reads (the positive control: each must be 200). */
export async function snapshot(
  h: ApiHarness,
  w: TenantWorld,
  kinds: Kind[] = Object.keys(KINDS) as Kind[],
): Promise<Record<Kind, unknown[]>> {
  const out = {} as Record<Kind, unknown[]>;
  for (const kind of kinds) {
    out[kind] = [];
    for (const read of KINDS[kind].reads(w)) {
      // one Host for every read: an absolute URL a record carries (a statement's downloadUrl) is made on the request's origin
      const res = await call(h, 'get', read.path, read.as === 'merchant' ? w.m1Key.secret : w.tenantKey.secret, {
        file: read.file,
        headers: { Host: 'snapshot.example.test' },
      });
      if (res.status !== 200)
        throw new Error(`the owner cannot read its ${kind} at ${read.path}: ${res.status} ${JSON.stringify(res.body)}`);
      if (read.file) {
        out[kind].push({ file: (res.body as Buffer).toString('latin1') });
      } else if (read.pick) {
        const found = (res.body.data as { id: string }[]).find((r) => r.id === read.pick);
        if (!found) throw new Error(`the owner's ${read.path} does not list its ${kind} ${read.pick}`);
        out[kind].push(found);
      } else {
        out[kind].push(res.body.data);
      }
    }
  }
  return out;
}

/** Every string and number leaf of a JSON value. */
export function leaves(value: unknown, into: (string | number)[] = []): (string | number)[] {
  if (typeof value === 'string' || typeof value === 'number') into.push(value);
  else if (Array.isArray(value)) value.forEach((v) => leaves(v, into));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => leaves(v, into));
  return into;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The values of A's records that only A's records hold: ids, anything carrying A's mark (names, emails, references,
 * labels, descriptions, URLs, the KYB document's content), key prefixes, and amounts of five digits or more. A value
 * B's records hold as well (a shared provider id, a status, a timestamp of the frozen clock) is not distinctive.
 */
export function distinctiveValues(
  a: TenantWorld,
  aSnapshot: Record<Kind, unknown[]>,
  bSnapshot: Record<Kind, unknown[]>,
): { strings: string[]; numbers: number[] } {
  const shared = new Set(leaves(bSnapshot).map(String));
  const strings = new Set<string>();
  const numbers = new Set<number>();
  for (const leaf of leaves(aSnapshot)) {
    if (shared.has(String(leaf))) continue;
    if (typeof leaf === 'number') {
      if (Number.isInteger(leaf) && Math.abs(leaf) >= 10_000) numbers.add(leaf);
    } else if (UUID.test(leaf) || /^(sk|pk|cs|whsec)_/.test(leaf) || leaf.includes('@')) {
      strings.add(leaf);
    } else if (leaf.includes(a.mark)) {
      // the mark itself is enough to find the value (and a file's content is found by it)
      strings.add(leaf.length > 100 || /[\u0000-\u001f]/.test(leaf) ? a.mark : leaf);
    }
  }
  strings.add(a.mark);
  return { strings: [...strings], numbers: [...numbers] };
}

/** The distinctive values of A found in an answer (body, raw text and headers), leaving out the ones the caller sent. */
export function leaked(res: request.Response, values: { strings: string[]; numbers: number[] }, sent: Iterable<string>): string[] {
  const own = new Set(sent);
  const body = Buffer.isBuffer(res.body) ? res.body.toString('latin1') : JSON.stringify(res.body ?? null);
  const text = `${body}\n${res.text ?? ''}\n${JSON.stringify(res.headers)}`;
  const found = values.strings.filter((s) => !own.has(s) && text.includes(s));
  // a number as a token of its own: not inside a request id or another random hex run, where it would turn up by chance
  for (const n of values.numbers) if (new RegExp(`(?<![0-9A-Za-z])${n}(?![0-9A-Za-z])`).test(text)) found.push(String(n));
  return found;
}

const LIMIT_BODY = { period: { value: 1, unit: 'day' }, metric: 'count', threshold: 1 };
/**
 * Valid bodies of the operations that act on a record, so that an answer can only be about the record (its tenant, merchant
 * or mode): the isolation matrix and the mode matrix send them.
 */
export const VALID_BODIES: Record<string, unknown> = {
  updateApiKey: { name: 'taken over' },
  updateTenant: { name: 'taken over' },
  updateMerchantWebhookEndpoint: { description: 'taken over' },
  updateAdminWebhookEndpoint: { description: 'taken over' },
  updateCompany: { name: 'taken over' },
  updateMerchant: { name: 'taken over' },
  putMerchantThreeDsConfig: { enabled: false },
  putMerchantCheckoutHosting: { checkoutHosting: 'self_hosted' },
  putMerchantProcessingMode: { processingMode: 'passthrough' },
  updatePartner: { name: 'taken over' },
  updatePartnerAssignment: { commissionRate: 1 },
  updateChannel: { name: 'taken over' },
  createChannelLimit: LIMIT_BODY,
  createMerchantLimit: LIMIT_BODY,
  updateUser: { displayName: 'taken over' },
  updateRole: { name: 'taken over' },
  updateKybSubmission: { data: { legalName: 'taken over' } },
  rejectKybSubmission: { rejectionReason: 'taken over' },
  requestKybInformation: { message: 'taken over' },
  setKybDocumentVerdict: { verdict: 'rejected' },
  setProviderIntegrationStatus: { status: 'maintenance' },
  updateProviderIntegration: { connectorBaseUrl: 'https://taken-over.example' },
  adjustProviderIntegrationCapabilities: { testModeAvailable: false },
  updateTerminal: { name: 'taken over' },
  rotateTerminalCredentials: { credentials: { merchantAccount: 'taken', apiKey: 'over' } },
  putTerminalThreeDsConfig: {
    enabled: false,
    executionModel: 'gateway_full',
    rules: { processOnly3dsCards: false, declineOnAttemptStatus: false, allowMerchantDisable: true },
  },
  addTerminalMpiAccount: { brand: 'mastercard' },
  updateTerminalMpiAccount: { merchantName: 'taken over' },
  createTerminalRestriction: { action: 'deny', brand: 'visa' },
  updateTerminalRestriction: { action: 'allow' },
  createTerminalLimit: LIMIT_BODY,
  updateFeeSchedule: { name: 'taken over' },
  updateIntegrationProfile: { sessionLifetime: 600 },
  updateRoutingRule: { name: 'taken over' },
  updateCheckoutSession: { metadata: { taken: 'over' } },
  completeCheckoutSession: { paymentMethod: { type: 'card', card: CARD } },
  capturePayment: { amount: { currency: 'EUR', valueMinor: 100 } },
  createRefund: { amount: { currency: 'EUR', valueMinor: 100 } },
  updateMerchantWithdrawalMethod: { label: 'taken over' },
  rejectWithdrawal: { rejectionReason: 'taken over' },
  completeWithdrawal: { providerReference: 'taken-over' },
  failWithdrawal: { comment: 'taken over' },
  updateDispute: { evidence: { uncategorizedText: 'taken over' } },
  submitDispute: { evidence: { uncategorizedText: 'taken over' } },
  updateAntifraudPlan: { name: 'taken over' },
  updateScoringRule: { name: 'taken over' },
  updateListGroup: { name: 'taken over' },
  createListEntry: { value: 'taken-over@example.com' },
};
/** Valid query strings of the operations that take one besides their body (a KYB upload's type and filename). */
export const VALID_QUERIES: Record<string, Record<string, string>> = {
  uploadKybDocument: { type: 'other', filename: 'taken-over.pdf' },
};
