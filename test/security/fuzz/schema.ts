import fc from 'fast-check';

/**
 * Generators driven by the OpenAPI document (/v1/openapi.json, built from the operation registry): values that the
 * document says are valid, and single-field mutations of them that it says are invalid (or that sit on a boundary).
 */

// A JSON Schema (OpenAPI 3.1) node
export type Schema = Record<string, any>;
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';
export type Path = (string | number)[];

/** A JSON token written as is: what JSON.stringify cannot produce (-0, 1e400, 2^53+1, deep nesting, lone surrogates). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object written with these entries in this order, duplicate keys included. */
export class Entries {
  constructor(readonly entries: [string, unknown][]) {}
}

/** JSON text of a generated value (RawJson and Entries written as they are). Values are shallow enough to recurse. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Entries) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : jsonText(v))).join(',')}]`;
  if (value && typeof value === 'object') {
    const parts = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${jsonText((value as Record<string, unknown>)[k])}`);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The JSON type of a parsed value, as a schema's `type` names it. */
export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** Context the generators draw real values from (ids harvested from the running app). */
export interface GenContext {
  /** real ids that fit a field or parameter of this name (merchantId, terminals, ...), may be empty */
  idsFor(name: string): string[];
  /** every real id seen, of any kind */
  allIds(): string[];
}

const DEEP = 5_000;

/** Resolves $ref and allOf of the document's components. */
export class SchemaSet {
  constructor(private readonly components: Record<string, Schema>) {}

  norm(schema: Schema | undefined): Schema {
    if (!schema) return {};
    if (schema.$ref) {
      const name = String(schema.$ref).split('/').pop()!;
      const { $ref: _ref, ...rest } = schema;
      const target = this.components[name];
      if (!target) throw new Error(`unknown schema ${schema.$ref}`);
      return this.norm({ ...target, ...rest });
    }
    if (Array.isArray(schema.allOf)) {
      const { allOf, ...rest } = schema;
      let out: Schema = {};
      let nullable = false;
      for (const member of allOf as Schema[]) {
        const n = this.norm(member);
        const keys = Object.keys(n).filter((k) => k !== 'description');
        if (keys.length === 0) continue;
        // zod-to-openapi writes .nullable() of a referenced schema as allOf [ref, { type: [X, 'null'] }]
        if (keys.every((k) => k === 'type') && (n.type === 'null' || (Array.isArray(n.type) && n.type.includes('null')))) {
          nullable = true;
          continue;
        }
        out = {
          ...out,
          ...n,
          properties: { ...out.properties, ...n.properties },
          required: [...(out.required ?? []), ...(n.required ?? [])],
        };
        if (!n.properties && !out.properties) delete out.properties;
      }
      out = { ...out, ...rest };
      if (nullable) {
        const t = typesOf(this, out);
        if (t) out.type = [...t, 'null'];
      }
      return out;
    }
    return schema;
  }
}

/** The JSON types a schema accepts, or null for any value. */
export function typesOf(set: SchemaSet, raw: Schema): JsonType[] | null {
  const s = set.norm(raw);
  if (typeof s.type === 'string') return [s.type as JsonType];
  if (Array.isArray(s.type)) return s.type as JsonType[];
  if (Array.isArray(s.enum)) return [...new Set(s.enum.map((v: unknown) => jsonTypeOf(v)))];
  if ('const' in s) return [jsonTypeOf(s.const)];
  const branches = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (branches) {
    const all = branches.map((b) => typesOf(set, b));
    if (all.some((t) => t === null)) return null;
    return [...new Set(all.flat() as JsonType[])];
  }
  if (s.properties || s.additionalProperties !== undefined) return ['object'];
  if (s.items) return ['array'];
  return null;
}

/** Whether a value of this JSON type may pass the schema's type (integers are numbers). */
export function typeAllowed(types: JsonType[] | null, t: JsonType): boolean {
  if (!types) return true;
  return types.includes(t) || (t === 'integer' && types.includes('number'));
}

const SAMPLE_OF_TYPE: Record<Exclude<JsonType, 'integer'>, unknown> & { integer: unknown } = {
  string: 'fuzz',
  number: 12.5,
  integer: 7,
  boolean: true,
  object: {},
  array: [],
  null: null,
};

function uuidArb(ctx: GenContext, name: string | undefined): fc.Arbitrary<string> {
  const real = fc.nat().map((i) => {
    const pool = name ? ctx.idsFor(name) : [];
    const any = pool.length ? pool : ctx.allIds();
    return any.length ? any[i % any.length] : '00000000-0000-4000-8000-000000000000';
  });
  return fc.oneof({ arbitrary: real, weight: 4 }, { arbitrary: fc.uuid({ version: 4 }), weight: 1 });
}

