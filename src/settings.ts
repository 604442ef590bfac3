import fs from 'node:fs';
import path from 'node:path';
import type { z as Zod } from 'zod';
import { ValidationError } from './domain/errors';

/**
 * Every setting of payplane, once: its key in payplane.config.json, its environment variable, what it does and
 * whether it is a secret. Order of precedence, highest first: a command's flag, the environment variable, the
 * configuration file, the default. The file is ./payplane.config.json when present, or the file PAYPLANE_CONFIG names.
 */
export interface Setting {
  /** the key in payplane.config.json */
  key: string;
  env: string;
  description: string;
  /** shown as the value when it is not set */
  default?: string;
  /** masked by `payplane config show`; `url` masks only the password of a URL */
  secret?: boolean | 'url';
  kind: 'string' | 'int' | 'boolean-or-string';
}

const s = (key: string, env: string, description: string, kind: Setting['kind'], extra: Partial<Setting> = {}): Setting => ({
  key,
  env,
  description,
  kind,
  ...extra,
});

export const SETTINGS: Setting[] = [
  s('databaseUrl', 'DATABASE_URL', 'sqlite:<path> or postgres://user@host:port/db', 'string', {
    default: 'sqlite:.payplane/payplane.db',
    secret: 'url',
  }),
  s('home', 'PAYPLANE_HOME', 'folder of the sandbox database, generated keys and sandbox.json', 'string', { default: '.payplane' }),
  s(
    'masterKey',
    'PAYPLANE_MASTER_KEY',
    '32 bytes, base64: encrypts webhook secrets, terminal credentials and stored responses at rest',
    'string',
    { default: 'generated into <home>/master-key', secret: true },
  ),
  s('tokenSecret', 'PAYPLANE_TOKEN_SECRET', 'HS256 key (32+ characters) of user access tokens', 'string', {
    default: 'generated into <home>/token-secret',
    secret: true,
  }),
  s(
    'tokenMaxLifetimeHours',
    'PAYPLANE_TOKEN_MAX_LIFETIME_HOURS',
    "longest life (exp - iat) of a user token, ours or an identity provider's; one without exp or iat is refused",
    'int',
    { default: '24' },
  ),
  s('oidcIssuer', 'PAYPLANE_OIDC_ISSUER', "accept an identity provider's tokens: its issuer", 'string'),
  s('oidcJwksUrl', 'PAYPLANE_OIDC_JWKS_URL', "the identity provider's JWKS URL", 'string'),
  s('oidcAudience', 'PAYPLANE_OIDC_AUDIENCE', 'the audience its tokens must carry', 'string'),
  s(
    'publicUrl',
    'PAYPLANE_PUBLIC_URL',
    'the address customers reach serve at: the base of every URL the API hands out (hosted checkout, 3DS pages)',
    'string',
    { default: "the request's own origin; for jobs, the address serve listens on" },
  ),
  s(
    'trustProxy',
    'PAYPLANE_TRUST_PROXY',
    'Express trust proxy: true, a hop count, or addresses/CIDRs of trusted proxies',
    'boolean-or-string',
    { default: 'false' },
  ),
  s('logLevel', 'PAYPLANE_LOG_LEVEL', 'pino level of the logs', 'string', { default: 'info (serve), silent (other commands)' }),
  s('logFile', 'PAYPLANE_LOG_FILE', 'append the JSON logs to this file (%p: the process id)', 'string', { default: 'stdout' }),
  s(
    'logFormat',
    'PAYPLANE_LOG_FORMAT',
    'json (pino JSON lines), pretty (one readable line per request) or auto: pretty when the logs go to a terminal',
    'string',
    { default: 'auto' },
  ),
  s('metricsToken', 'PAYPLANE_METRICS_TOKEN', 'GET /metrics asks for Authorization: Bearer <token>', 'string', {
    default: 'none (open)',
    secret: true,
  }),
  s('httpHeadersTimeoutMs', 'PAYPLANE_HTTP_HEADERS_TIMEOUT_MS', 'a client must send its request headers within this time', 'int', {
    default: '10000',
  }),
  s('httpRequestTimeoutMs', 'PAYPLANE_HTTP_REQUEST_TIMEOUT_MS', 'a client must send its whole request within this time', 'int', {
    default: '30000',
  }),
  s(
    'authFailuresPerAddress',
    'PAYPLANE_AUTH_FAILURES_PER_ADDRESS',
    'failed authentications from one client address per window before it is refused 429 (0: no limit)',
    'int',
    { default: '100' },
  ),
  s(
    'authFailuresPerKey',
    'PAYPLANE_AUTH_FAILURES_PER_KEY',
    'failed authentications naming one API key prefix or checkout session per window (0: no limit)',
    'int',
    { default: '20' },
  ),
  s('authFailureWindowSeconds', 'PAYPLANE_AUTH_FAILURE_WINDOW_SECONDS', 'the window failed authentications are counted in', 'int', {
    default: '300',
  }),
  s(
    'authCacheMs',
    'PAYPLANE_AUTH_CACHE_MS',
    "how long a process keeps an authenticated API key and its owners' status (0 to 2000)",
    'int',
    { default: '1000' },
  ),
  s('dbPoolMax', 'PAYPLANE_DB_POOL_MAX', 'Postgres connections per process', 'int', { default: '10' }),
  s('kybStorage', 'PAYPLANE_KYB_STORAGE', 'where KYB documents are kept: database or filesystem', 'string', { default: 'database' }),
  s(
    'webhookAllowCidrs',
    'PAYPLANE_WEBHOOK_ALLOW_CIDRS',
    'comma-separated private CIDRs webhook endpoints may be saved at and deliveries may reach',
    'string',
    { default: 'none' },
  ),
  s(
    'connectorAllowCidrs',
    'PAYPLANE_CONNECTOR_ALLOW_CIDRS',
    "comma-separated private CIDRs a provider integration's connectorBaseUrl may point at (a local fake, a proxy)",
    'string',
    { default: 'none' },
  ),
  s('connectorCaFile', 'PAYPLANE_CONNECTOR_CA_FILE', "PEM file of extra CA certificates trusted for acquirers' hosts", 'string', {
    default: 'none',
  }),
  s('connectorTimeoutMs', 'PAYPLANE_CONNECTOR_TIMEOUT_MS', 'how long a real acquirer has to answer a call', 'int', { default: '30000' }),
  s('webhookCaFile', 'PAYPLANE_WEBHOOK_CA_FILE', 'PEM file of extra CA certificates trusted for webhook receivers', 'string', {
    default: 'none',
  }),
  s('webhookTimeoutMs', 'PAYPLANE_WEBHOOK_TIMEOUT_MS', 'how long a webhook receiver has to answer', 'int', { default: '10000' }),
  s('dispatchLeaseMs', 'PAYPLANE_DISPATCH_LEASE_MS', 'dispatcher claim lease', 'int', { default: '60000' }),
  s('dispatchPollMs', 'PAYPLANE_DISPATCH_POLL_MS', 'dispatcher idle poll interval', 'int', { default: '500' }),
  s('dispatchBatch', 'PAYPLANE_DISPATCH_BATCH', 'deliveries claimed at once', 'int', { default: '50' }),
  s('dispatchConcurrency', 'PAYPLANE_DISPATCH_CONCURRENCY', 'deliveries sent in parallel', 'int', { default: '16' }),
  s('sandboxDelayMs', 'PAYPLANE_SANDBOX_DELAY_MS', 'how long the sandbox acquirer takes to answer', 'int', { default: '300' }),
  s('sandboxPollMs', 'PAYPLANE_SANDBOX_POLL_MS', 'how often serve looks for due sandbox acquirer answers', 'int', { default: '200' }),
  s('holdingPeriodHours', 'PAYPLANE_HOLDING_PERIOD_HOURS', 'how long captured funds stay pending', 'int', { default: '48' }),
  s('ledgerReleaseMs', 'PAYPLANE_LEDGER_RELEASE_MS', 'how often the ledger-release job (balance releases) runs (at least 100)', 'int', {
    default: '60000',
  }),
  s('checkoutExpiryMs', 'PAYPLANE_CHECKOUT_EXPIRY_MS', 'how often the checkout-expiry job runs (at least 100)', 'int', {
    default: '60000',
  }),
  s(
    'paymentRecoveryMs',
    'PAYPLANE_PAYMENT_RECOVERY_MS',
    'how often the payment-recovery job (stalled provider calls) runs (at least 100)',
    'int',
    { default: '60000' },
  ),
  s('disputeDeadlinesMs', 'PAYPLANE_DISPUTE_DEADLINES_MS', 'how often the dispute-deadlines job runs (at least 100)', 'int', {
    default: '60000',
  }),
  s(
    'settlementsMs',
    'PAYPLANE_SETTLEMENTS_MS',
    "how often the settlements job (finalizing past days' statements) runs (at least 100)",
    'int',
    { default: '60000' },
  ),
  s('payoutsMs', 'PAYPLANE_PAYOUTS_MS', 'how often the payouts job (scheduled payouts) runs (at least 100)', 'int', { default: '60000' }),
  s(
    'providerNotificationsMs',
    'PAYPLANE_PROVIDER_NOTIFICATIONS_MS',
    'how often the provider-notifications job (acquirer notifications not applied yet) runs (at least 100)',
    'int',
    { default: '60000' },
  ),
  s('withdrawalCoolingHours', 'PAYPLANE_WITHDRAWAL_COOLING_HOURS', 'how long a new withdrawal method cools', 'int', { default: '24' }),
  s('withdrawalCoolingMs', 'PAYPLANE_WITHDRAWAL_COOLING_MS', 'how often the withdrawal-method-cooling job runs (at least 100)', 'int', {
    default: '60000',
  }),
  s(
    'operator',
    'PAYPLANE_OPERATOR',
    'who acts in withdrawals and risk commands: the platform user of that account (externalIdpId os:<name>, created on first use), whose id the records carry',
    'string',
    { default: 'the OS user' },
  ),
  s('port', 'PORT', 'serve --port', 'int', { default: '4242' }),
  s('host', 'HOST', 'serve --host', 'string', { default: '127.0.0.1' }),
];

