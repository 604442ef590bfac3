import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { decodeJwt } from 'jose';
import type { Runtime } from '../../runtime';
import type { AppConfig } from '../../config';
import { operatorContext } from '../access/operators';
import { createTenant } from '../tenants/tenants';
import { createApiKey } from '../api-keys/keys';
import { createProfile } from '../profiles';
import { changeFeeScheduleStatus, createFeeAssignment, createFeeSchedule } from '../fees/schedules';
import { createCompanyRecord, createMerchantRecord } from '../organization/records';
import { createActiveUser } from '../access/users';
import { createTerminal } from '../processing/terminals/terminals';
import { createChannel } from '../channels';
import { SANDBOX_CARD_PROVIDER_ID, SANDBOX_PAYOUT_PROVIDER_ID } from '../processing/providers';
import { randomBytes } from 'node:crypto';
import { writePrivateFile } from '../../util/paths';
import { apiKeyStatus, parseSecretKey } from '../api-keys/secrets';

export const SandboxCredentials = z.object({
  databaseUrl: z.string(),
  tenantId: z.string().uuid(),
  companyId: z.string().uuid(),
  merchantId: z.string().uuid(),
  terminalId: z.string().uuid(),
  payoutChannelId: z.string().uuid(),
  payoutTerminalId: z.string().uuid(),
  tenantKey: z.object({ id: z.string().uuid(), secretKey: z.string() }),
  merchantKey: z.object({ id: z.string().uuid(), secretKey: z.string() }),
  platformUserId: z.string().uuid(),
  platformToken: z.string(),
  platformTokenExpiresAt: z.string(),
});
export type SandboxCredentials = z.infer<typeof SandboxCredentials>;

/** When the sandbox's fee assignments start: before any day a sandbox payment may be made on. */
const SANDBOX_FEES_FROM = '2000-01-01T00:00:00.000Z';

/**
 * Provisions a fresh sandbox tenant: tenant, company, merchant (active, sandbox mode), its checkout integration
 * profile, a tenant-level fee schedule, a terminal on the sandbox card acquirer, a payout channel on the sandbox
 * payout provider, a tenant-owned and a merchant-owned sandbox key, and a platform user with an access token of the maximum
 * lifetime (PAYPLANE_TOKEN_MAX_LIFETIME_HOURS; `serve` renews it in sandbox.json). Everything through the services.
 */