function clampLen(s: Schema, wanted: number): number {
  return Math.max(s.minLength ?? 0, Math.min(s.maxLength ?? wanted, wanted));
}

function stringArb(s: Schema, ctx: GenContext, name: string | undefined): fc.Arbitrary<string> {
  if (s.format === 'uuid') return uuidArb(ctx, name);
  if (s.format === 'email') return fc.constantFrom('ada@example.com', 'ops+fuzz@example.org', 'a.b-c@sub.example.co.uk');
  if (s.format === 'uri') {
    return fc.oneof(
      fc.constantFrom('https://example.com/', 'https://shop.example/ok?x=1#y', 'https://xn--bcher-kva.example/p%C3%A4th'),
      fc.webUrl({ validSchemes: ['https'] }).filter((u) => u.length <= (s.maxLength ?? 2048)),
    );
  }
  if (s.format === 'date-time') {
    return fc
      .date({ min: new Date('2026-03-02T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString());
  }
  if (s.format === 'date') {
    return fc
      .date({ min: new Date('1950-01-01T00:00:00Z'), max: new Date('2025-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
  }
  // the document's example first: refinements it cannot express (an ISO currency, a BCP 47 tag) hold for it
  const options: fc.WeightedArbitrary<string>[] = [];
  if (typeof s.example === 'string') options.push({ arbitrary: fc.constant(s.example), weight: 12 });
  if (typeof s.pattern === 'string') {
    const re = new RegExp(s.pattern);
    options.push({
      arbitrary: fc.stringMatching(re).filter((v) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity)),
      weight: 2,
    });
    return fc.oneof(...options);
  }
  const min = s.minLength ?? 0;
  options.push({ arbitrary: fc.string({ minLength: Math.max(min, 1), maxLength: clampLen(s, 24) }), weight: 2 });
  options.push({ arbitrary: fc.string({ unit: 'grapheme', minLength: Math.max(min, 1), maxLength: clampLen(s, 12) }), weight: 1 });
  if (s.maxLength !== undefined && s.maxLength <= 5000) options.push({ arbitrary: fc.constant('m'.repeat(s.maxLength)), weight: 1 });
  return fc.oneof(...options);
}

function numberArb(s: Schema, integer: boolean): fc.Arbitrary<number> {
  let min =
    typeof s.minimum === 'number'
      ? s.minimum
      : typeof s.exclusiveMinimum === 'number'
        ? s.exclusiveMinimum + (integer ? 1 : 1e-6)
        : -1_000_000;
  let max =
    typeof s.maximum === 'number'
      ? s.maximum
      : typeof s.exclusiveMaximum === 'number'
        ? s.exclusiveMaximum - (integer ? 1 : 1e-6)
        : 1_000_000_000;
  min = Math.max(min, Number.MIN_SAFE_INTEGER);
  max = Math.min(max, Number.MAX_SAFE_INTEGER);
  const options: fc.Arbitrary<number>[] = [];
  if (typeof s.example === 'number') options.push(fc.constant(s.example));
  if (integer) {
    // small values first: amounts, counts and priorities of real requests are small
    options.push(fc.integer({ min: Math.max(min, Math.min(max, 0)), max: Math.min(max, Math.max(min, 0) + 10_000) }));
    options.push(fc.integer({ min, max }), fc.constantFrom(min, max));
  } else {
    options.push(fc.double({ min, max, noNaN: true, noDefaultInfinity: true }), fc.constantFrom(min, max));
  }
  return fc.oneof(...options);
}

/** Values the document says are valid (refinements it cannot express, like an ISO currency, may still fail). */
export function validArb(set: SchemaSet, raw: Schema, ctx: GenContext, name?: string, depth = 0, minimal = false): fc.Arbitrary<unknown> {
  const s = set.norm(raw);
  if (depth > 8) return fc.constant(undefined);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if ('const' in s) return fc.constant(s.const);
  const branches = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (branches) return fc.oneof(...branches.map((b) => validArb(set, b, ctx, name, depth + 1, minimal)));
  const types = typesOf(set, s);
  if (!types) return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constant({}));
  const nonNull = types.filter((t) => t !== 'null');
  const arbs = nonNull.map((t) => typedArb(set, s, t, ctx, name, depth, minimal));
  if (types.includes('null') && !minimal) arbs.push(fc.constant(null));
  if (arbs.length === 1) return arbs[0];
  return fc.oneof(...arbs.map((arbitrary, i) => ({ arbitrary, weight: nonNull[i] ? 4 : 1 })));
}

function typedArb(
  set: SchemaSet,
  s: Schema,
  t: JsonType,
  ctx: GenContext,
  name: string | undefined,
  depth: number,
  minimal: boolean,
): fc.Arbitrary<unknown> {
  switch (t) {
    case 'string':
      return stringArb(s, ctx, name);
    case 'integer':
      return numberArb(s, true);
    case 'number':
      return numberArb(s, false);
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const minLength = s.minItems ?? 0;
      const maxLength = Math.min(s.maxItems ?? minLength + 3, minLength + 3);
      // items distinct: many lists refuse duplicates (the document cannot say so without uniqueItems)
      return fc.uniqueArray(validArb(set, s.items ?? {}, ctx, singular(name), depth + 1, minimal), {
        minLength,
        maxLength: minimal ? Math.max(minLength, 1) : maxLength,
        selector: (v) => JSON.stringify(v),
      });
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const required = new Set<string>(s.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      // minimal: the required properties only (what a create needs to succeed most often)
      for (const [key, child] of Object.entries(props))
        if (!minimal || required.has(key)) model[key] = validArb(set, child, ctx, key, depth + 1, minimal);
      const record = fc.record(model, { requiredKeys: Object.keys(model).filter((k) => required.has(k)) });
      if (s.additionalProperties && typeof s.additionalProperties === 'object' && !s.properties) {
        const valueSchema = s.additionalProperties as Schema;
        const keys = fc.oneof(fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,15}$/), fc.string({ minLength: 1, maxLength: 10 }));
        return fc.dictionary(keys, validArb(set, valueSchema, ctx, undefined, depth + 1, minimal), { maxKeys: 3, noNullPrototype: true });
      }
      return record;
    }
    default:
      return fc.constant(null);
  }
}

function singular(name: string | undefined): string | undefined {
  if (!name) return undefined;
  if (name.endsWith('Ids')) return name.slice(0, -1);
  return name;
}

// ---- sites and mutations ----

/** A place in a body where a mutation applies: a present value, or an absent property of an object. */
export interface Site {
  path: Path;
  schema: Schema;
  present: boolean;
  value: unknown;
  /** the property is in its object's `required` */
  required: boolean;
}

export function collectSites(set: SchemaSet, raw: Schema, value: unknown, path: Path = [], required = true, depth = 0): Site[] {
  const s = set.norm(raw);
  const sites: Site[] = [{ path, schema: s, present: value !== undefined, value, required }];
  if (depth > 8 || value === undefined || value === null) return sites;
  if (Array.isArray(value) && s.items) {
    value.forEach((item, i) => sites.push(...collectSites(set, s.items, item, [...path, i], true, depth + 1)));
  } else if (typeof value === 'object' && !Array.isArray(value) && !(value instanceof RawJson) && !(value instanceof Entries)) {
    const props = (s.properties ?? {}) as Record<string, Schema>;
    const req = new Set<string>(s.required ?? []);
    for (const [key, child] of Object.entries(props)) {
      sites.push(...collectSites(set, child, (value as Record<string, unknown>)[key], [...path, key], req.has(key), depth + 1));
    }
    if (!s.properties && s.additionalProperties && typeof s.additionalProperties === 'object') {
      for (const [key, v] of Object.entries(value as Record<string, unknown>))
        sites.push(...collectSites(set, s.additionalProperties, v, [...path, key], false, depth + 1));
    }
  }
  return sites;
}

export const DELETE = Symbol('delete');

/** A copy of root with the value at path replaced (or deleted); objects and arrays along the path are copied. */
export function setAt(root: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement === DELETE ? undefined : replacement;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root];
    copy[head as number] = setAt(copy[head as number], rest, replacement);
    return copy;
  }
  const base: Record<string, unknown> = {};
  // own properties even for keys like __proto__ (a plain assignment would set the prototype instead)
  if (root && typeof root === 'object')
    for (const [k, v] of Object.entries(root))
      Object.defineProperty(base, k, { value: v, enumerable: true, writable: true, configurable: true });
  const next =
    rest.length === 0
      ? replacement
      : setAt(Object.prototype.hasOwnProperty.call(base, head) ? base[head as string] : undefined, rest, replacement);
  if (next === DELETE) delete base[head as string];
  else Object.defineProperty(base, head as string, { value: next, enumerable: true, writable: true, configurable: true });
  return base;
}

