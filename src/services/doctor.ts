import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../config';
import { Database, hidePassword, parseDatabaseUrl } from '../db/database';
import { migrations } from '../db/migrations';
import { configFilePath, readConfigFile } from '../settings';
import { decodeMasterKey, masterKeyFile } from '../util/encryption';
import { TOKEN_SECRET_MIN_LENGTH, tokenSecretFile } from './access/tokens';
import { MIN_NODE } from '../version';

export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface DoctorCheck {
  /** a stable name: node, config-file, database, migrations, clock, master-key, token-secret, file-permissions, webhook-ca */
  name: string;
  status: CheckStatus;
  detail: string;
  /** what to do about a warning or a failure */
  hint?: string;
}

export interface DoctorReport {
  /** no check failed (warnings allowed) */
  ok: boolean;
  checks: DoctorCheck[];
}

export interface DoctorOptions {
  env?: NodeJS.ProcessEnv;
  /** the running Node version (tests pass another) */
  nodeVersion?: string;
  now?: () => Date;
}

/** Differences between this machine's clock and the database's that a warning, and a failure, start at. */
export const CLOCK_WARN_MS = 1_000;
export const CLOCK_FAIL_MS = 5_000;

const pass = (name: string, detail: string): DoctorCheck => ({ name, status: 'pass', detail });
const warn = (name: string, detail: string, hint: string): DoctorCheck => ({ name, status: 'warn', detail, hint });
const fail = (name: string, detail: string, hint: string): DoctorCheck => ({ name, status: 'fail', detail, hint });

