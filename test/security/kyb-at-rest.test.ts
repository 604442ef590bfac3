import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { useApiHarness } from '../helpers/api';
import { appendCanaries, dialectName, onPostgres, SECRET_SCAN_DIR, TEST_TOKEN_SECRET } from '../helpers/db';
import { runCli } from '../helpers/cli';
import { closeRuntime, openRuntime } from '../../src/runtime';
import { loadConfig } from '../../src/config';
import { runDoctor } from '../../src/services/doctor';

/**
 * Issue 20 item 11, at rest. KYB documents (identity documents, bank statements) are sealed under the master key as
 * terminal credentials are: a canary uploaded through the API is found neither in the database (the SQLite file and its
 * -wal byte for byte, the Postgres column) nor in a filesystem-storage file, and downloads byte for byte with its content
 * type. Rows stored in clear before migration 0022 are sealed by it. The SQLite database, its -wal and -shm are 0600 from
 * their creation and the home 0700, wider ones are tightened when payplane opens them, and doctor reports them.
 */

jest.setTimeout(120_000);

let merchantKey: string;
let submissionId: string;

const h = useApiHarness();
beforeAll(async () => {
  merchantKey = h.sandbox.merchantKey.secretKey;
  const created = await h.as(merchantKey).post('/v1/kyb-submissions', {});
  submissionId = created.status === 201 ? created.body.data.id : (await h.as(merchantKey).get('/v1/kyb-submissions/latest')).body.data.id;
});

const canaryDocument = (label: string) => {
  const canary = `kyb-canary-${label}-${crypto.randomBytes(12).toString('hex')}`;
  // the CI secret scan (PAYPLANE_SECRET_SCAN_DIR) looks for it too, in this database's archive and in every log
  if (SECRET_SCAN_DIR) appendCanaries(SECRET_SCAN_DIR, { [`KYB document (${label})`]: canary });
  return {
    canary,
    bytes: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(`BT (${canary}) Tj ET\n`), crypto.randomBytes(3000), Buffer.from(canary)]),
  };
};

async function upload(bytes: Buffer): Promise<string> {
  const res = await request(h.app)
    .post(`/v1/kyb-submissions/${submissionId}/documents?type=bank_statement`)
    .set('Authorization', `Bearer ${merchantKey}`)
    .set('Content-Type', 'application/pdf')
    .send(bytes);
  expect(res.status).toBe(201);
  return (res.body.data.documents as { id: string }[]).at(-1)!.id;
}

async function download(id: string): Promise<request.Response> {
  return request(h.app)
    .get(`/v1/kyb-submissions/${submissionId}/documents/${id}/content`)
    .set('Authorization', `Bearer ${merchantKey}`)
    .buffer(true)
    .parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
}

async function expectDownloads(id: string, bytes: Buffer): Promise<void> {
  const res = await download(id);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/pdf/);
  expect(Buffer.compare(res.body as Buffer, bytes)).toBe(0);
}

/** Where the canary could be found in the database: the SQLite file and -wal byte for byte, or the Postgres column. */
async function foundInDatabase(canary: string): Promise<string[]> {
  const found: string[] = [];
  if (onPostgres) {
    const [rows] = (await h.rt.db.sequelize.query('SELECT id, content FROM kyb_document_contents')) as [
      { id: string; content: Buffer }[],
      unknown,
    ];
    for (const row of rows) if (Buffer.from(row.content).includes(canary)) found.push(`kyb_document_contents ${row.id}`);
    return found;
  }
  const file = h.db.url.replace(/^sqlite:/, '');
  for (const part of [file, `${file}-wal`])
    if (fs.existsSync(part) && fs.readFileSync(part).includes(canary)) found.push(path.basename(part));
  return found;
}