export interface Mutation {
  kind: string;
  /** the document says the result is invalid whatever else the body holds */
  certain: boolean;
  /** the field the answer's errors should name (zod style: body.a.b[0]) */
  path: Path;
  value: unknown;
}

function deepArray(depth: number): RawJson {
  return new RawJson('['.repeat(depth) + ']'.repeat(depth));
}
function deepObject(depth: number): RawJson {
  return new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
}

/** Strings that break naive code: encodings, separators, injections, normalization. NUL is refused everywhere. */
const ODD_STRINGS: { value: unknown; nul?: true }[] = [
  { value: '' },
  { value: ' ' },
  { value: '  padded  ' },
  { value: '\u0000', nul: true },
  { value: 'a\u0000b', nul: true },
  { value: '\u0001\u0007\u001b[31m' },
  { value: '\u202e\u0645\u0631\u062d\u0628\u0627' },
  { value: '\ud83d\udca9\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67' },
  { value: new RawJson('"\\ud800"') },
  { value: new RawJson('"x\\udfff\\ud800y"') },
  { value: '\u2028\u2029' },
  { value: 'e\u0301\u0301\u0301' },
  { value: "'; DROP TABLE payments; --" },
  { value: '" OR 1=1 --' },
  { value: '%s%n%x' },
  { value: '{{7*7}}${7*7}' },
  { value: '../../../../etc/passwd' },
  { value: '<script>alert(1)</script>' },
  { value: '\uffff\ufffe' },
  { value: '\\' },
  { value: 'null' },
  { value: 'undefined' },
  { value: 'NaN' },
  { value: '1e309' },
  { value: '-0' },
  { value: '__proto__' },
];

