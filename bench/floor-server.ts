import crypto from 'node:crypto';
import http from 'node:http';
import express from 'express';
import { Pool } from 'pg';
import sqlite3 from 'sqlite3';
import { serveChild } from './child-server';

/**
 * The floor of the HTTP benchmark (bench/http-floor.ts): the least any implementation on this stack (Express, and
 * sqlite3 or pg) can do per request for cases (b) and (d) of bench/http-bench.ts, with nothing of the platform in it.
 * Run as a child process: `node floor-server.js <sqlite:file|postgres://url> [port]`; sends `{ port }` over IPC.
 *
 * - GET /hello: case (a), as bench/http-hello.ts.
 * - GET /read/:id: a bearer token looked up by its SHA-256 in a Map, then one prepared SELECT of a 40-column row by
 *   primary key, answered as JSON (404 when missing). What (b) cannot do less than.
 * - POST /write: the same token check, then one transaction per request: BEGIN, an INSERT of a 40-column row and two
 *   INSERTs of an event-like row (id and the JSON body), COMMIT; answered 201 once committed. What (d) cannot do less
 *   than (the platform also validates, keeps the idempotency key, audits and builds the answer). SQLite: one writer
 *   connection in WAL mode with synchronous=NORMAL as src/db/database.ts, the transaction's statements queued in the
 *   driver's serialized mode (no event-loop turn between them), transactions one after another; Postgres: a pool of 10.
 * - POST /write-grouped (SQLite): as /write, but the requests waiting for the writer share one transaction (group
 *   commit): an upper bound for any queueing of SQLite writes.
 */
const [target = 'sqlite::memory:', portArg = '0'] = process.argv.slice(2);
const COLUMNS = 40;
const TOKEN_HASHES = new Set([sha256('sk_floor')]);

function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

function authorized(req: express.Request): boolean {
  const header = req.headers.authorization ?? '';
  return header.startsWith('Bearer ') && TOKEN_HASHES.has(sha256(header.slice(7)));
}

const rowValues = (id: string) => [id, ...Array.from({ length: COLUMNS }, (_, i) => `value ${i}`)];
const createRows = `CREATE TABLE IF NOT EXISTS floor_rows (id TEXT PRIMARY KEY, ${Array.from({ length: COLUMNS }, (_, i) => `c${i} TEXT`).join(', ')})`;
const createEvents = 'CREATE TABLE IF NOT EXISTS floor_events (id TEXT PRIMARY KEY, data TEXT NOT NULL)';

interface Store {
  read(id: string): Promise<unknown>;
  write(id: string, body: string): Promise<void>;
  writeGrouped?(id: string, body: string): Promise<void>;
}

/** Seeds 1,000 rows `row_0` … `row_999` (the ids the benchmark reads). */
const SEEDED = 1_000;

