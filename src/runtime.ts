import type { Logger, DestinationStream } from 'pino';
import type { AppConfig } from './config';
import { Database, tightenMode } from './db/database';
import { systemClock, type Clock } from './domain/clock';
import { TokenService } from './services/access/tokens';
import path from 'node:path';
import { Sealer, loadMasterKey } from './util/encryption';
import type { Metrics } from './metrics';
import type { LogFormat } from './log-format';

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
  /** false: refuse a missing database (or one without the schema) instead of creating it (Database.connect) */
  create?: boolean;
  /** with create false: false also accepts a database without the schema (`db migrate status`) */
  requireSchema?: boolean;
  logger?: Logger;
  /** without `logger`: the level of the logger made on first use (default: the configuration's) */
  logLevel?: string;
}

export async function openRuntime(config: AppConfig, options: RuntimeOptions = {}): Promise<Runtime> {
  const sealer = new Sealer(() => loadMasterKey(config));
  // the home holds the master key, the sandbox's credentials and (by default) the database: its owner's only
  tightenMode(config.home, 0o700);
  const db = await Database.connect(config.databaseUrl, { sealer, create: options.create, requireSchema: options.requireSchema });
  try {
    if (options.migrate !== false) await db.migrate();
  } catch (error) {
    await db.close();
    throw error;
  }
  const clock = options.clock ?? systemClock;
  let logger = options.logger;
  let metrics: Metrics | undefined;
  return {
    config,
    db,
    clock,
    tokens: new TokenService(config, clock),
    sealer,
    // made on first use (pino and its streams): an admin command that logs nothing does not load it
    get logger(): Logger {
      return (logger ??= createLogger(options.logLevel ?? config.logLevel, config.logFile));
    },
    // made on first use (prom-client and its collectors): serve and the dispatcher count, admin commands do not
    get metrics(): Metrics {
      return (metrics ??= (require('./metrics') as typeof import('./metrics')).createMetrics(db, clock));
    },
  };
}

// credential fields at the top of an entry and one level down (headers.authorization, key.secretKey, …), and a nested
// object's headers; whatever the format the lines are written in (src/log-format.ts), redaction comes first
const LOG_REDACT = {
  paths: [
    'authorization',
    'secretKey',
    'secret',
    'token',
    '*.authorization',
    '*.secretKey',
    '*.secret',
    '*.token',
    'headers.authorization',
    '*.headers.authorization',
  ],
  censor: '[redacted]',
};
/** one destination per log file and process: every runtime of the process appends through it */
const logFiles = new Map<string, DestinationStream>();

/**
 * The process's logger at `level`, credential fields redacted, on stdout or, with `file` (PAYPLANE_LOG_FILE), appended
 * to that file ("%p" in its path is replaced by the process id, so several processes can share one setting). A silent
 * logger opens no file. Its lines are pino JSON, or readable lines (src/log-format.ts) under PAYPLANE_LOG_FORMAT=pretty
 * and by default when they go to stdout and stdout is a terminal; redaction comes first either way.
 */
export function createLogger(level: string, file?: string, options: { format?: LogFormat } = {}): Logger {
  // loaded with the logger: the readable format brings the terminal's colours
  const { chooseLogFormat, prettyLogStream } = require('./log-format') as typeof import('./log-format');
  const format = options.format ?? chooseLogFormat({ toFile: Boolean(file), tty: Boolean(process.stdout.isTTY) });
  const pino = (require('pino') as typeof import('pino')).default;
  if (level === 'silent') return pino({ level, redact: LOG_REDACT });
  if (!file)
    return format === 'pretty'
      ? pino(
          { level, redact: LOG_REDACT },
          prettyLogStream((text) => process.stdout.write(text)),
        )
      : pino({ level, redact: LOG_REDACT });
  const resolved = path.resolve(file.replace(/%p/g, String(process.pid)));
  let destination = logFiles.get(resolved);
  if (!destination) {
    // synchronous appends: a short-lived command's last lines are not lost when it exits
    destination = pino.destination({ dest: resolved, append: true, mkdir: true, sync: true });
    logFiles.set(resolved, destination);
  }
  const sink = destination;
  return pino({ level, redact: LOG_REDACT }, format === 'pretty' ? prettyLogStream((text) => sink.write(text), false) : sink);
}

export async function closeRuntime(rt: Runtime): Promise<void> {
  await rt.db.close();
}