const HUGE_NUMBERS = [
  '1e400',
  '-1e400',
  '1e308',
  '-1e308',
  '1e-400',
  '5e-324',
  '9007199254740993',
  '-9007199254740993',
  '123456789012345678901234567890',
  '-0',
  '0.1e1',
  '1E2',
];

/** Every mutation of one site, as arbitraries (each may draw a replacement value). */
export function mutationsOf(set: SchemaSet, site: Site, ctx: GenContext): fc.Arbitrary<Mutation>[] {
  const s = site.schema;
  const types = typesOf(set, s);
  const out: fc.Arbitrary<Mutation>[] = [];
  const m = (kind: string, certain: boolean, value: unknown, path: Path = site.path): Mutation => ({ kind, certain, path, value });

  if (site.path.length > 0) {
    // wrong type: a value of each JSON type the schema does not accept
    const wrong = (Object.keys(SAMPLE_OF_TYPE) as JsonType[]).filter(
      (t) => !typeAllowed(types, t) && !(t === 'integer' && typeAllowed(types, 'number')),
    );
    if (types && wrong.length) out.push(fc.constantFrom(...wrong).map((t) => m(`wrong-type:${t}`, true, SAMPLE_OF_TYPE[t])));
    if (site.present && site.required) out.push(fc.constant(m('missing-required', true, DELETE)));
  }
  if (Array.isArray(s.enum) && s.enum.every((v: unknown) => typeof v === 'string')) {
    out.push(
      fc
        .oneof(
          fc.constant(`not_${s.enum[0]}`),
          fc.string({ minLength: 1, maxLength: 12 }),
          fc.constant(String(s.enum[0]).toUpperCase()),
          fc.constant(` ${s.enum[0]}`),
        )
        .filter((v) => !s.enum.includes(v))
        .map((v) => m('unknown-enum', true, v)),
    );
  }
  if (typeAllowed(types, 'string') && types) {
    if (typeof s.maxLength === 'number') {
      out.push(fc.constantFrom('x', '\u00e9', '\ud83d\udca9').map((c) => m('string-at-max-length', false, c.repeat(s.maxLength))));
      out.push(fc.constant(m('string-over-max-length', true, 'x'.repeat(s.maxLength + 1))));
    }
    if (typeof s.minLength === 'number' && s.minLength > 0)
      out.push(fc.constant(m('string-under-min-length', !(s.enum || s.anyOf), 'x'.repeat(s.minLength - 1))));
    out.push(
      fc
        .constantFrom(100_000, 300_000)
        .map((n) => m('very-long-string', typeof s.maxLength === 'number' && s.maxLength < n, 'y'.repeat(n))),
    );
    out.push(fc.constantFrom(...ODD_STRINGS).map((o) => m(o.nul ? 'nul-string' : 'odd-string', o.nul === true, o.value)));
    if (typeof s.pattern === 'string') {
      const re = new RegExp(s.pattern);
      out.push(
        fc
          .string({ maxLength: 12 })
          .filter((v) => !re.test(v))
          .map((v) => m('pattern-mismatch', true, v)),
      );
    }
    if (s.format === 'uuid') {
      out.push(
        fc
          .oneof(
            fc.constantFrom(
              'not-a-uuid',
              '00000000-0000-0000-0000-000000000000',
              'ffffffff-ffff-ffff-ffff-ffffffffffff',
              '{6f1c5b2e-8f6b-4c8e-9a7e-2f3a4b5c6d7e}',
              '6F1C5B2E-8F6B-4C8E-9A7E-2F3A4B5C6D7E',
              '6f1c5b2e8f6b4c8e9a7e2f3a4b5c6d7e',
            ),
            fc.nat().map((i) => {
              const all = ctx.allIds();
              return all.length ? all[i % all.length] : 'none';
            }),
          )
          .map((v) => m('odd-uuid', false, v)),
      );
    }
  }
  if (types && (typeAllowed(types, 'integer') || typeAllowed(types, 'number'))) {
    const integer = !types.includes('number');
    const min = typeof s.minimum === 'number' ? s.minimum : undefined;
    const max = typeof s.maximum === 'number' ? s.maximum : undefined;
    if (min !== undefined) {
      out.push(fc.constant(m('number-at-minimum', false, min)));
      out.push(fc.constant(m('number-below-minimum', true, integer ? min - 1 : min - 0.5)));
    }
    if (typeof s.exclusiveMinimum === 'number') out.push(fc.constant(m('number-at-exclusive-minimum', true, s.exclusiveMinimum)));
    if (max !== undefined) {
      out.push(fc.constant(m('number-at-maximum', false, max)));
      out.push(fc.constant(m('number-above-maximum', true, integer ? max + 1 : max + 0.5)));
    }
    if (integer) out.push(fc.constantFrom(0.5, 1.5, -2.25, 1e-7).map((v) => m('non-integer', true, (min ?? 0) + v)));
    out.push(fc.constantFrom(...HUGE_NUMBERS).map((t) => m(`number-token:${t}`, t === '1e400' || t === '-1e400', new RawJson(t))));
  }
  if (types && typeAllowed(types, 'array')) {
    if (typeof s.maxItems === 'number') {
      const item = validArb(set, s.items ?? {}, ctx, undefined, 6);
      out.push(fc.array(item, { minLength: s.maxItems + 1, maxLength: s.maxItems + 1 }).map((v) => m('array-over-max-items', true, v)));
    }
    if (typeof s.minItems === 'number' && s.minItems > 0) out.push(fc.constant(m('array-under-min-items', true, [])));
    out.push(
      fc.constant(
        m('huge-array', typeof s.maxItems === 'number' && s.maxItems < 20_000, new RawJson(`[${Array(20_000).fill('0').join(',')}]`)),
      ),
    );
  }
  // unknown fields of objects with declared properties (a record's keys are all allowed)
  if (types && typeAllowed(types, 'object') && (s.properties || s.additionalProperties === false)) {
    const strict = s.additionalProperties === false;
    const known = new Set(Object.keys(s.properties ?? {}));
    out.push(
      fc
        .oneof(
          fc.constantFrom('unexpectedField', 'id', 'tenantId', 'livemode', 'createdAt', 'status'),
          fc.string({ minLength: 1, maxLength: 10 }),
        )
        .filter((k) => !known.has(k))
        .map((k) => m('extra-field', strict, setAt(site.value ?? {}, [k], 'surprise'), [...site.path, k])),
    );
    out.push(
      fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString').map((k) => {
        const base = (site.value && typeof site.value === 'object' && !Array.isArray(site.value) ? site.value : {}) as Record<
          string,
          unknown
        >;
        return m(
          `proto-key:${k}`,
          strict && !known.has(k),
          new Entries([...Object.entries(base), [k, { polluted: true, isAdmin: true }]]),
          [...site.path, k],
        );
      }),
    );
    if (site.present) out.push(fc.constant(m('empty-object', false, {})));
  }
  // deep nesting where the schema accepts it (unknown values) or not
  out.push(
    fc
      .constantFrom('array', 'object')
      .map((k) => m(`deep-${k}`, types !== null && !typeAllowed(types, k as JsonType), k === 'array' ? deepArray(DEEP) : deepObject(DEEP))),
  );
  return out;
}
