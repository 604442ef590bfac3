import path from 'node:path';
import { listenUrlOf } from './util/public-url';

export interface AppConfig {
  /** folder for the sandbox database, generated keys and sandbox.json */
  home: string;
  databaseUrl: string;
  /** whether DATABASE_URL was left to the default (the sandbox SQLite file) */
  databaseUrlDefaulted: boolean;
  tokenSecret?: string;
  oidcIssuer?: string;
  oidcJwksUrl?: string;
  oidcAudience?: string;
  /** Express "trust proxy" value: false (default), true, a hop count, or addresses/CIDRs */
  trustProxy: boolean | number | string;
  logLevel: string;
  /** PAYPLANE_LOG_FILE: append the JSON logs to this file instead of stdout ("%p" in the path: the process id) */
  logFile?: string;
  publicBaseUrl?: string;
  /**
   * http://host:port where serve listens (HOST and PORT, then the address serve bound): the base of URLs made
   * outside a request (a job, a CLI command) when PAYPLANE_PUBLIC_URL is unset (src/util/public-url.ts)
   */
  listenUrl?: string;
  /** where KYB documents are kept: in the database, or files under <home>/kyb-documents */
  kybStorage: 'database' | 'filesystem';
  /** PAYPLANE_SANDBOX_DELAY_MS: how long the sandbox acquirer takes to answer (default 300; 0 answers at once, still asynchronously) */
  sandboxDelayMs: number;
  /** PAYPLANE_HOLDING_PERIOD_HOURS: how long captured funds stay pending before they become available (default 48) */
  holdingPeriodHours: number;
  /** PAYPLANE_WITHDRAWAL_COOLING_HOURS: how long a new withdrawal method (or new details) cools before use, for tenants that set none (default 24) */
  withdrawalCoolingHours: number;
  /** PAYPLANE_METRICS_TOKEN: when set, GET /metrics asks for `Authorization: Bearer <token>` */
  metricsToken?: string;
  /** PAYPLANE_HTTP_HEADERS_TIMEOUT_MS: a client must send its request headers within this time (default 10000) */
  httpHeadersTimeoutMs: number;
  /** PAYPLANE_HTTP_REQUEST_TIMEOUT_MS: a client must send its whole request, body included, within this time (default 30000) */
  httpRequestTimeoutMs: number;
  /** PAYPLANE_AUTH_FAILURES_PER_ADDRESS: failed authentications one client address may make in a window before it is refused (0: no limit) */
  authFailuresPerAddress: number;
  /** PAYPLANE_AUTH_FAILURES_PER_KEY: failed authentications naming one API key prefix or checkout session in a window (0: no limit) */
  authFailuresPerKey: number;
  /** PAYPLANE_AUTH_FAILURE_WINDOW_SECONDS: the fixed window those failures are counted in */
  authFailureWindowSeconds: number;
  /** PAYPLANE_TOKEN_MAX_LIFETIME_HOURS: the longest life (exp - iat) a user token may have, ours or an identity provider's */
  tokenMaxLifetimeHours: number;
  /** PAYPLANE_WEBHOOK_ALLOW_CIDRS: private CIDRs a webhook endpoint may be saved at (the dispatcher reads the same variable) */
  webhookAllowCidrs: string[];
  /** PAYPLANE_CONNECTOR_ALLOW_CIDRS: private CIDRs a provider integration's connectorBaseUrl may point at (a local fake, an on-premises proxy) */
  connectorAllowCidrs: string[];
  /** PAYPLANE_CONNECTOR_TIMEOUT_MS: how long a real acquirer's connector waits for an answer before it counts as lost (then settled from the acquirer's record) */
  connectorTimeoutMs: number;
  /** PAYPLANE_CONNECTOR_CA_FILE: PEM file of extra CA certificates trusted for acquirers' hosts (NODE_EXTRA_CA_CERTS works as well) */
  connectorCaFile?: string;
  /** PAYPLANE_SANDBOX_POLL_MS: how often serve looks for due sandbox acquirer answers (it is also woken by its own) */
  sandboxPollMs: number;
  /** PAYPLANE_CHECKOUT_EXPIRY_MS: how often the checkout-expiry job runs */
  checkoutExpiryMs: number;
  /** PAYPLANE_LEDGER_RELEASE_MS: how often the ledger-release job runs */
  ledgerReleaseMs: number;
  /** PAYPLANE_PAYMENT_RECOVERY_MS: how often the payment-recovery job runs */
  paymentRecoveryMs: number;
  /** PAYPLANE_WITHDRAWAL_COOLING_MS: how often the withdrawal-method-cooling job runs */
  withdrawalCoolingMs: number;
  /** PAYPLANE_DISPUTE_DEADLINES_MS: how often the dispute-deadlines job runs */
  disputeDeadlinesMs: number;
  /** PAYPLANE_SETTLEMENTS_MS: how often the settlements job runs */
  settlementsMs: number;
  /** PAYPLANE_PAYOUTS_MS: how often the payouts job runs */
  payoutsMs: number;
  /** PAYPLANE_PROVIDER_NOTIFICATIONS_MS: how often the provider-notifications job runs */
  providerNotificationsMs: number;
}

