import fc from 'fast-check';
import type { Operation } from '../../../src/api/registry';
import type { CredentialName, FuzzWorld } from './world';
import {
  collectSites,
  Entries,
  jsonText,
  mutationsOf,
  setAt,
  validArb,
  type Mutation,
  type Path,
  type Schema,
  type SchemaSet,
} from './schema';

/** What the answer must be whatever the server decides, known from the request alone. */
export type Certain =
  | 'none'
  /** 400 (invalid JSON, a strict-parser refusal) */
  | '400'
  /** some 4xx (the document says the input is invalid; an earlier check may answer first) */
  | '4xx'
  | '413'
  | '415'
  | '401';

export interface BodyPart {
  kind: string;
  bytes?: Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  certain: Certain;
  mutation?: Mutation;
}

export interface ParamValue {
  /** as written in the URL (already percent-encoded, or an oddity written raw) */
  raw: string;
  /** the credential's own checkout session (clientSecret callers) */
  session?: true;
  note: string;
}

export interface FuzzRequest {
  op: Operation;
  credential: CredentialName | 'none' | 'bogus';
  params: Record<string, ParamValue>;
  query: { raw: string; kind: string; certain: Certain };
  headers: Record<string, string>;
  headerCertain: Certain;
  body: BodyPart;
  [fc.toStringMethod](): string;
}