function versionAtLeast(version: string, minimum: string): boolean {
  const a = version.replace(/^v/, '').split('.').map(Number);
  const b = minimum.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

function checkNode(version: string): DoctorCheck {
  return versionAtLeast(version, MIN_NODE)
    ? pass('node', `Node ${version} (needs ${MIN_NODE} or later)`)
    : fail('node', `Node ${version} is older than ${MIN_NODE}`, `Install Node ${MIN_NODE} or later (e.g. nvm install 20).`);
}

/** The master key: PAYPLANE_MASTER_KEY (32 bytes, base64), else the file generated into the home (sandbox only). */
function checkMasterKey(config: AppConfig, env: NodeJS.ProcessEnv, postgres: boolean): DoctorCheck {
  const name = 'master-key';
  const configured = env.PAYPLANE_MASTER_KEY;
  if (configured) {
    return decodeMasterKey(configured)
      ? pass(name, 'PAYPLANE_MASTER_KEY is set (32 bytes)')
      : fail(
          name,
          'PAYPLANE_MASTER_KEY is not 32 bytes of base64',
          'Generate one with `openssl rand -base64 32`; keep the old one if data was sealed with it.',
        );
  }
  const file = masterKeyFile(config);
  if (fs.existsSync(file)) {
    return postgres
      ? warn(
          name,
          `the master key is the generated file ${file}`,
          'On a shared Postgres database set PAYPLANE_MASTER_KEY (the same on every process) to the content of that file.',
        )
      : pass(name, `the master key is the generated file ${file}`);
  }
  return postgres
    ? fail(
        name,
        'no PAYPLANE_MASTER_KEY and no generated key file',
        'Set PAYPLANE_MASTER_KEY (openssl rand -base64 32) on every process that shares this database.',
      )
    : warn(
        name,
        `no master key yet: it is generated into ${file} on first use`,
        'Nothing to do for a sandbox; set PAYPLANE_MASTER_KEY in production.',
      );
}

function checkTokenSecret(config: AppConfig, postgres: boolean): DoctorCheck {
  const name = 'token-secret';
  if (config.tokenSecret) {
    return config.tokenSecret.length >= TOKEN_SECRET_MIN_LENGTH
      ? pass(name, 'PAYPLANE_TOKEN_SECRET is set')
      : fail(
          name,
          `PAYPLANE_TOKEN_SECRET is shorter than ${TOKEN_SECRET_MIN_LENGTH} characters`,
          `Use at least ${TOKEN_SECRET_MIN_LENGTH} random characters (openssl rand -base64 48).`,
        );
  }
  const file = tokenSecretFile(config);
  if (!fs.existsSync(file))
    return warn(name, `no token secret yet: it is generated into ${file} on first use`, 'Set PAYPLANE_TOKEN_SECRET in production.');
  return postgres
    ? warn(
        name,
        `the token secret is the generated file ${file}`,
        'On a shared database set PAYPLANE_TOKEN_SECRET on every process, or tokens issued by one are refused by another.',
      )
    : pass(name, `the token secret is the generated file ${file}`);
}

/** The home and the secrets in it are the owner's only (0700 / 0600). */
function checkPermissions(config: AppConfig): DoctorCheck {
  const name = 'file-permissions';
  if (process.platform === 'win32') return pass(name, 'not checked on Windows');
  const loose: string[] = [];
  const target = parseDatabaseUrl(config.databaseUrl);
  // the SQLite database and its -wal and -shm hold every record (payplane tightens them when it opens the database)
  const database =
    target.dialect === 'sqlite' && target.location !== ':memory:'
      ? [target.location, `${target.location}-wal`, `${target.location}-shm`]
      : [];
  const files = [path.join(config.home, 'sandbox.json'), masterKeyFile(config), tokenSecretFile(config), ...database].filter((f) =>
    fs.existsSync(f),
  );
  for (const file of files) if ((fs.statSync(file).mode & 0o077) !== 0) loose.push(file);
  const looseHome = fs.existsSync(config.home) && (fs.statSync(config.home).mode & 0o077) !== 0;
  if (loose.length || looseHome) {
    const hint = [...(loose.length ? [`chmod 600 ${loose.join(' ')}`] : []), ...(looseHome ? [`chmod 700 ${config.home}`] : [])].join('; ');
    return fail(name, `readable by others: ${[...(looseHome ? [`${config.home}/`] : []), ...loose].join(', ')}`, hint);
  }
  return pass(
    name,
    files.length
      ? `${files.length} secret file${files.length === 1 ? '' : 's'} in ${config.home}, owner only`
      : `no secret files in ${config.home}`,
  );
}

/** PAYPLANE_WEBHOOK_CA_FILE: readable PEM certificates, none expired. */
function checkWebhookCa(env: NodeJS.ProcessEnv, now: Date): DoctorCheck {
  const name = 'webhook-ca';
  const file = env.PAYPLANE_WEBHOOK_CA_FILE;
  if (!file) return pass(name, 'webhook receivers are checked against the system CAs only');
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch (error) {
    return fail(
      name,
      `PAYPLANE_WEBHOOK_CA_FILE ${file} cannot be read: ${(error as Error).message}`,
      'Point it at a readable PEM file, or unset it.',
    );
  }
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length)
    return fail(name, `${file} holds no PEM certificate`, 'It must contain one or more -----BEGIN CERTIFICATE----- blocks.');
  const expired: string[] = [];
  for (const block of blocks) {
    try {
      const cert = new crypto.X509Certificate(block);
      if (new Date(cert.validTo).getTime() < now.getTime()) expired.push(cert.subject.replace(/\n/g, ', '));
    } catch (error) {
      return fail(
        name,
        `${file} holds a certificate that cannot be read: ${(error as Error).message}`,
        'Replace it with valid PEM certificates.',
      );
    }
  }
  if (expired.length)
    return warn(
      name,
      `${expired.length} of ${blocks.length} certificates in ${file} expired (${expired.join('; ')})`,
      'Replace the expired certificates.',
    );
  return pass(name, `${blocks.length} certificate${blocks.length === 1 ? '' : 's'} trusted from ${file}`);
}

/** The configuration file that applies (./payplane.config.json or PAYPLANE_CONFIG), if any, and whether it is valid. */
function checkConfigFile(env: NodeJS.ProcessEnv): DoctorCheck {
  const name = 'config-file';
  const file = configFilePath(env);
  if (!file) return pass(name, 'no configuration file: environment variables and defaults');
  try {
    const settings = Object.keys(readConfigFile(file));
    return pass(
      name,
      `${file}: ${settings.length} setting${settings.length === 1 ? '' : 's'} (${settings.join(', ') || 'none'}), under the environment and the flags`,
    );
  } catch (error) {
    return fail(name, (error as Error).message, 'Fix the named keys (`payplane config show` lists the settings once the file is valid).');
  }
}