export async function createSandbox(rt: Runtime, options: { name?: string } = {}): Promise<SandboxCredentials> {
  const platform = operatorContext(rt, { level: 'platform', tenantId: null, livemode: false });
  const tenant = await createTenant(platform, {
    name: options.name ?? 'Sandbox tenant',
    livemode: false,
    defaultCurrency: 'EUR',
    defaultLocale: 'en',
    allowedCurrencies: ['EUR', 'USD'],
    allowedCountries: [],
  });
  const operator = operatorContext(rt, { level: 'tenant', tenantId: tenant.id, livemode: false });
  const company = await createCompanyRecord(operator, { name: 'Sandbox Company', country: 'DE', livemode: false });
  const merchant = await createMerchantRecord(operator, { companyId: company.id, name: 'Sandbox Merchant', defaultCurrency: 'EUR' });
  // the merchant's checkout integration profile (session lifetime one hour)
  await createProfile(operator, { merchantId: merchant.id, mode: 'checkout', sessionLifetime: 3600 });
  // an active fee schedule assigned at tenant level for card payments in the sandbox's currencies
  const fees = await createFeeSchedule(operator, {
    name: 'Sandbox fees',
    description:
      'Card payments: 1.4% + 0.25 EUR, 2.9% + 0.30 USD; withdrawals: 0.50 EUR or USD; scheduled payouts: 0.25 EUR or USD; disputes: 15.00 EUR or USD; earned by the tenant',
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
        transactionType: 'payment',
        transactionOutcome: 'successful',
        method: 'fixed_plus_percentage',
        currency: 'USD',
        fixedAmount: { currency: 'USD', valueMinor: 30 },
        percentageRate: 29000,
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
      {
        transactionType: 'withdrawal',
        transactionOutcome: 'any',
        method: 'fixed',
        currency: 'USD',
        fixedAmount: { currency: 'USD', valueMinor: 50 },
        party: 'tenant',
      },
      // the dispute fee, charged when a dispute opens and kept whatever its outcome
      {
        transactionType: 'dispute',
        transactionOutcome: 'any',
        method: 'fixed',
        currency: 'EUR',
        fixedAmount: { currency: 'EUR', valueMinor: 1500 },
        party: 'tenant',
      },
      {
        transactionType: 'dispute',
        transactionOutcome: 'any',
        method: 'fixed',
        currency: 'USD',
        fixedAmount: { currency: 'USD', valueMinor: 1500 },
        party: 'tenant',
      },
      {
        transactionType: 'payout',
        transactionOutcome: 'any',
        method: 'fixed',
        currency: 'EUR',
        fixedAmount: { currency: 'EUR', valueMinor: 25 },
        party: 'tenant',
      },
      {
        transactionType: 'payout',
        transactionOutcome: 'any',
        method: 'fixed',
        currency: 'USD',
        fixedAmount: { currency: 'USD', valueMinor: 25 },
        party: 'tenant',
      },
    ],
  } as Parameters<typeof createFeeSchedule>[1]);
  await changeFeeScheduleStatus(operator, fees.id, 'activate');
  // effective from long ago: a sandbox payment made on a past day (`events trigger settlement.finalized`,
  // `balance.available`) pays the schedule's fee as every other does
  for (const currency of ['EUR', 'USD']) {
    for (const paymentMethod of ['card', 'bank_transfer']) {
      await createFeeAssignment(operator, {
        level: 'tenant',
        targetEntityId: tenant.id,
        feeScheduleId: fees.id,
        currency,
        paymentMethod,
        effectiveFrom: SANDBOX_FEES_FROM,
      } as Parameters<typeof createFeeAssignment>[1]);
    }
  }
  // the sandbox card acquirer: one active terminal for the sandbox currencies and the test cards' brands
  const terminal = await createTerminal(operator, {
    providerIntegrationId: SANDBOX_CARD_PROVIDER_ID,
    name: 'Sandbox card terminal',
    supportedCurrencies: ['EUR', 'USD'],
    supportedBrands: ['visa', 'mastercard', 'amex'],
    supportedPaymentMethodTypes: ['card'],
    mcc: '5734',
    descriptor: 'PAYPLANE SANDBOX',
    credentials: { merchantAccount: 'sandbox-merchant', apiKey: randomBytes(18).toString('base64url') },
  });
  // the sandbox payout provider with a payout channel (withdrawals go out through it)
  const payoutChannel = await createChannel(operator, {
    name: 'Sandbox payouts',
    direction: 'payout',
    currencies: ['EUR', 'USD'],
    providerIntegrationId: SANDBOX_PAYOUT_PROVIDER_ID,
    description: 'Withdrawals through the sandbox payout provider',
  });
  // and a payout terminal on it, so that operators may execute withdrawals through the provider (--via-provider)
  const payoutTerminal = await createTerminal(operator, {
    providerIntegrationId: SANDBOX_PAYOUT_PROVIDER_ID,
    name: 'Sandbox payout terminal',
    supportedCurrencies: ['EUR', 'USD'],
    supportedBrands: [],
    supportedPaymentMethodTypes: ['bank_transfer'],
    credentials: { accountId: 'sandbox-payouts', signingKey: randomBytes(18).toString('base64url') },
  });
  const tenantKey = await createApiKey(operator, { name: 'Sandbox tenant key', ownerType: 'tenant', livemode: false });
  // issued as the merchant itself: a tenant cannot grant codes only merchants hold (compliance:kyb:manage, …)
  const asMerchant = operatorContext(rt, { level: 'merchant', tenantId: tenant.id, merchantId: merchant.id, livemode: false });
  const merchantKey = await createApiKey(asMerchant, { name: 'Sandbox merchant key', ownerType: 'merchant', livemode: false });
  const user = await createActiveUser(platform, {
    layer: 'platform',
    email: `sandbox-admin+${tenant.id.slice(0, 8)}@payplane.local`,
    displayName: 'Sandbox platform admin',
  });
  const token = await rt.tokens.issue(user.id, rt.tokens.maxLifetimeSeconds, false);
  return {
    databaseUrl: rt.config.databaseUrl,
    tenantId: tenant.id,
    companyId: company.id,
    merchantId: merchant.id,
    terminalId: terminal.id,
    payoutChannelId: payoutChannel.id,
    payoutTerminalId: payoutTerminal.id,
    tenantKey: { id: tenantKey.id, secretKey: tenantKey.secretKey },
    merchantKey: { id: merchantKey.id, secretKey: merchantKey.secretKey },
    platformUserId: user.id,
    platformToken: token.token,
    platformTokenExpiresAt: token.expiresAt.toISOString(),
  };
}

export function sandboxFile(rt: { config: Pick<AppConfig, 'home'> }): string {
  return path.join(rt.config.home, 'sandbox.json');
}

/**
 * <home>/sandbox.json keeps one sandbox per database: the first one saved at the top (the file as it always was: a
 * single sandbox, its databaseUrl naming the database), the sandboxes of other databases under `otherDatabases`. So
 * `serve` on Postgres after `npm start` on SQLite (or two SQLite files) keeps both, each found again by its database.
 */
function savedSandboxes(file: string): SandboxCredentials[] {
  if (!fs.existsSync(file)) return [];
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  const others = (json as { otherDatabases?: unknown } | null)?.otherDatabases;
  return [json, ...(Array.isArray(others) ? others : [])]
    .map((entry) => SandboxCredentials.safeParse(entry))
    .flatMap((parsed) => (parsed.success ? [parsed.data] : []));
}