/** zod-style field path: body.a.b[0] */
export function fieldPath(location: string, path: Path): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${key}`), location);
}

const LEVEL_CREDENTIAL = { M: 'merchant', T: 'tenant', P: 'platform' } as const;

/** The credentials an operation's declaration allows (a platform user token is not a secret key). */
export function allowedCredentials(op: Operation): CredentialName[] {
  const out: CredentialName[] = op.levels.map((l) => LEVEL_CREDENTIAL[l]).filter((c) => !(op.secretKeyOnly && c === 'platform'));
  if (op.sessionSecretAuth) out.push('clientSecret');
  return out;
}

function credentialArb(op: Operation): fc.Arbitrary<FuzzRequest['credential']> {
  const allowed = allowedCredentials(op);
  const options: fc.WeightedArbitrary<FuzzRequest['credential']>[] = [];
  if (allowed.length) options.push({ arbitrary: fc.constantFrom(...allowed), weight: 30 });
  options.push({ arbitrary: fc.constantFrom<FuzzRequest['credential']>('none', 'bogus'), weight: 1 });
  return fc.oneof(...options);
}

// ---- path parameters ----

function literalSegments(operations: Operation[]): Set<string> {
  return new Set(operations.flatMap((op) => op.path.split('/')).filter((s) => s && !s.startsWith('{')));
}

const ODD_RAW_SEGMENTS = [
  '%',
  '%2',
  '%zz',
  '%00',
  '%C0%AF',
  '%ED%A0%80',
  '%FF',
  '%2F',
  '%2e%2e',
  '%252e',
  '%E2%80%AE',
  '%F0%9F%92%A9',
  'null',
  'undefined',
  '0',
  '-1',
  '1e309',
  'NaN',
  '%27%20OR%201%3D1--',
  '$ne',
  '%24where',
  '__proto__',
  'constructor',
  '~',
  'a;b',
  'a,b',
  '*',
  '%20',
  '%09',
  '%0D%0A',
  '\u00e9',
  '\u00ff\u00fe',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF',
  '%7B6f1c5b2e-8f6b-4c8e-9a7e-2f3a4b5c6d7e%7D',
  '6f1c5b2e8f6b4c8e9a7e2f3a4b5c6d7e',
  '6f1c5b2e-8f6b-4c8e-9a7e-2f3a4b5c6d7e-0',
  'x'.repeat(2048),
  '%41'.repeat(500),
];

function encode(value: string): string | undefined {
  try {
    return encodeURIComponent(value);
  } catch {
    return undefined; // a lone surrogate
  }
}

function paramValueArb(world: FuzzWorld, name: string, literals: Set<string>): fc.Arbitrary<ParamValue> {
  const real = fc.nat().map((i): ParamValue => {
    const pool = world.pathIdsFor(name);
    if (!pool.length) return { raw: '6f1c5b2e-8f6b-4c8e-9a7e-2f3a4b5c6d7e', note: 'uuid of nothing' };
    return { raw: encode(pool[i % pool.length])!, note: `real ${name}` };
  });
  const otherKind = fc.nat().map((i): ParamValue => {
    const all = world.allIds().filter((id) => !world.protectedIds.has(id));
    return all.length ? { raw: all[i % all.length], note: 'real id of any kind' } : { raw: 'none', note: 'no ids yet' };
  });
  const random = fc
    .oneof(
      fc.uuid().map((u): ParamValue => ({ raw: u, note: 'random uuid' })),
      fc.constantFrom(...ODD_RAW_SEGMENTS).map((raw): ParamValue => ({ raw, note: 'oddity' })),
      fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: 40 })
        .map((s) => encode(s))
        .filter((s): s is string => !!s)
        .map((raw): ParamValue => ({ raw, note: 'unicode' })),
      fc
        .string({ unit: 'binary', minLength: 1, maxLength: 20 })
        .map((s) => encode(s))
        .filter((s): s is string => !!s)
        .map((raw): ParamValue => ({ raw, note: 'binary' })),
    )
    .filter((v) => !literals.has(v.raw) && v.raw !== '.' && v.raw !== '..');
  return fc.oneof({ arbitrary: real, weight: 6 }, { arbitrary: otherKind, weight: 1 }, { arbitrary: random, weight: 3 });
}

function paramsArb(world: FuzzWorld, op: Operation, literals: Set<string>): fc.Arbitrary<Record<string, ParamValue>> {
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  if (!names.length) return fc.constant({});
  const independent = fc.record(Object.fromEntries(names.map((n) => [n, paramValueArb(world, n, literals)])));
  const tuple = fc.tuple(fc.nat(), independent).map(([i, fallback]) => {
    const tuples = world.tuplesFor(op.path);
    if (!tuples.length) return fallback;
    const t = tuples[i % tuples.length];
    return Object.fromEntries(names.map((n) => [n, n in t ? { raw: encode(t[n])!, note: `real tuple ${n}` } : fallback[n]]));
  });
  const options: fc.WeightedArbitrary<Record<string, ParamValue>>[] = [
    { arbitrary: tuple, weight: 6 },
    { arbitrary: independent, weight: 4 },
  ];
  if (op.sessionSecretAuth && names.length === 1) {
    options.push({
      arbitrary: fc.constant({ [names[0]]: { raw: '', session: true, note: "the credential's own session" } as ParamValue }),
      weight: 4,
    });
  }
  return fc.oneof(...options);
}

// ---- query ----

interface QueryParam {
  name: string;
  required: boolean;
  schema: Schema;
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const LIMITS = [
  '0',
  '-1',
  '1e9',
  'abc',
  '1.5',
  '',
  ' 5',
  '5 ',
  '0x10',
  '1e1',
  '100',
  '101',
  '00042',
  'Infinity',
  '-0',
  '9007199254740993',
  '%00',
  '1,2',
];

function queryArb(set: SchemaSet, world: FuzzWorld, op: Operation, params: QueryParam[]): fc.Arbitrary<FuzzRequest['query']> {
  if (!params.length) {
    return fc.oneof(
      { arbitrary: fc.constant({ raw: '', kind: 'none', certain: 'none' as Certain }), weight: 8 },
      {
        arbitrary: fc
          .constantFrom('foo=bar', 'limit=abc', '%zz=%zz', 'a=%01', 'a=%00')
          .map((raw) => ({ raw, kind: 'unexpected', certain: 'none' as Certain })),
        weight: 1,
      },
    );
  }
  const valueOf = (p: QueryParam): fc.Arbitrary<string> => {
    if (p.name === 'cursor') {
      return fc.nat().map((i) => {
        const pool = world.tuplesFor(`${op.path}/{cursor}`).map((t) => t.cursor);
        return pool.length ? pool[i % pool.length] : '6f1c5b2e-8f6b-4c8e-9a7e-2f3a4b5c6d7e';
      });
    }
    return validArb(set, p.schema, world, p.name).map(stringify);
  };
  const base = fc.record(Object.fromEntries(params.map((p) => [p.name, valueOf(p)])), {
    requiredKeys: params.filter((p) => p.required).map((p) => p.name),
  });
  const write = (entries: [string, string][], raw = false) =>
    entries.map(([k, v]) => (raw ? `${k}=${v}` : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)).join('&');
  const valid = base.map((q) => ({ raw: write(Object.entries(q) as [string, string][]), kind: 'valid', certain: 'none' as Certain }));
  const names = params.map((p) => p.name);
  const withOne = (k: string, v: string, rawValue = false) =>
    base.map((q) => {
      const rest = Object.entries(q).filter(([n]) => n !== k) as [string, string][];
      return [write(rest), rawValue ? `${encodeURIComponent(k)}=${v}` : write([[k, v]])].filter(Boolean).join('&');
    });
  const mutations: fc.Arbitrary<FuzzRequest['query']>[] = [];
  if (names.includes('cursor')) {
    const realCursor = fc.nat().map((i) => {
      const pool = world.allIds();
      return pool.length ? pool[i % pool.length] : '6f1c5b2e-8f6b-4c8e-9a7e-2f3a4b5c6d7e';
    });
    mutations.push(
      fc
        .base64String({ minLength: 4, maxLength: 64 })
        .chain((c) => withOne('cursor', c))
        .map((raw) => ({ raw, kind: 'cursor:base64', certain: '4xx' as Certain })),
      fc
        .tuple(realCursor, fc.integer({ min: 1, max: 35 }))
        .chain(([c, n]) => withOne('cursor', c.slice(0, n)))
        .map((raw) => ({ raw, kind: 'cursor:truncated', certain: '4xx' as Certain })),
      fc
        .tuple(realCursor, fc.integer({ min: 0, max: 35 }), fc.constantFrom('0', 'f', 'g', 'Z', '-'))
        .chain(([c, i, ch]) => withOne('cursor', c.slice(0, i) + ch + c.slice(i + 1)))
        .map((raw) => ({ raw, kind: 'cursor:tampered', certain: 'none' as Certain })),
      realCursor.chain((c) => withOne('cursor', c)).map((raw) => ({ raw, kind: 'cursor:id of another list', certain: 'none' as Certain })),
      fc
        .uuid()
        .chain((c) => withOne('cursor', c))
        .map((raw) => ({ raw, kind: 'cursor:random uuid', certain: '4xx' as Certain })),
    );
  }
  if (names.includes('limit'))
    mutations.push(
      fc
        .constantFrom(...LIMITS)
        .chain((l) => withOne('limit', l, l === '%00'))
        .map((raw) => ({ raw, kind: 'limit', certain: 'none' as Certain })),
    );
  for (const p of params) {
    const s = set.norm(p.schema);
    if (Array.isArray(s.enum)) {
      mutations.push(
        fc
          .constantFrom('bogus', String(s.enum[0]).toUpperCase(), `${s.enum[0]} `, '')
          .chain((v) => withOne(p.name, v))
          .map((raw) => ({ raw, kind: `unknown-enum:${p.name}`, certain: '4xx' as Certain })),
      );
    }
  }
  mutations.push(
    fc
      .constantFrom(...names)
      .chain((n) =>
        base.map((q) => `${write(Object.entries(q) as [string, string][])}&${encodeURIComponent(n)}=a&${encodeURIComponent(n)}=b`),
      )
      .map((raw) => ({ raw: raw.replace(/^&/, ''), kind: 'repeated', certain: 'none' as Certain })),
    fc
      .tuple(
        fc.constantFrom(...names),
        fc.constantFrom('%', '%zz', '%00', '%C0%AF', '%ED%A0%80', '%FF', '+', '%20', '%E2%80%AE', 'x'.repeat(5000), '%5B%5D', '[]', '{}'),
      )
      .chain(([n, v]) => withOne(n, v, true))
      .map((raw) => ({ raw, kind: 'raw-encoding', certain: 'none' as Certain })),
    fc
      .constantFrom(...names)
      .chain((n) => base.map((q) => `${write(Object.entries(q) as [string, string][])}&${n}[]=x&${n}[a]=y`))
      .map((raw) => ({ raw: raw.replace(/^&/, ''), kind: 'bracket-keys', certain: 'none' as Certain })),
    fc
      .constantFrom(...names)
      .chain((n) => withOne(n, ''))
      .map((raw) => ({ raw, kind: 'empty-value', certain: 'none' as Certain })),
    fc
      .string({ unit: 'grapheme', maxLength: 30 })
      .chain((v) => fc.constantFrom(...names).chain((n) => withOne(n, v)))
      .map((raw) => ({ raw, kind: 'unicode-value', certain: 'none' as Certain })),
    base.map((q) => ({
      raw: [write(Object.entries(q) as [string, string][]), 'unknownParam=1', '__proto__=x', 'constructor=y'].filter(Boolean).join('&'),
      kind: 'unknown-params',
      certain: 'none' as Certain,
    })),
  );
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: fc.oneof(...mutations), weight: 2 });
}

// ---- headers ----

function headersArb(op: Operation): fc.Arbitrary<{ headers: Record<string, string>; certain: Certain }> {
  const none = fc.constant({ headers: {} as Record<string, string>, certain: 'none' as Certain });
  const mode = fc.constantFrom('live', 'test', 'bogus', '').map((v) => ({ headers: { 'Payplane-Mode': v }, certain: 'none' as Certain }));
  if (op.method !== 'post') return fc.oneof({ arbitrary: none, weight: 9 }, { arbitrary: mode, weight: 1 });
  const key = fc.oneof(
    fc.constantFrom('fuzz-key-1', 'fuzz-key-2').map((k) => ({ headers: { 'Idempotency-Key': k }, certain: 'none' as Certain })),
    fc
      .string({ unit: fc.constantFrom(...'abcXYZ019-_:.~!'.split('')), minLength: 1, maxLength: 128 })
      .map((k) => ({ headers: { 'Idempotency-Key': k }, certain: 'none' as Certain })),
    fc.constant({ headers: { 'Idempotency-Key': 'k'.repeat(129) }, certain: '4xx' as Certain }),
    fc.constant({ headers: { 'Idempotency-Key': 'k'.repeat(4000) }, certain: '4xx' as Certain }),
    fc.constant({ headers: { 'Idempotency-Key': '' }, certain: '4xx' as Certain }),
    fc.constant({ headers: { 'Idempotency-Key': '\u00e9\u00ff' }, certain: 'none' as Certain }),
  );
  return fc.oneof({ arbitrary: none, weight: 6 }, { arbitrary: key, weight: 3 }, { arbitrary: mode, weight: 1 });
}

// ---- body ----

const JSON_TYPE = 'application/json';

function jsonBody(kind: string, text: string | Buffer, certain: Certain, extra: Partial<BodyPart> = {}): BodyPart {
  return { kind, bytes: Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'), contentType: JSON_TYPE, certain, ...extra };
}

const NOT_OBJECTS = ['"text"', 'null', '0', 'true', '""', '-1e400'];
const INVALID_JSON = [
  '{',
  '{"a":}',
  "{'a':1}",
  '{"a":1,}',
  '{"a":1}garbage',
  'NaN',
  '{"a":NaN}',
  '{"a":undefined}',
  '{"a":01}',
  '\u0000',
  '{"a":"\u0001\n"}',
  '{"a" 1}',
  '{"\\x41":1}',
  '[',
  '{"a":"\\ud800',
  'nul',
];

/** A JSON object with invalid UTF-8 bytes inside a string (as a new field, or replacing a present string field). */
function withBadUtf8(value: unknown, bytes: readonly number[]): Buffer {
  const marker = '@@BADUTF8@@';
  const base = value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  const text = jsonText(setAt(base, ['badUtf8Field'], marker));
  const [before, after] = text.split(JSON.stringify(marker));
  return Buffer.concat([Buffer.from(`${before}"a`, 'utf8'), Buffer.from(bytes), Buffer.from(`b"${after}`, 'utf8')]);
}

function schemaBodyArb(set: SchemaSet, world: FuzzWorld, schema: Schema): fc.Arbitrary<BodyPart> {
  const base = validArb(set, schema, world);
  const valid = base.map((v) => jsonBody('valid', jsonText(v), 'none'));
  const mutated = base.chain((v) => {
    const sites = collectSites(set, schema, v);
    return fc.integer({ min: 0, max: sites.length - 1 }).chain((i) => {
      const site = sites[i];
      const options = mutationsOf(set, site, world);
      return fc.oneof(...options).map((mu) => {
        const next = setAt(v, site.path, mu.value);
        const text = next === undefined ? '' : jsonText(next);
        // a body that is not a JSON object or array is refused by the strict parser (400) before anything else
        const certain: Certain = site.path.length === 0 && !/^\s*[[{]/.test(text) ? '400' : mu.certain ? '4xx' : 'none';
        return jsonBody(`mutation:${mu.kind}`, text, certain, { mutation: mu });
      });
    });
  });
  const whole = fc.oneof(
    fc.constantFrom(...NOT_OBJECTS).map((t) => jsonBody(`not-an-object:${t}`, t, '400')),
    fc
      .constantFrom('[]', '[1,2]', '[{}]', '['.repeat(5000) + ']'.repeat(5000))
      .map((t) => jsonBody(`array-body:${t.slice(0, 8)}`, t, '4xx')),
    fc.constantFrom(...INVALID_JSON).map((t) => jsonBody(`invalid-json:${JSON.stringify(t).slice(0, 20)}`, t, '400')),
    base.map((v) => jsonBody('bom', `\ufeff${jsonText(v)}`, 'none')),
    fc.constant(jsonBody('deep-object-body', '{"a":'.repeat(5000) + '1' + '}'.repeat(5000), '4xx')),
  );
  const dupKeys = base.chain((v) => {
    const entries = v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v as Record<string, unknown>) : [];
    if (!entries.length) return fc.constant(jsonBody('dup-keys:none', '{"a":1,"a":2}', 'none'));
    return fc.tuple(fc.integer({ min: 0, max: entries.length - 1 }), fc.boolean()).map(([i, validLast]) => {
      const [k, good] = entries[i];
      const bad = typeof good === 'string' ? 12345 : 'wrong';
      const list: [string, unknown][] = validLast ? [[k, bad], ...entries] : [...entries, [k, bad]];
      return jsonBody(`dup-keys:${validLast ? 'valid-last' : 'invalid-last'}`, jsonText(new Entries(list)), 'none');
    });
  });
  const badUtf8 = fc
    .tuple(
      base,
      fc.constantFrom([0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]),
    )
    .map(([v, bytes]) => jsonBody('bad-utf8', withBadUtf8(v, bytes), 'none'));
  const sizes = base.chain((v) =>
    fc.constantFrom(1_048_576 - 4096, 1_048_576 - 200, 1_048_577, 1_500_000).map((n) => {
      const text = jsonText(setAt(v && typeof v === 'object' && !Array.isArray(v) ? v : {}, ['bigField'], 'z'.repeat(n)));
      return jsonBody(`size:${n}`, text, Buffer.byteLength(text) > 1_048_576 ? '413' : '4xx');
    }),
  );
  const contentTypes = fc
    .tuple(
      base,
      fc.constantFrom(
        ['text/plain', '415'],
        ['application/x-www-form-urlencoded', '415'],
        ['application/xml', '415'],
        ['multipart/form-data; boundary=x', '415'],
        ['application/json; charset=utf-16', 'none'],
        ['application/json; charset=latin1', '415'],
        ['application/json; charset=utf-8', 'none'],
        ['application/merge-patch+json', 'none'],
        ['APPLICATION/JSON', 'none'],
        ['application/jsonx', '415'],
        ['', '415'],
      ) as fc.Arbitrary<[string, Certain]>,
    )
    .map(([v, [ct, certain]]) => ({ ...jsonBody(`content-type:${ct}`, jsonText(v), certain), contentType: ct }));
  const encodings = fc
    .tuple(base, fc.constantFrom('gzip', 'deflate', 'br', 'compress', 'identity', 'gzip, gzip'))
    .map(([v, enc]) =>
      jsonBody(`content-encoding:${enc}`, jsonText(v), enc === 'identity' ? 'none' : '4xx', { headers: { 'Content-Encoding': enc } }),
    );
  const noBody = fc.constant<BodyPart>({ kind: 'no-body', certain: 'none' });
  return fc.oneof(
    { arbitrary: valid, weight: 8 },
    { arbitrary: mutated, weight: 12 },
    { arbitrary: whole, weight: 2 },
    { arbitrary: dupKeys, weight: 1 },
    { arbitrary: badUtf8, weight: 1 },
    { arbitrary: sizes, weight: 1 },
    { arbitrary: contentTypes, weight: 1 },
    { arbitrary: encodings, weight: 1 },
    { arbitrary: noBody, weight: 1 },
  );
}

/** A body sent to an operation that takes none: ignored unless it is not JSON. */
function strayBodyArb(): fc.Arbitrary<BodyPart> {
  return fc.oneof(
    { arbitrary: fc.constant<BodyPart>({ kind: 'no-body', certain: 'none' }), weight: 12 },
    {
      arbitrary: fc
        .constantFrom('{}', '{"unexpected":true}', '[]', '{"a":'.repeat(5000) + '1' + '}'.repeat(5000))
        .map((t) => jsonBody('stray-json', t, 'none')),
      weight: 2,
    },
    { arbitrary: fc.constantFrom(...INVALID_JSON, ...NOT_OBJECTS).map((t) => jsonBody('stray-invalid-json', t, '400')), weight: 1 },
    { arbitrary: fc.constant(jsonBody('stray-too-large', `{"a":"${'z'.repeat(1_100_000)}"}`, '413')), weight: 1 },
    // what the JSON parser refuses before any route: a charset it cannot decode, an encoding it does not know
    {
      arbitrary: fc.constantFrom<BodyPart>(
        { ...jsonBody('stray-charset', '{}', '415'), contentType: 'application/json; charset=latin1' },
        jsonBody('stray-encoding', '{}', '415', { headers: { 'Content-Encoding': 'compress' } }),
      ),
      weight: 1,
    },
  );
}

const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

function multipart(boundary: string, parts: { name: string; filename?: string; type?: string; data: Buffer }[], close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`),
      p.data,
      Buffer.from('\r\n'),
    );
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** Raw and multipart uploads: types, sizes, names and broken multipart bodies. */
function uploadBodyArb(op: Operation): fc.Arbitrary<BodyPart> {
  const spec = op.upload!;
  const bytes = fc.oneof(
    fc.constantFrom(PDF, PNG, Buffer.alloc(0), Buffer.from('not really a pdf'), Buffer.from([0xff, 0xd8, 0xff, 0xe0])),
    fc.uint8Array({ minLength: 1, maxLength: 256 }).map((a) => Buffer.from(a)),
  );
  const filename = fc.oneof(
    fc.constantFrom(
      'doc.pdf',
      '../../etc/passwd',
      'a%2Fb.pdf',
      '100%.pdf',
      '%E2%80%AE fdp.exe',
      'x'.repeat(1000),
      '',
      '"quoted".pdf',
      'nul%01.pdf',
      '%00.pdf',
      '%FF%FE.pdf',
      'caf\u00e9.pdf',
    ),
    fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => encode(s) ?? 'x'),
  );
  const raw = fc
    .tuple(
      fc.constantFrom(...spec.types, 'application/octet-stream', 'text/plain', 'image/gif', 'IMAGE/PNG', 'application/pdf; charset=utf-8'),
      bytes,
      fc.option(filename),
    )
    .map(([type, data, name]): BodyPart => ({
      kind: `upload:raw ${type}`,
      bytes: data,
      contentType: type,
      certain: spec.types.includes(type.split(';')[0].toLowerCase()) ? 'none' : '415',
      headers: name === null ? undefined : { 'Content-Disposition': `attachment; filename*=UTF-8''${name}` },
    }));
  const tooLarge = fc.constant<BodyPart>({
    kind: 'upload:too large',
    bytes: Buffer.alloc(spec.maxBytes + 1, 0x41),
    contentType: spec.types[0],
    certain: '413',
  });
  const parts = fc
    .tuple(
      fc.constantFrom(...spec.types, 'text/html', 'application/json'),
      bytes,
      filename,
      fc.constantFrom('file', 'document', '', 'file[]'),
      fc.boolean(),
      fc.boolean(),
    )
    .map(([type, data, name, field, twice, close]): BodyPart => {
      const list: { name: string; filename?: string; type?: string; data: Buffer }[] = [{ name: field, filename: name, type, data }];
      if (twice) list.push({ name: 'second', filename: 'second.pdf', type: 'application/pdf', data: PDF });
      return {
        kind: `upload:multipart ${type}${close ? '' : ' unterminated'}`,
        bytes: multipart('fuzzBoundary', list, close),
        contentType: 'multipart/form-data; boundary=fuzzBoundary',
        certain: 'none',
      };
    });
  const broken = fc
    .constantFrom(
      ['multipart/form-data', '--x\r\n'],
      ['multipart/form-data; boundary=', ''],
      ['multipart/form-data; boundary=abc', 'garbage without boundary'],
      ['multipart/form-data; boundary=abc', '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF'],
      ['multipart/form-data; boundary=abc', '--abc--\r\n'],
    )
    .map(([type, text]): BodyPart => ({ kind: 'upload:broken multipart', bytes: Buffer.from(text), contentType: type, certain: 'none' }));
  return fc.oneof(
    { arbitrary: raw, weight: 4 },
    { arbitrary: parts, weight: 3 },
    { arbitrary: broken, weight: 2 },
    { arbitrary: tooLarge, weight: 1 },
    { arbitrary: fc.constant<BodyPart>({ kind: 'no-body', certain: '4xx' }), weight: 1 },
  );
}