/**
 * The interval of each of serve's periodic jobs, by the job's name: its setting (AppConfig key, environment variable)
 * and default. Every periodic job reads its interval from the runtime's configuration through this table
 * (periodicJob in src/jobs/periodic.ts); src/settings.ts declares the same variables for payplane.config.json.
 */
export const JOB_INTERVALS = {
  'checkout-expiry': { key: 'checkoutExpiryMs', env: 'PAYPLANE_CHECKOUT_EXPIRY_MS', defaultMs: 60_000 },
  'ledger-release': { key: 'ledgerReleaseMs', env: 'PAYPLANE_LEDGER_RELEASE_MS', defaultMs: 60_000 },
  'payment-recovery': { key: 'paymentRecoveryMs', env: 'PAYPLANE_PAYMENT_RECOVERY_MS', defaultMs: 60_000 },
  'withdrawal-method-cooling': { key: 'withdrawalCoolingMs', env: 'PAYPLANE_WITHDRAWAL_COOLING_MS', defaultMs: 60_000 },
  'dispute-deadlines': { key: 'disputeDeadlinesMs', env: 'PAYPLANE_DISPUTE_DEADLINES_MS', defaultMs: 60_000 },
  settlements: { key: 'settlementsMs', env: 'PAYPLANE_SETTLEMENTS_MS', defaultMs: 60_000 },
  payouts: { key: 'payoutsMs', env: 'PAYPLANE_PAYOUTS_MS', defaultMs: 60_000 },
  'provider-notifications': { key: 'providerNotificationsMs', env: 'PAYPLANE_PROVIDER_NOTIFICATIONS_MS', defaultMs: 60_000 },
} as const satisfies Record<string, { key: keyof AppConfig; env: string; defaultMs: number }>;

export type PeriodicJobName = keyof typeof JOB_INTERVALS;

/** The shortest interval a job may have: a shorter one is refused when the configuration is read. */
export const MIN_JOB_INTERVAL_MS = 100;

function jobInterval(name: string, value: string | undefined, fallback: number): number {
  const n = nonNegativeInt(name, value, fallback);
  if (n < MIN_JOB_INTERVAL_MS) throw new Error(`${name} must be at least ${MIN_JOB_INTERVAL_MS} (milliseconds; got "${value}")`);
  return n;
}

function jobIntervals(env: NodeJS.ProcessEnv): Pick<AppConfig, (typeof JOB_INTERVALS)[PeriodicJobName]['key']> {
  return Object.fromEntries(
    Object.values(JOB_INTERVALS).map(({ key, env: variable, defaultMs }) => [key, jobInterval(variable, env[variable], defaultMs)]),
  ) as Pick<AppConfig, (typeof JOB_INTERVALS)[PeriodicJobName]['key']>;
}

function nonNegativeInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value)) throw new Error(`${name} must be a non-negative integer (got "${value}")`);
  return Number(value);
}

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  const n = nonNegativeInt(name, value, fallback);
  if (n === 0) throw new Error(`${name} must be a positive integer (got "${value}")`);
  return n;
}