/** The sandbox saved in <home>/sandbox.json for this database (`databaseUrl`); else null. */
export function savedSandbox(config: Pick<AppConfig, 'home' | 'databaseUrl'>): SandboxCredentials | null {
  return savedSandboxes(sandboxFile({ config })).find((saved) => saved.databaseUrl === config.databaseUrl) ?? null;
}

/**
 * The sandbox of `serve`: on an empty database (SQLite or Postgres; unless `provision` is false) it is created and written to <home>/sandbox.json
 * (mode 0600); a later start reads it back, checks its keys still work, and renews the platform token when it would
 * no longer be accepted (expired, past half its life, longer-lived than the maximum, signed with another secret).
 */
export async function ensureServeSandbox(
  rt: Runtime,
  options: { provision?: boolean } = {},
): Promise<{ sandbox: SandboxCredentials | null; emptyDatabase: boolean }> {
  const saved = savedSandbox(rt.config);
  if (saved && (await keysStillWork(rt, saved))) return { sandbox: await renewPlatformToken(rt, saved), emptyDatabase: false };

  const tenants = await rt.db.models.Tenant.count();
  if (tenants > 0) return { sandbox: null, emptyDatabase: false }; // not an empty database: nothing to provision
  if (options.provision === false) return { sandbox: null, emptyDatabase: true };
  return { sandbox: await createSandbox(rt).then((created) => saveSandbox(rt, created)), emptyDatabase: true };
}

/**
 * Writes a sandbox to <home>/sandbox.json (mode 0600), where `serve`, `sandbox env` and `webhooks listen` find it: in
 * place of the one of its database, the sandboxes of other databases kept. Written whole and renamed into place; read
 * again after, and written again when another process's write (a serve of another database renewing its token) lost it.
 */
export function saveSandbox(rt: Pick<Runtime, 'config'>, sandbox: SandboxCredentials): SandboxCredentials {
  const file = sandboxFile(rt);
  for (let attempt = 0; attempt < 5; attempt++) {
    const all = savedSandboxes(file);
    const at = all.findIndex((saved) => saved.databaseUrl === sandbox.databaseUrl);
    if (at >= 0) all[at] = sandbox;
    else all.push(sandbox);
    const [first, ...others] = all;
    writePrivateFile(file, JSON.stringify(others.length ? { ...first, otherDatabases: others } : first, null, 2) + '\n');
    const kept = savedSandboxes(file).find((saved) => saved.databaseUrl === sandbox.databaseUrl);
    if (kept?.tenantId === sandbox.tenantId && kept.platformToken === sandbox.platformToken) break;
  }
  return sandbox;
}

/**
 * The saved sandbox with a platform token that is accepted for at least half the maximum lifetime: the token is
 * re-issued (and sandbox.json rewritten) when it fails verification or has lived half its life. User tokens live at
 * most PAYPLANE_TOKEN_MAX_LIFETIME_HOURS (24 h by default), so `serve` renews the sandbox's on start and while it
 * runs (keepSandboxTokenFresh): the token in sandbox.json (and `payplane sandbox env`) keeps working.
 */
export async function renewPlatformToken(rt: Runtime, saved: SandboxCredentials): Promise<SandboxCredentials> {
  let fresh: boolean;
  try {
    await rt.tokens.verify(saved.platformToken);
    const { iat, exp } = decodeJwt(saved.platformToken) as { iat: number; exp: number };
    fresh = exp * 1000 - rt.clock.now().getTime() > ((exp - iat) * 1000) / 2;
  } catch {
    fresh = false;
  }
  if (fresh) return saved;
  const token = await rt.tokens.issue(saved.platformUserId, rt.tokens.maxLifetimeSeconds, false);
  return saveSandbox(rt, { ...saved, platformToken: token.token, platformTokenExpiresAt: token.expiresAt.toISOString() });
}

/** While `serve` runs: renews the saved sandbox's platform token as it reaches half its life. Returns the stop function. */
export function keepSandboxTokenFresh(rt: Runtime): () => void {
  const every = Math.min(3_600_000, (rt.tokens.maxLifetimeSeconds * 1000) / 8);
  const timer = setInterval(() => {
    const saved = savedSandbox(rt.config);
    if (saved)
      renewPlatformToken(rt, saved).catch((error) => rt.logger.error({ err: error }, 'could not renew the sandbox platform token'));
  }, every);
  timer.unref();
  return () => clearInterval(timer);
}

export async function keysStillWork(rt: Runtime, saved: SandboxCredentials): Promise<boolean> {
  for (const secret of [saved.tenantKey.secretKey, saved.merchantKey.secretKey]) {
    const parsed = parseSecretKey(secret);
    if (!parsed) return false;
    const key = await rt.db.models.ApiKey.findOne({ where: { keyPrefix: parsed.prefix } });
    if (!key || apiKeyStatus(key.get({ plain: true }), rt.clock.now()) !== 'active') return false;
  }
  return true;
}