async function sqliteStore(file: string): Promise<Store> {
  const open = () => new sqlite3.Database(file);
  const writer = open();
  const reader = open();
  const exec = (db: sqlite3.Database, sql: string) =>
    new Promise<void>((resolve, reject) => db.exec(sql, (e) => (e ? reject(e) : resolve())));
  await exec(writer, `PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; ${createRows}; ${createEvents};`);
  await exec(reader, 'PRAGMA synchronous=NORMAL;');
  const insertRow = writer.prepare(`INSERT INTO floor_rows VALUES (?${', ?'.repeat(COLUMNS)})`);
  const insertEvent = writer.prepare('INSERT INTO floor_events VALUES (?, ?)');
  await exec(writer, 'BEGIN');
  for (let i = 0; i < SEEDED; i++)
    await new Promise<void>((resolve, reject) => insertRow.run(rowValues(`row_${i}`), (e: Error | null) => (e ? reject(e) : resolve())));
  await exec(writer, 'COMMIT');
  const select = reader.prepare('SELECT * FROM floor_rows WHERE id = ?');

  /** one transaction of the given writes, its statements queued back to back; resolves once committed */
  const transaction = (writes: Array<{ id: string; body: string }>) =>
    new Promise<void>((resolve, reject) => {
      writer.serialize(() => {
        writer.run('BEGIN');
        for (const w of writes) {
          insertRow.run(rowValues(w.id));
          insertEvent.run([`ev_${crypto.randomUUID()}`, w.body]);
          insertEvent.run([`ev_${crypto.randomUUID()}`, w.body]);
        }
        writer.run('COMMIT', (e: Error | null) => (e ? reject(e) : resolve()));
      });
    });
  let queue: Promise<void> = Promise.resolve();
  let waiting: Array<{ id: string; body: string; done: (e?: Error) => void }> = [];
  let busy = false;
  const drain = () => {
    if (busy || waiting.length === 0) return;
    busy = true;
    const batch = waiting;
    waiting = [];
    transaction(batch)
      .then(
        () => batch.forEach((w) => w.done()),
        (e: Error) => batch.forEach((w) => w.done(e)),
      )
      .finally(() => {
        busy = false;
        drain();
      });
  };
  return {
    read: (id) => new Promise((resolve, reject) => select.get([id], (e: Error | null, row: unknown) => (e ? reject(e) : resolve(row)))),
    write: (id, body) => {
      const done = queue.then(() => transaction([{ id, body }]));
      queue = done.catch(() => undefined);
      return done;
    },
    writeGrouped: (id, body) =>
      new Promise<void>((resolve, reject) => {
        waiting.push({ id, body, done: (e) => (e ? reject(e) : resolve()) });
        drain();
      }),
  };
}

async function postgresStore(url: string): Promise<Store> {
  const pool = new Pool({ connectionString: url, max: 10 });
  await pool.query(`${createRows}; ${createEvents}`);
  await pool.query(
    `INSERT INTO floor_rows SELECT 'row_' || g${', $1::text'.repeat(COLUMNS)} FROM generate_series(0, ${SEEDED - 1}) g ON CONFLICT DO NOTHING`,
    ['value'],
  );
  const insertRow = `INSERT INTO floor_rows VALUES ($1${Array.from({ length: COLUMNS }, (_, i) => `, $${i + 2}`).join('')})`;
  return {
    read: async (id) => (await pool.query({ name: 'floor_read', text: 'SELECT * FROM floor_rows WHERE id = $1', values: [id] })).rows[0],
    write: async (id, body) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query({ name: 'floor_row', text: insertRow, values: rowValues(id) });
        await client.query({
          name: 'floor_event',
          text: 'INSERT INTO floor_events VALUES ($1, $2)',
          values: [`ev_${crypto.randomUUID()}`, body],
        });
        await client.query({
          name: 'floor_event',
          text: 'INSERT INTO floor_events VALUES ($1, $2)',
          values: [`ev_${crypto.randomUUID()}`, body],
        });
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
  };
}

async function main() {
  const store = target.startsWith('postgres') ? await postgresStore(target) : await sqliteStore(target.replace(/^sqlite:/, ''));
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json());
  app.get('/hello', (_req, res) => {
    res.json({ hello: 'world' });
  });
  app.get('/read/:id', (req, res, next) => {
    if (!authorized(req)) return void res.status(401).end();
    store.read(req.params.id).then((row) => (row ? res.json(row) : res.status(404).end()), next);
  });
  const write = (kind: 'write' | 'writeGrouped') => (req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (!authorized(req)) return void res.status(401).end();
    const id = `row_${crypto.randomUUID()}`;
    const run = store[kind];
    if (!run) return void res.status(404).end();
    run(id, JSON.stringify(req.body)).then(() => res.status(201).json({ id }), next);
  };
  app.post('/write', write('write'));
  app.post('/write-grouped', write('writeGrouped'));
  const server = http.createServer(app);
  // as src/http/server.ts
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  serveChild(server, Number(portArg));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