function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/** Configuration from the environment. Flags of a command override it by passing `overrides`. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<AppConfig> = {}): AppConfig {
  const home = path.resolve(overrides.home ?? env.PAYPLANE_HOME ?? '.payplane');
  const explicitUrl = overrides.databaseUrl ?? env.DATABASE_URL;
  return {
    home,
    databaseUrl: explicitUrl || `sqlite:${path.join(home, 'payplane.db')}`,
    databaseUrlDefaulted: !explicitUrl,
    tokenSecret: env.PAYPLANE_TOKEN_SECRET || undefined,
    oidcIssuer: env.PAYPLANE_OIDC_ISSUER || undefined,
    oidcJwksUrl: env.PAYPLANE_OIDC_JWKS_URL || undefined,
    oidcAudience: env.PAYPLANE_OIDC_AUDIENCE || undefined,
    trustProxy: parseTrustProxy(env.PAYPLANE_TRUST_PROXY),
    logLevel: env.PAYPLANE_LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    logFile: env.PAYPLANE_LOG_FILE || undefined,
    publicBaseUrl: env.PAYPLANE_PUBLIC_URL || undefined,
    listenUrl: listenUrlOf(env.HOST || '127.0.0.1', env.PORT || 4242),
    kybStorage: parseKybStorage(env.PAYPLANE_KYB_STORAGE),
    sandboxDelayMs: nonNegativeInt('PAYPLANE_SANDBOX_DELAY_MS', env.PAYPLANE_SANDBOX_DELAY_MS, 300),
    holdingPeriodHours: nonNegativeInt('PAYPLANE_HOLDING_PERIOD_HOURS', env.PAYPLANE_HOLDING_PERIOD_HOURS, 48),
    withdrawalCoolingHours: nonNegativeInt('PAYPLANE_WITHDRAWAL_COOLING_HOURS', env.PAYPLANE_WITHDRAWAL_COOLING_HOURS, 24),
    metricsToken: env.PAYPLANE_METRICS_TOKEN || undefined,
    httpHeadersTimeoutMs: positiveInt('PAYPLANE_HTTP_HEADERS_TIMEOUT_MS', env.PAYPLANE_HTTP_HEADERS_TIMEOUT_MS, 10_000),
    httpRequestTimeoutMs: positiveInt('PAYPLANE_HTTP_REQUEST_TIMEOUT_MS', env.PAYPLANE_HTTP_REQUEST_TIMEOUT_MS, 30_000),
    authFailuresPerAddress: nonNegativeInt('PAYPLANE_AUTH_FAILURES_PER_ADDRESS', env.PAYPLANE_AUTH_FAILURES_PER_ADDRESS, 100),
    authFailuresPerKey: nonNegativeInt('PAYPLANE_AUTH_FAILURES_PER_KEY', env.PAYPLANE_AUTH_FAILURES_PER_KEY, 20),
    authFailureWindowSeconds: positiveInt('PAYPLANE_AUTH_FAILURE_WINDOW_SECONDS', env.PAYPLANE_AUTH_FAILURE_WINDOW_SECONDS, 300),
    tokenMaxLifetimeHours: positiveInt('PAYPLANE_TOKEN_MAX_LIFETIME_HOURS', env.PAYPLANE_TOKEN_MAX_LIFETIME_HOURS, 24),
    sandboxPollMs: positiveInt('PAYPLANE_SANDBOX_POLL_MS', env.PAYPLANE_SANDBOX_POLL_MS, 200),
    ...jobIntervals(env),
    webhookAllowCidrs: cidrList(env.PAYPLANE_WEBHOOK_ALLOW_CIDRS),
    connectorAllowCidrs: cidrList(env.PAYPLANE_CONNECTOR_ALLOW_CIDRS),
    connectorTimeoutMs: positiveInt('PAYPLANE_CONNECTOR_TIMEOUT_MS', env.PAYPLANE_CONNECTOR_TIMEOUT_MS, 30_000),
    connectorCaFile: env.PAYPLANE_CONNECTOR_CA_FILE || undefined,
    ...stripUndefined(overrides),
  };
}

/** PAYPLANE_WEBHOOK_ALLOW_CIDRS as the endpoint save and the dispatcher read it: comma-separated, blanks ignored. */
export function cidrList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function parseKybStorage(value: string | undefined): AppConfig['kybStorage'] {
  if (value === undefined || value === '' || value === 'database') return 'database';
  if (value === 'filesystem') return 'filesystem';
  throw new Error(`PAYPLANE_KYB_STORAGE must be database or filesystem (got "${value}")`);
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
