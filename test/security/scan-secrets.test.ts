import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { randomIban, randomPan } from './secret-samples';
import { Detector, maskValue, sandboxCardCatalog, scanDirectories, summary, type Finding } from './scan-secrets';
import { generateKeyPair, parseSecretKey } from '../../src/services/api-keys/secrets';
import { generateWebhookSecret } from '../../src/services/webhooks/signature';
import { generateClientSecret, parseClientSecret } from '../../src/services/checkout/client-secret';
import { randomBase62, sha256Hex } from '../../src/util/secrets';
import { TokenService } from '../../src/services/access/tokens';
import { loadConfig } from '../../src/config';
import { systemClock } from '../../src/domain/clock';
import { Sealer } from '../../src/util/encryption';
import { SANDBOX_CARDS } from '../../src/connectors/sandbox-card';

// The scanner of test/security/secrets-at-rest: each kind of secret, in the exact format the code issues, planted in
// a SQLite file (a row, a blob, a deleted row), a pg_dump and a log is found where it is; a directory full of what is
// meant to be stored (hashes, sealed values, masked details, public keys, timestamps) passes.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-scan-test-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function dir(name: string): string {
  const d = path.join(tmp, name);
  fs.mkdirSync(path.join(d, 'databases'), { recursive: true });
  fs.mkdirSync(path.join(d, 'logs'), { recursive: true });
  return d;
}

async function sqliteFile(file: string, statements: [string, unknown[]][]): Promise<void> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened = new sqlite3.Database(file, (e) => (e ? reject(e) : resolve(opened)));
  });
  const run = (sql: string, params: unknown[]) =>
    new Promise<void>((resolve, reject) => db.run(sql, params, (e: Error | null) => (e ? reject(e) : resolve())));
  for (const [sql, params] of statements) await run(sql, params);
  await new Promise((resolve) => db.close(resolve));
}

const tokenService = new TokenService(
  loadConfig({ PAYPLANE_TOKEN_SECRET: 'scanner-test-token-secret-0123456789abcdef' } as NodeJS.ProcessEnv),
  systemClock,
);
const sealer = new Sealer(() => crypto.randomBytes(32));

const where = (findings: Finding[], value: string) =>
  findings.filter((f) => f.value === value).map((f) => `${path.basename(f.file)} ${f.where} ${f.kind}`);