// ---- the request ----

function describe(r: Omit<FuzzRequest, typeof fc.toStringMethod>): string {
  const path = r.op.path.replace(/\{([^}]+)\}/g, (_m, n: string) =>
    r.params[n].session ? '<own session>' : r.params[n].raw.slice(0, 120),
  );
  const b = r.body.bytes;
  const body = !b
    ? '(none)'
    : b.length <= 700
      ? b.toString('utf8')
      : `${b.subarray(0, 450).toString('utf8')} … ${b.subarray(b.length - 150).toString('utf8')} (${b.length} bytes)`;
  return [
    `${r.op.method.toUpperCase()} ${path}${r.query.raw ? `?${r.query.raw.slice(0, 300)}` : ''}`,
    `  credential: ${r.credential}; query: ${r.query.kind}; body: ${r.body.kind}${r.body.contentType !== undefined ? ` (${r.body.contentType})` : ''}`,
    `  headers: ${JSON.stringify({ ...r.headers, ...r.body.headers })}`,
    r.body.mutation
      ? `  mutation: ${r.body.mutation.kind} at ${fieldPath('body', r.body.mutation.path)} (certain: ${r.body.mutation.certain})`
      : '',
    `  body: ${body}`,
  ]
    .filter(Boolean)
    .join('\n');
}

