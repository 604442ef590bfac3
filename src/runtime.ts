import pino, { type Logger } from 'pino';
import type { AppConfig } from './config';
import { Database, tightenMode } from './db/database';
import { systemClock, type Clock } from './domain/clock';
import type { CallerContext, Level } from './domain/context';
import { LEVEL_LAYER } from './domain/context';
import { layerPermissions } from './services/access/permissions';
import { operatorActor } from './services/access/operators';
import { TokenService } from './services/access/tokens';
import os from 'node:os';
import path from 'node:path';
import { Sealer, loadMasterKey } from './util/encryption';
import { createMetrics, type Metrics } from './metrics';

/** What a process holds while it runs: configuration, the database, the clock, tokens and the logger. */
export interface Runtime {
  config: AppConfig;
  db: Database;
  clock: Clock;
  tokens: TokenService;
  sealer: Sealer;
  logger: Logger;
  metrics: Metrics;
}

export interface RuntimeOptions {
  clock?: Clock;
  /** apply pending migrations on open (serve and the data commands do) */
  migrate?: boolean;
  logger?: Logger;
}

export async function openRuntime(config: AppConfig, options: RuntimeOptions = {}): Promise<Runtime> {
  const sealer = new Sealer(() => loadMasterKey(config));
  // the home holds the master key, the sandbox's credentials and (by default) the database: its owner's only
  tightenMode(config.home, 0o700);
  const db = await Database.connect(config.databaseUrl, { sealer });
  try {
    if (options.migrate !== false) await db.migrate();
  } catch (error) {
    await db.close();
    throw error;
  }
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel, config.logFile);
  return {
    config, db, clock, tokens: new TokenService(config, clock), sealer, logger, metrics: createMetrics(db, clock),
  };
}

const LOG_REDACT = { paths: ['*.authorization', '*.secretKey', '*.secret', '*.token', 'headers.authorization'], censor: '[redacted]' };
/** one destination per log file and process: every runtime of the process appends through it */
const logFiles = new Map<string, pino.DestinationStream>();

/**
 * The process's logger: pino JSON lines at `level`, credential fields redacted, on stdout or, with `file`
 * (PAYPLANE_LOG_FILE), appended to that file ("%p" in its path is replaced by the process id, so several processes
 * can share one setting). A silent logger opens no file.
 */
export function createLogger(level: string, file?: string): Logger {
  if (!file || level === 'silent') return pino({ level, redact: LOG_REDACT });
  const resolved = path.resolve(file.replace(/%p/g, String(process.pid)));
  let destination = logFiles.get(resolved);
  if (!destination) {
    // synchronous appends: a short-lived command's last lines are not lost when it exits
    destination = pino.destination({ dest: resolved, append: true, mkdir: true, sync: true });
    logFiles.set(resolved, destination);
  }
  return pino({ level, redact: LOG_REDACT }, destination);
}

export async function closeRuntime(rt: Runtime): Promise<void> {
  await rt.db.close();
}

export interface OperatorScope {
  level?: Level;
  tenantId: string | null;
  merchantId?: string | null;
  livemode: boolean;
  /**
   * who acts (default: the OS user; withdrawal and risk commands take it from --operator): the platform user of that
   * account (services/operators), whose id records carry; audit entries name the account too
   */
  operator?: string;
}

/**
 * The context of the platform's own background work (dispatcher, schedulers): platform level, so it reads
 * across tenants in one mode; what it writes names its tenant explicitly. Actor: system.
 */
export function systemContext(rt: Runtime, livemode: boolean): CallerContext {
  return { ...operatorContext(rt, { level: 'platform', tenantId: null, livemode }), actor: { type: 'system', id: 'system' }, credential: 'system' };
}

/**
 * The caller context of an operator at the terminal: admin commands run with the database's own authority,
 * acting at the given level with every permission of that layer. The actor is the operator's user (created on first
 * use, externalIdpId os:<account>); audit entries name the account.
 */
export function operatorContext(rt: Runtime, scope: OperatorScope): CallerContext {
  const level = scope.level ?? (scope.merchantId ? 'merchant' : scope.tenantId ? 'tenant' : 'platform');
  return {
    db: rt.db,
    clock: rt.clock,
    config: rt.config,
    sealer: rt.sealer,
    level,
    tenantId: level === 'platform' ? null : scope.tenantId,
    merchantId: level === 'merchant' ? (scope.merchantId ?? null) : null,
    livemode: scope.livemode,
    actor: operatorActor(scope.operator ?? safeUsername()),
    permissions: layerPermissions(LEVEL_LAYER[level]),
    credential: 'cli',
  };
}

let username: string | undefined;
/** The OS user, read once per process (os.userInfo is a system call). */
function safeUsername(): string {
  if (username === undefined) {
    try {
      username = os.userInfo().username;
    } catch {
      username = 'unknown';
    }
  }
  return username;
}
