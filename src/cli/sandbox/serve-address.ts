import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../../config';
import { writePrivateFile } from '../../util/paths';

/**
 * Where a running `serve` listens, for `sandbox env` (its API_URL): each serve records its address for its database
 * under <home>/serve/ (<database>-<pid>.json, mode 0600; the database named by a hash of its URL, never the URL),
 * removed when it stops. A record whose process is gone, or that does not answer, is not used.
 */

type Where = Pick<AppConfig, 'home' | 'databaseUrl'>;

interface ServeRecord {
  url: string;
  pid: number;
  database: string;
}

function recordsDir(config: Pick<AppConfig, 'home'>): string {
  return path.join(config.home, 'serve');
}

function databaseKey(databaseUrl: string): string {
  return crypto.createHash('sha256').update(databaseUrl).digest('hex').slice(0, 16);
}

/** Records that this process serves `url` for its database; the returned function removes the record (also done on exit). */
export function recordServeAddress(config: Where, url: string): () => void {
  const database = databaseKey(config.databaseUrl);
  const file = path.join(recordsDir(config), `${database}-${process.pid}.json`);
  writePrivateFile(file, JSON.stringify({ url, pid: process.pid, database } satisfies ServeRecord) + '\n');
  const remove = () => fs.rmSync(file, { force: true });
  process.once('exit', remove);
  return () => {
    process.removeListener('exit', remove);
    remove();
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1500) });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * The address of a running serve of this database (the most recently started that answers), or null. Records of
 * processes that are gone (a serve killed before it could remove its own) are removed.
 */
export async function runningServeUrl(config: Where): Promise<string | null> {
  const dir = recordsDir(config);
  const prefix = `${databaseKey(config.databaseUrl)}-`;
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((name) => name.startsWith(prefix) && name.endsWith('.json'));
  } catch {
    return null;
  }
  const records = names.flatMap((name) => {
    const file = path.join(dir, name);
    try {
      const record = JSON.parse(fs.readFileSync(file, 'utf8')) as ServeRecord;
      if (typeof record.url !== 'string' || typeof record.pid !== 'number') return [];
      if (!alive(record.pid)) {
        fs.rmSync(file, { force: true });
        return [];
      }
      return [{ record, started: fs.statSync(file).mtimeMs }];
    } catch {
      return [];
    }
  });
  for (const { record } of records.sort((a, b) => b.started - a.started)) {
    if (await answers(record.url)) return record.url;
  }
  return null;
}