describe('the secrets-at-rest scanner', () => {
  test('the sandbox card catalog is read from the connector: every card of SANDBOX_CARDS', () => {
    expect(sandboxCardCatalog().sort()).toEqual(Object.keys(SANDBOX_CARDS).sort());
  });

  test('finds each kind of secret in a SQLite file (rows, blobs, a deleted row), a pg_dump and a log, with where and a masked excerpt', async () => {
    const d = dir('planted');
    const key = generateKeyPair(false).secretKey;
    const liveKey = generateKeyPair(true).secretKey;
    expect(parseSecretKey(key)).not.toBeNull();
    const whsec = generateWebhookSecret();
    const client = generateClientSecret(false, crypto.randomUUID()).secret;
    expect(parseClientSecret(client)).not.toBeNull();
    const invitation = `inv_${randomBase62(40)}`;
    const jwt = (await tokenService.issue(crypto.randomUUID(), 3600, false)).token;
    const pan = randomPan('4', 16);
    const amex = randomPan('37', 15);
    const iban = randomIban();
    const outside = randomPan('6011', 16);
    const credential = `credential-canary-${crypto.randomBytes(8).toString('hex')}`;
    const deleted = `deleted-canary-${crypto.randomBytes(8).toString('hex')}`;
    const inBlob = `blob-canary-${crypto.randomBytes(8).toString('hex')}`;
    fs.writeFileSync(
      path.join(d, 'canaries.txt'),
      `terminal credential\t${credential}\ndeleted row\t${deleted}\nblob\t${inBlob}\nshort\tabc\n`,
    );

    await sqliteFile(path.join(d, 'databases', 'planted.db'), [
      ['CREATE TABLE api_keys (id TEXT, secretHash TEXT, note TEXT)', []],
      ['CREATE TABLE payments (id TEXT, card TEXT, raw BLOB)', []],
      ['INSERT INTO api_keys VALUES (?, ?, ?)', [crypto.randomUUID(), sha256Hex(key), `issued ${key}`]],
      [
        'INSERT INTO payments VALUES (?, ?, ?)',
        [crypto.randomUUID(), JSON.stringify({ number: pan, last4: pan.slice(-4) }), Buffer.from(`xx${inBlob}yy`)],
      ],
      ['INSERT INTO payments VALUES (?, ?, ?)', [crypto.randomUUID(), JSON.stringify({ credentials: { apiKey: credential } }), null]],
      ['INSERT INTO payments VALUES (?, ?, ?)', ['gone', deleted.repeat(50), null]],
      ['DELETE FROM payments WHERE id = ?', ['gone']],
    ]);
    const dump = [
      'COPY public.webhook_endpoints (id, url, "secretSealed") FROM stdin;',
      `${crypto.randomUUID()}\thttps://shop.example/hook\t${whsec}`,
      '\\.',
      'COPY public.withdrawal_methods (id, "detailsMasked") FROM stdin;',
      `${crypto.randomUUID()}\t{"iban": "${iban.replace(/(.{4})/g, '$1 ').trim()}"}`, // an IBAN typed in groups
      `${crypto.randomUUID()}\tamex ${amex.slice(0, 4)}-${amex.slice(4, 10)}-${amex.slice(10)} on file`,
      '\\.',
      `-- a comment after the blocks: ${outside}`,
    ].join('\n');
    fs.writeFileSync(path.join(d, 'databases', 'planted.sql'), dump);
    const log = [
      JSON.stringify({ level: 30, time: 1795251059614, msg: 'request', headers: { authorization: `Bearer ${jwt}` } }),
      JSON.stringify({ level: 30, time: 1795251059615, msg: 'session', url: `https://pay.example/checkout/x?key=${client}` }),
      JSON.stringify({ level: 50, time: 1795251059616, msg: 'invite', token: invitation, live: liveKey, card: '4242 4242 4242 4242' }),
    ].join('\n');
    fs.writeFileSync(path.join(d, 'logs', 'serve-1234.log'), `${log}\n`);

    const result = await scanDirectories([d]);
    const f = result.findings;
    expect(result.canaries).toBe(3); // "abc" is too short to look for
    expect(result.files.map((x) => [path.basename(x.path), x.type])).toEqual([
      ['planted.db', 'sqlite'],
      ['planted.sql', 'dump'],
      ['serve-1234.log', 'log'],
    ]);
    expect(where(f, key)).toEqual(['planted.db table api_keys, column note, rowid 1 secret_key']);
    expect(where(f, pan)).toEqual(['planted.db table payments, column card, rowid 1 card_number']);
    expect(where(f, inBlob)).toEqual(['planted.db table payments, column raw, rowid 1 canary']);
    expect(where(f, credential)).toEqual(['planted.db table payments, column card, rowid 2 canary']);
    // the deleted row's text is still in the file's free pages
    expect(where(f, deleted).length).toBeGreaterThan(0);
    expect(
      where(f, deleted).every((w) => /^planted\.db byte \d+ \(in no row: a free page, an index or an older page version\) canary$/.test(w)),
    ).toBe(true);
    const dumpLines = dump.split('\n');
    const logLines = log.split('\n');
    /** `line n, column c` of `value` in `lines` (1-based), as the scanner reports it */
    const at = (lines: string[], value: string) => {
      const line = lines.findIndex((l) => l.includes(value));
      expect(line).toBeGreaterThanOrEqual(0);
      return `line ${line + 1}, column ${lines[line].indexOf(value) + 1}`;
    };
    const spacedIban = iban.replace(/(.{4})/g, '$1 ').trim();
    const dashedAmex = `${amex.slice(0, 4)}-${amex.slice(4, 10)}-${amex.slice(10)}`;
    // in a dump: the line, and the table and column of its COPY block
    expect(where(f, whsec)).toEqual([
      `planted.sql ${at(dumpLines, whsec)} (table public.webhook_endpoints, column secretSealed) webhook_secret`,
    ]);
    expect(where(f, spacedIban)).toEqual([
      `planted.sql ${at(dumpLines, spacedIban)} (table public.withdrawal_methods, column detailsMasked) iban`,
    ]);
    expect(where(f, dashedAmex)).toEqual([
      `planted.sql ${at(dumpLines, dashedAmex)} (table public.withdrawal_methods, column detailsMasked) card_number`,
    ]);
    expect(where(f, outside)).toEqual([`planted.sql ${at(dumpLines, outside)} card_number`]);
    expect(where(f, jwt)).toEqual([`serve-1234.log ${at(logLines, jwt)} jwt`]);
    expect(where(f, client)).toEqual([`serve-1234.log ${at(logLines, client)} client_secret`]);
    expect(where(f, invitation)).toEqual([`serve-1234.log ${at(logLines, invitation)} invitation_token`]);
    expect(where(f, liveKey)).toEqual([`serve-1234.log ${at(logLines, liveKey)} secret_key`]);
    expect(where(f, '4242 4242 4242 4242')).toEqual([`serve-1234.log ${at(logLines, '4242 4242 4242 4242')} card_number`]);
    // nothing else
    expect(f.filter((x) => x.kind !== 'canary' || x.value !== deleted)).toHaveLength(13);

    // the excerpts never show the secret
    for (const finding of f) {
      const compact = finding.value.replace(/[ -]/g, '');
      expect(finding.excerpt).not.toContain(finding.value);
      if (finding.kind !== 'card_number') expect(finding.excerpt).not.toContain(compact.slice(-12));
    }
    expect(maskValue('card_number', pan)).toBe(`${pan.slice(0, 6)}******${pan.slice(-4)}`);
    expect(maskValue('secret_key', key)).toBe(`${key.slice(0, 12)}…(64 chars)`);
    expect(summary(result)).toMatch(
      /^secret scan: 3 files scanned \(1 SQLite databases, 1 Postgres dumps, 1 logs, 0 other\), 3 canaries, \d+ findings$/,
    );
  });

  test('every sandbox catalog card is found as is, spaced and dashed, even run into other text', () => {
    const detector = new Detector({ catalog: sandboxCardCatalog(), canaries: [] });
    for (const pan of sandboxCardCatalog()) {
      for (const form of [pan, pan.replace(/(\d{4})(?=\d)/g, '$1 '), pan.replace(/(\d{4})(?=\d)/g, '$1-')]) {
        const hits = detector.find(`x${form}y`).filter((h) => h.kind === 'card_number');
        expect(hits.map((h) => h.value)).toEqual([form]);
      }
    }
  });

  test('a millisecond timestamp of the next decades is no card, even Luhn-valid; a 16-digit card still is', () => {
    const detector = new Detector({ catalog: [], canaries: [] });
    // 2000000000008 ms is May 2033 and passes Luhn: pino's "time" of that day must not fail CI
    expect(detector.find('{"level":30,"time":2000000000008,"msg":"request"}')).toEqual([]);
    expect(detector.find('{"pan":"4111111111111111"}').map((h) => h.kind)).toEqual(['card_number']);
  });

  test('a directory of what is meant to be stored passes: hashes, sealed values, masked details, public keys, prefixes, timestamps', async () => {
    const d = dir('clean');
    const pair = generateKeyPair(false);
    const pan = randomPan('4', 16);
    const iban = randomIban();
    const client = generateClientSecret(false, crypto.randomUUID()).secret;
    fs.writeFileSync(path.join(d, 'canaries.txt'), `credential\tnever-written-anywhere-${crypto.randomBytes(6).toString('hex')}\n`);
    const stored = {
      id: crypto.randomUUID(),
      publicKey: pair.publicKey,
      prefix: `sk_test_${pair.prefix}`, // the lookup prefix alone authenticates nothing
      secretHash: pair.secretHash,
      clientSecretHash: sha256Hex(client),
      card: {
        brand: 'visa',
        last4: pan.slice(-4),
        bin: pan.slice(0, 6),
        fingerprint: sealer.mac('card-fingerprint', pan),
        expMonth: 12,
        expYear: 2030,
      },
      sealed: sealer.seal(JSON.stringify({ apiKey: 'sealed-credential', number: pan, iban })),
      detailsMasked: { iban: `${'•'.repeat(18)}${iban.slice(-4)}` },
      masked: `${pan.slice(0, 6)}******${pan.slice(-4)}`,
      // a card-like run inside a longer token is no card (catalog cards are looked for even there: not these)
      hexWithDigits: `ab${pan}cd${crypto.randomBytes(20).toString('hex')}`,
      timestamps: [1795251059614, 2795251059614123, '2026-03-01 12:00:00.000 +00:00'],
      amounts: [10_000, 123456789012, -9_007_199_254_740_991],
      ms: 539.3414584242424,
      long: `${pan}4242424`, // 23 digits: no card
      decimal: `0.${pan}`,
      // a UUID whose last group is all digits, run into the next byte as in a SQLite index cell
      uuidTail: `01a1fd62-1c3d-7583-ab50-2439829813367(`,
    };
    await sqliteFile(path.join(d, 'databases', 'clean.db'), [
      ['CREATE TABLE t (id TEXT, data TEXT, n INTEGER, b BLOB)', []],
      ['INSERT INTO t VALUES (?, ?, ?, ?)', [stored.id, JSON.stringify(stored), 1795251059614, crypto.randomBytes(4096)]],
    ]);
    fs.writeFileSync(
      path.join(d, 'databases', 'clean.sql'),
      `COPY public.t (id, data) FROM stdin;\n${stored.id}\t${JSON.stringify(stored)}\n\\.\n`,
    );
    fs.writeFileSync(
      path.join(d, 'logs', 'jest-1.log'),
      `${JSON.stringify({ level: 30, time: 1795251059614, pid: 4242, msg: 'request', path: `/v1/api-keys/${stored.id}`, ms: stored.ms, authorization: '[redacted]' })}\n`,
    );
    const result = await scanDirectories([d]);
    expect(result.files).toHaveLength(3);
    expect(result.canaries).toBe(1);
    expect(result.findings.map((f) => `${f.kind} ${f.where}: ${f.excerpt}`)).toEqual([]);
  });

  test('an empty directory scans nothing (the command then exits 2)', async () => {
    const result = await scanDirectories([dir('empty')]);
    expect(result.files).toEqual([]);
    expect(result.findings).toEqual([]);
  });
});