export interface OperationDocument {
  parameters?: { in: string; name: string; required?: boolean; schema: Schema }[];
  requestBody?: { content?: Record<string, { schema: Schema }> };
}

/** Every request the fuzzer may send to one operation. */
export function requestArb(
  set: SchemaSet,
  world: FuzzWorld,
  op: Operation,
  doc: OperationDocument,
  operations: Operation[],
): fc.Arbitrary<FuzzRequest> {
  const queryParams = (doc.parameters ?? [])
    .filter((p) => p.in === 'query')
    .map((p) => ({ name: p.name, required: p.required === true, schema: p.schema }));
  const bodySchema = doc.requestBody?.content?.[JSON_TYPE]?.schema;
  const body = op.upload ? uploadBodyArb(op) : bodySchema ? schemaBodyArb(set, world, bodySchema) : strayBodyArb();
  return fc
    .record({
      credential: credentialArb(op),
      params: paramsArb(world, op, literalSegments(operations)),
      query: queryArb(set, world, op, queryParams),
      headers: headersArb(op),
      body,
    })
    .map(({ credential, params, query, headers, body: b }) => {
      const r = { op, credential, params, query, headers: headers.headers, headerCertain: headers.certain, body: b };
      return { ...r, [fc.toStringMethod]: () => describe(r) };
    });
}
