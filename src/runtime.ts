import pino, { type Logger } from 'pino';
import type { AppConfig } from './config';
import { Database, tightenMode } from './db/database';
import { systemClock, type Clock } from './domain/clock';
import { TokenService } from './services/access/tokens';
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