describe(`KYB documents at rest (${dialectName})`, () => {
  test('a canary uploaded through the API is sealed in the database and downloads byte for byte', async () => {
    const { canary, bytes } = canaryDocument('database');
    const id = await upload(bytes);
    expect(await foundInDatabase(canary)).toEqual([]);
    await expectDownloads(id, bytes);
    // the stored bytes are bound to their document: moved onto another document they are corruption, never served
    const other = await upload(canaryDocument('other').bytes);
    const [a, b] = await Promise.all([id, other].map((x) => h.rt.db.models.KybDocumentContent.findByPk(x)));
    const own = b!.get('content') as Buffer;
    await b!.update({ content: a!.get('content') as Buffer });
    const moved = await download(other);
    expect(moved.status).toBe(500);
    expect(JSON.parse((moved.body as Buffer).toString()).code).toBe('KYB_DOCUMENT_CORRUPTED');
    await b!.update({ content: own });
    expect((await download(other)).status).toBe(200);
  });

  test('filesystem storage: the file holds no canary, the download is identical', async () => {
    const saved = { storage: h.rt.config.kybStorage };
    h.rt.config.kybStorage = 'filesystem';
    try {
      const { canary, bytes } = canaryDocument('file');
      const id = await upload(bytes);
      const file = path.join(h.rt.config.home, 'kyb-documents', h.sandbox.tenantId, id);
      expect(fs.readFileSync(file).includes(canary)).toBe(false);
      await expectDownloads(id, bytes);
    } finally {
      h.rt.config.kybStorage = saved.storage;
    }
  });

  test('migration 0022 seals the documents stored in clear before it; downloads stay identical', async () => {
    const { canary, bytes } = canaryDocument('migrated');
    const id = await upload(bytes);
    // back to before 0022: the rows in clear, as an earlier version stored them (the check sees them)
    const reverted = await h.rt.db.rollback('0022_sealed_documents_actor_names');
    expect(reverted.at(-1)).toBe('0022_sealed_documents_actor_names');
    expect((await foundInDatabase(canary)).length).toBeGreaterThan(0);
    expect(await h.rt.db.migrate()).toEqual([...reverted].reverse());
    expect(await foundInDatabase(canary)).toEqual([]);
    await expectDownloads(id, bytes);
  });
});

const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe(`file modes of the home and the SQLite database (${dialectName})`, () => {
  const homes: string[] = [];
  let umask: number;
  beforeAll(() => {
    // the usual umask: without payplane's own care the files would be 0644 and the folder 0755
    umask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(umask);
    for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
  });
  const freshHome = () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-modes-'));
    homes.push(parent);
    return path.join(parent, '.payplane');
  };

  test('a runtime on a fresh home: .payplane 0700, the database, -wal and -shm 0600', async () => {
    const home = freshHome();
    const config = loadConfig(
      { PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET },
      { home, databaseUrl: `sqlite:${path.join(home, 'payplane.db')}` },
    );
    const rt = await openRuntime(config);
    try {
      const db = path.join(home, 'payplane.db');
      expect(mode(home)).toBe(0o700);
      for (const part of [db, `${db}-wal`, `${db}-shm`]) expect([part, mode(part)]).toEqual([part, 0o600]);
    } finally {
      await closeRuntime(rt);
    }
  });

  test('wider modes left by an earlier version are tightened on open, and doctor reports them before', async () => {
    const home = freshHome();
    const db = path.join(home, 'payplane.db');
    const config = loadConfig({ PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET }, { home, databaseUrl: `sqlite:${db}` });
    await closeRuntime(await openRuntime(config));
    fs.chmodSync(home, 0o755);
    fs.chmodSync(db, 0o644);
    const report = await runDoctor(config, { env: {} });
    expect(report.checks.find((c) => c.name === 'file-permissions')).toMatchObject({ status: 'fail', detail: expect.stringContaining(db) });
    expect(mode(db)).toBe(0o644); // doctor changes nothing
    const rt = await openRuntime(config);
    try {
      expect(mode(home)).toBe(0o700);
      for (const part of [db, `${db}-wal`, `${db}-shm`]) expect([part, mode(part)]).toEqual([part, 0o600]);
    } finally {
      await closeRuntime(rt);
    }
  });

  test('`payplane sandbox init` in a fresh home (SQLite)', async () => {
    const home = freshHome();
    const res = await runCli(
      ['sandbox', 'init', '--json'],
      { PAYPLANE_HOME: home, DATABASE_URL: undefined, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET },
      { cwd: path.dirname(home) },
    );
    expect(res.status).toBe(0);
    const db = path.join(home, 'payplane.db');
    expect(mode(home)).toBe(0o700);
    for (const part of [db, `${db}-wal`, `${db}-shm`].filter((p) => fs.existsSync(p))) expect([part, mode(part)]).toEqual([part, 0o600]);
    expect(fs.existsSync(db)).toBe(true);
  });
});