export const CONFIG_FILE_NAME = 'payplane.config.json';

/**
 * The file's schema: every key optional, no other key. Built when a file is read, so that zod is not loaded as every
 * command starts (about 60 ms) when there is no file.
 */
let fileSchema: Zod.ZodType<Record<string, string | number | boolean | undefined>> | undefined;
function configFileSchema() {
  if (!fileSchema) {
    const { z } = require('zod') as typeof import('zod');
    const value: Record<Setting['kind'], Zod.ZodType<string | number | boolean>> = {
      string: z.string('must be a string').min(1, 'must not be empty'),
      int: z.number('must be a number').int('must be a whole number').min(0, 'must not be negative'),
      'boolean-or-string': z.union([z.boolean(), z.string().min(1)], 'must be true, false or a string'),
    };
    fileSchema = z.strictObject(Object.fromEntries(SETTINGS.map((setting) => [setting.key, value[setting.kind].optional()])));
  }
  return fileSchema;
}

/** Which file applies: PAYPLANE_CONFIG (it must exist), else ./payplane.config.json when present. */
export function configFilePath(env: NodeJS.ProcessEnv, cwd = process.cwd()): string | undefined {
  if (env.PAYPLANE_CONFIG) return path.resolve(cwd, env.PAYPLANE_CONFIG);
  const local = path.join(cwd, CONFIG_FILE_NAME);
  return fs.existsSync(local) ? local : undefined;
}