/** Connection, migrations and (on Postgres) the clock of the database against this machine's. */
async function checkDatabase(config: AppConfig, now: () => Date): Promise<DoctorCheck[]> {
  const target = parseDatabaseUrl(config.databaseUrl);
  const shown = target.dialect === 'postgres' ? hidePassword(config.databaseUrl) : `sqlite:${target.location}`;
  if (target.dialect === 'sqlite' && target.location !== ':memory:' && !fs.existsSync(target.location)) {
    return [
      warn('database', `${shown} does not exist yet`, '`payplane serve` (or `payplane db migrate`) creates it.'),
      warn('migrations', 'no database yet', 'Run `payplane db migrate` or start `payplane serve`.'),
      pass('clock', "SQLite shares this machine's clock"),
    ];
  }
  let db: Database;
  try {
    db = await Database.connect(config.databaseUrl, { keepModes: true, create: false, requireSchema: false });
  } catch (error) {
    const hint =
      target.dialect === 'postgres'
        ? 'Check DATABASE_URL (host, port, user, database) and that Postgres runs: pg_isready -h <host> -p <port>.'
        : 'Check that the file and its folder are readable and writable.';
    return [
      fail('database', `${shown} is not reachable: ${(error as Error).message}`, hint),
      fail('migrations', 'not checked: no database', 'Fix the database check first.'),
      fail('clock', 'not checked: no database', 'Fix the database check first.'),
    ];
  }
  try {
    const checks: DoctorCheck[] = [pass('database', `${shown} (${target.dialect}) answers`)];
    const { executed, pending } = await db.migrationStatus();
    const known = new Set(migrations.map((m) => m.name));
    const unknown = executed.filter((name) => !known.has(name));
    if (unknown.length) {
      checks.push(
        fail(
          'migrations',
          `the database has migrations this build does not know: ${unknown.join(', ')}`,
          'Run a payplane as new as the one that migrated the database.',
        ),
      );
    } else if (pending.length) {
      checks.push(
        warn(
          'migrations',
          `${pending.length} pending: ${pending.join(', ')}`,
          'Run `payplane db migrate` (serve applies them when it starts).',
        ),
      );
    } else {
      checks.push(pass('migrations', `all ${executed.length} applied`));
    }
    if (target.dialect === 'postgres') {
      const before = now().getTime();
      const [rows] = (await db.sequelize.query('SELECT now() AS now')) as [{ now: Date | string }[], unknown];
      const after = now().getTime();
      const skew = new Date(rows[0].now).getTime() - (before + after) / 2;
      const detail = `this machine's clock is ${Math.abs(Math.round(skew))} ms ${skew > 0 ? 'behind' : 'ahead of'} the database's`;
      const hint = 'Synchronize the clocks (NTP: timedatectl set-ntp true): tokens, holding periods and scheduled jobs depend on them.';
      checks.push(
        Math.abs(skew) >= CLOCK_FAIL_MS
          ? fail('clock', detail, hint)
          : Math.abs(skew) >= CLOCK_WARN_MS
            ? warn('clock', detail, hint)
            : pass('clock', detail),
      );
    } else {
      checks.push(pass('clock', "SQLite shares this machine's clock"));
    }
    return checks;
  } finally {
    await db.close();
  }
}

/**
 * What `payplane doctor` checks: Node, the configuration file, the database (reachable, migrations, clock), the master key and token secret,
 * the permissions of the secret files, the webhook CA file. It changes nothing (no key file is generated, no
 * migration applied).
 */
export async function runDoctor(config: AppConfig, options: DoctorOptions = {}): Promise<DoctorReport> {
  const env = options.env ?? process.env;
  const now = options.now ?? (() => new Date());
  const postgres = parseDatabaseUrl(config.databaseUrl).dialect === 'postgres';
  // before the database is opened: opening it tightens the modes of its files
  const permissions = checkPermissions(config);
  const checks = [
    checkNode(options.nodeVersion ?? process.versions.node),
    checkConfigFile(env),
    ...(await checkDatabase(config, now)),
    checkMasterKey(config, env, postgres),
    checkTokenSecret(config, postgres),
    permissions,
    checkWebhookCa(env, now()),
  ];
  return { ok: checks.every((c) => c.status !== 'fail'), checks };
}
