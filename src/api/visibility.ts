import type { Level } from '../domain/context';
import type { z } from './zod';
import { defOf, metaOf, withMeta, WRAPPERS, type Def } from './references';

// What a merchant, a tenant and the platform may see of a record, declared once: on the field's schema, in the
// resource schemas of src/api/*/schemas.ts. A field marked tenantOnly is shown to tenant and platform callers, one
// marked platformOnly to the platform only; every other field to whoever may read the record. The mark is written
// into /v1/openapi.json (x-payplane-visibility, and the field's description says it). One rendering of a value at a
// level, viewAt (src/api/views.ts), serves the API answers (src/http/pipeline.ts), event data per endpoint level
// (src/services/webhooks/events.ts) and the before/after of audit entries (src/services/audit/targets.ts).

const VISIBILITY = 'x-payplane-visibility';
const RANK: Record<Level, number> = { merchant: 0, tenant: 1, platform: 2 };
const SAYS: Record<Exclude<Level, 'merchant'>, string> = {
  tenant: 'Tenant and platform callers only.',
  platform: 'Platform callers only.',
};

function mark<T extends z.ZodType>(level: Exclude<Level, 'merchant'>, schema: T, description: string): T {
  return withMeta(schema, { description: `${description} ${SAYS[level]}`, [VISIBILITY]: level });
}

/** A field only tenant and platform callers see (fee parts, commissions, provider, routing and risk details). */
export function tenantOnly<T extends z.ZodType>(schema: T, description: string): T {
  return mark('tenant', schema, description);
}

/** A field only platform callers see. */
export function platformOnly<T extends z.ZodType>(schema: T, description: string): T {
  return mark('platform', schema, description);
}

const shownFromCache = new WeakMap<object, Level>();

/** The lowest level a field's schema (its wrappers included) is shown to (worked out once per schema). */
export function shownFrom(schema: unknown): Level {
  if (!schema || typeof schema !== 'object') return computeShownFrom(schema);
  let level = shownFromCache.get(schema);
  if (level === undefined) shownFromCache.set(schema, (level = computeShownFrom(schema)));
  return level;
}

function computeShownFrom(schema: unknown): Level {
  let level: Level = 'merchant';
  let s = schema;
  for (let depth = 0; depth < 32; depth++) {
    const def = defOf(s);
    if (!def) break;
    const declared = metaOf(s)?.[VISIBILITY] as Level | undefined;
    if (declared && RANK[declared] > RANK[level]) level = declared;
    if (!WRAPPERS.has(def.type)) break;
    s = def.innerType;
  }
  return level;
}

/** Whether a caller of `level` sees what is shown from `from` on. */
export const sees = (level: Level, from: Level): boolean => RANK[level] >= RANK[from];

/** The schema a value of `schema` is, once wrappers, pipes and lazy schemas are looked through. */
function unwrap(schema: unknown, depth = 0): Def | undefined {
  const def = defOf(schema);
  if (!def || depth > 32) return undefined;
  if (WRAPPERS.has(def.type)) return unwrap(def.innerType, depth + 1);
  if (def.type === 'pipe') return unwrap(def.in, depth + 1);
  if (def.type === 'lazy') return unwrap((def.getter as () => unknown)(), depth + 1);
  return def;
}

/** What an object value's keys are, by the schema: its declared fields, and the schema of undeclared entries (a record's values). */
interface ObjectParts {
  fields: Map<string, unknown>;
  entries?: unknown;
  /** each declared field's level (shownFrom), worked out once */
  shown?: Map<string, Level>;
}

const partsOf = new WeakMap<object, ObjectParts>();

/** The parts of an object schema, worked out once per schema (a list answer renders many values of one). */
function objectParts(schema: unknown): ObjectParts {
  if (!schema || typeof schema !== 'object') return { fields: new Map() };
  let parts = partsOf.get(schema);
  if (!parts) partsOf.set(schema, (parts = collectParts(schema, { fields: new Map() })));
  return parts;
}

function collectParts(schema: unknown, into: ObjectParts): ObjectParts {
  const def = unwrap(schema);
  switch (def?.type) {
    case 'object':
      for (const [key, field] of Object.entries(def.shape as Record<string, unknown>))
        if (!into.fields.has(key)) into.fields.set(key, field);
      break;
    case 'record':
      into.entries ??= def.valueType;
      break;
    case 'union':
      for (const option of def.options as unknown[]) collectParts(option, into);
      break;
    case 'intersection':
      collectParts(def.left, into);
      collectParts(def.right, into);
      break;
    default:
  }
  return into;
}

const elements = new WeakMap<object, { element: unknown }>();

/** The schema of an array value's elements (worked out once per schema). */
function elementOf(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object') return computeElementOf(schema);
  let known = elements.get(schema);
  if (!known) elements.set(schema, (known = { element: computeElementOf(schema) }));
  return known.element;
}

function computeElementOf(schema: unknown): unknown {
  const def = unwrap(schema);
  if (def?.type === 'array') return def.element;
  if (def?.type === 'union') return (def.options as unknown[]).map(computeElementOf).find((e) => e !== undefined);
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!value || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** How keys that no schema declares are shown: by their name (a level), or to everyone (undefined). */
export type UndeclaredRule = (name: string) => Level | undefined;

/**
 * The value as a caller of `level` sees it: a declared field is shown by its mark; a key the schema does not
 * declare (data with no schema, a record's entries, extra keys) by `undeclared`, its name's rule. Primitives, and
 * objects of a class of their own (a Date), as they are.
 */
export function render(schema: unknown, value: unknown, level: Level, undeclared: UndeclaredRule): unknown {
  // the platform sees every field: nothing to hide, so no copy to make (every platform answer passes here)
  if (level === 'platform' || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const element = elementOf(schema);
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = render(element, value[i], level, undeclared);
    return out;
  }
  if (!isPlainObject(value)) return value;
  const parts = objectParts(schema);
  const shown = (parts.shown ??= new Map([...parts.fields].map(([key, field]) => [key, shownFrom(field)])));
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const from = shown.get(key);
    if (!sees(level, from !== undefined ? from : (undeclared(key) ?? 'merchant'))) continue;
    const v = (value as Record<string, unknown>)[key];
    out[key] = v === null || typeof v !== 'object' ? v : render(parts.fields.get(key) ?? parts.entries, v, level, undeclared);
  }
  return out;
}

/** Every field name the schemas mark, at any depth, with the highest level it is marked for. */
export function markedNames(schemas: readonly unknown[]): Map<string, Level> {
  const names = new Map<string, Level>();
  const seen = new Set<unknown>();
  const walk = (schema: unknown): void => {
    if (seen.has(schema)) return;
    seen.add(schema);
    const { fields, entries } = objectParts(schema);
    for (const [name, field] of fields) {
      const from = shownFrom(field);
      if (from !== 'merchant' && !sees(names.get(name) ?? 'merchant', from)) names.set(name, from);
      walk(field);
    }
    if (entries !== undefined) walk(entries);
    const element = elementOf(schema);
    if (element !== undefined) walk(element);
  };
  schemas.forEach(walk);
  return names;
}