/** The file's settings, validated: a problem names the file and the key (400-style ValidationError, exit code 2). */
export function readConfigFile(file: string): Record<string, string | number | boolean> {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    const message =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `is not valid JSON (${(error as Error).message})`;
    throw new ValidationError(`The configuration file ${file} ${message}.`, [{ path: file, message }], 'INVALID_CONFIG_FILE');
  }
  const parsed = configFileSchema().safeParse(raw);
  if (!parsed.success) {
    const errors = parsed.error.issues.flatMap((issue) => {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [issue.path.join('.')];
      return keys.map((key) => ({
        path: key || '(file)',
        message: issue.code === 'unrecognized_keys' ? unknownKeyMessage(key) : issue.message,
      }));
    });
    throw new ValidationError(
      `The configuration file ${file} is invalid: ${errors.map((e) => `"${e.path}" ${e.message}`).join('; ')}.`,
      errors,
      'INVALID_CONFIG_FILE',
    );
  }
  return Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined)) as Record<string, string | number | boolean>;
}

/** Edit distance of two short strings (a misspelt key's nearest setting). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

function unknownKeyMessage(key: string): string {
  const nearest = SETTINGS.map((setting) => ({ key: setting.key, d: distance(key, setting.key) })).sort((x, y) => x.d - y.d)[0];
  return nearest && nearest.d <= 3
    ? `is not a setting: did you mean "${nearest.key}"?`
    : "is not a setting (the README's Configuration section lists them)";
}

export type SettingSource = 'flag' | 'environment' | 'file' | 'default';

/** What the configuration file added to the environment of this process, for `payplane config show`. */
export interface AppliedConfig {
  file?: string;
  /** environment variables the file set (the environment had none of its own) */
  fromFile: Set<string>;
}

let applied: AppliedConfig = { fromFile: new Set() };

/**
 * Reads the configuration file (if any) into `env` for every setting the environment does not set itself, so every
 * part of payplane reads one source and the environment wins over the file. Called once as a command starts.
 */
export function applyConfigFile(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): AppliedConfig {
  const file = configFilePath(env, cwd);
  const fromFile = new Set<string>();
  if (file) {
    const values = readConfigFile(file);
    for (const setting of SETTINGS) {
      const value = values[setting.key];
      if (value === undefined || (env[setting.env] !== undefined && env[setting.env] !== '')) continue;
      env[setting.env] = String(value);
      fromFile.add(setting.env);
    }
  }
  applied = { file, fromFile };
  return applied;
}

export function appliedConfig(): AppliedConfig {
  return applied;
}

/** A secret's value as `config show` prints it: never the secret, only that it is set. */
export function maskSetting(setting: Setting, value: string): string {
  if (setting.secret === 'url') return value.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1****@');
  if (setting.secret) return `**** (set, ${value.length} characters)`;
  return value;
}

export interface EffectiveSetting {
  key: string;
  env: string;
  value: string | null;
  source: SettingSource;
  description: string;
}

/** Each setting's value (masked) and where it comes from; `flags` are values a command's own flags gave. */
export function effectiveSettings(env: NodeJS.ProcessEnv, flags: Record<string, string | undefined> = {}): EffectiveSetting[] {
  return SETTINGS.map((setting) => {
    const fromFlag = flags[setting.env];
    const raw = fromFlag ?? (env[setting.env] || undefined);
    const source: SettingSource =
      fromFlag !== undefined ? 'flag' : raw === undefined ? 'default' : applied.fromFile.has(setting.env) ? 'file' : 'environment';
    return {
      key: setting.key,
      env: setting.env,
      value: raw === undefined ? (setting.default ?? null) : maskSetting(setting, raw),
      source,
      description: setting.description,
    };
  });
}
