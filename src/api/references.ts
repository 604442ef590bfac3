import { zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from './zod';
import type { ReferenceKind } from '../domain/record-kinds';

// Which record each id of a request names, declared on the field's schema itself (next to the zod schemas of
// src/api/*/schemas.ts), so that create and update bodies sharing a field share its declaration. Before the handler
// of every operation, each declared id of its body and query is looked up in the caller's scope
// (src/services/references.ts): an id the caller cannot see is a 404 naming the field, whatever the service then does.
// The declaration is also written into /v1/openapi.json (x-payplane-refers-to). Every id-like field of a request
// schema (format uuid, or a name ending in Id, Ids or _id) carries either refersTo or notChecked
// (test/api/references.test.ts), so a new id field cannot be forgotten.

/**
 * The kinds of record an id of a request can name: the registry's reference kinds (src/domain/record-kinds.ts, which
 * also says where each is looked up).
 */
export { REFERENCE_KINDS, type ReferenceKind } from '../domain/record-kinds';

/** A field whose kind depends on a sibling field's value (a fee assignment's targetEntityId by its level). */
export interface ReferenceBy {
  by: string;
  kinds: Record<string, ReferenceKind>;
}

const REFERS = 'x-payplane-refers-to';
const PATH_RECORD = 'x-payplane-path-record';
const NOT_CHECKED = 'x-payplane-not-checked';
const REFUSAL = 'x-payplane-refusal';

type Meta = Record<string, unknown>;
/** The x-payplane-… declarations of one schema (no wrapper looked through). */
export const metaOf = (schema: unknown): Meta | undefined => zodToOpenAPIRegistry.get(schema as never) as Meta | undefined;
export const withMeta = <T extends z.ZodType>(schema: T, meta: Meta): T => (schema as unknown as { openapi(m: Meta): T }).openapi(meta);

/**
 * The id names a record of `kind` (or, by a sibling field, of one of several kinds), looked up in the caller's scope.
 * An id out of scope is a 404 naming the field; `refusal` 400: a 400 VALIDATION_FAILED naming it instead (the
 * convention of the routing and risk lists, which name every wrong item at once).
 */
export function refersTo<T extends z.ZodType>(kind: ReferenceKind | ReferenceBy, schema: T, refusal: 404 | 400 = 404): T {
  return withMeta(schema, { [REFERS]: kind, ...(refusal === 400 ? { [REFUSAL]: 400 } : {}) });
}

/** An id-like field that is not looked up before the handler, and why (a text of another system, a filter over history). */
export function notChecked<T extends z.ZodType>(why: string, schema: T): T {
  return withMeta(schema, { [NOT_CHECKED]: why });
}

/**
 * The path parameters of an operation on one record of `kind` (`{id}`): the record whose references the body
 * changes. Every id its body names must be of the record's own tenant (a platform caller sees every tenant's records:
 * src/services/references.ts refuses one of another tenant, 400 naming the field). The path id itself is not refused
 * here: the operation answers 404 for a record the caller cannot see, as every operation on a record does.
 */
export function pathRecord(kind: ReferenceKind): z.ZodObject<{ id: z.ZodString }> {
  return withMeta(z.object({ id: z.string().min(1).openapi({ description: 'Record id (uuid).' }) }), { [PATH_RECORD]: kind });
}

/** The kind of record an operation's path parameters name (pathRecord), if declared. */
export function pathRecordOf(params: unknown): ReferenceKind | undefined {
  return params ? (metaOf(params)?.[PATH_RECORD] as ReferenceKind | undefined) : undefined;
}

/** A field of a request schema, as the walk below finds it. `path`: e.g. body.outcome.splits[].terminalId */
export interface SchemaField {
  path: string;
  /** the last property name on the path (splits[].terminalId: terminalId) */
  name: string;
  uuid: boolean;
  refersTo?: ReferenceKind | ReferenceBy;
  notChecked?: string;
}

export interface Def {
  type: string;
  [key: string]: unknown;
}
export const defOf = (schema: unknown): Def | undefined => (schema as { _zod?: { def: Def } } | undefined)?._zod?.def;
/** Schemas that only wrap another (innerType): the walks look through them. */
export const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

function declared(schema: unknown, found: { refersTo?: ReferenceKind | ReferenceBy; notChecked?: string }): void {
  const meta = metaOf(schema);
  if (meta?.[REFERS] !== undefined && found.refersTo === undefined) found.refersTo = meta[REFERS] as ReferenceKind | ReferenceBy;
  if (meta?.[NOT_CHECKED] !== undefined && found.notChecked === undefined) found.notChecked = meta[NOT_CHECKED] as string;
}

/** Every string field of a request schema (nested objects, arrays, unions and records included) with its declaration. */
export function schemaFields(schema: unknown, location: string): SchemaField[] {
  const out = new Map<string, SchemaField>();
  const walk = (
    s: unknown,
    path: string,
    name: string,
    found: { refersTo?: ReferenceKind | ReferenceBy; notChecked?: string },
    stack: Set<unknown>,
  ) => {
    const def = defOf(s);
    if (!def || stack.has(s)) return;
    const inner = new Set(stack).add(s);
    const here = { ...found };
    declared(s, here);
    if (WRAPPERS.has(def.type)) return walk(def.innerType, path, name, here, inner);
    switch (def.type) {
      case 'object':
        for (const [key, child] of Object.entries(def.shape as Record<string, unknown>)) walk(child, `${path}.${key}`, key, {}, inner);
        return;
      case 'array':
        return walk(def.element, `${path}[]`, name, here, inner);
      case 'pipe':
        walk(def.in, path, name, here, inner);
        return walk(def.out, path, name, here, inner);
      case 'union':
        for (const option of def.options as unknown[]) walk(option, path, name, here, inner);
        return;
      case 'intersection':
        walk(def.left, path, name, here, inner);
        return walk(def.right, path, name, here, inner);
      case 'record':
        return walk(def.valueType, `${path}{}`, name, here, inner);
      case 'string': {
        const checks = (def.checks as { _zod: { def: { format?: string } } }[] | undefined) ?? [];
        const uuid = def.format === 'uuid' || checks.some((c) => c._zod.def.format === 'uuid');
        const previous = out.get(path);
        out.set(path, {
          path,
          name,
          uuid: uuid || !!previous?.uuid,
          refersTo: here.refersTo ?? previous?.refersTo,
          notChecked: here.notChecked ?? previous?.notChecked,
        });
        return;
      }
      default:
    }
  };
  walk(schema, location, location, {}, new Set());
  return [...out.values()];
}

/** An id a request names: `path` as errors[].path names it (body.roleIds[0]). */
export interface NamedId {
  path: string;
  kind: ReferenceKind;
  id: string;
  /** 400: refused as invalid rather than not found */
  refusal?: 400;
}

/** The declared ids of a parsed request value (the body, the query), with their concrete paths. */
export function namedIds(schema: unknown, value: unknown, location: string): NamedId[] {
  const out = new Map<string, NamedId>();
  const walk = (
    s: unknown,
    v: unknown,
    path: string,
    parent: unknown,
    found: { refersTo?: ReferenceKind | ReferenceBy },
    depth: number,
    wrappers: unknown[] = [],
  ) => {
    const def = defOf(s);
    if (!def || depth > 64 || v === undefined || v === null) return;
    const here = { ...found };
    declared(s, here);
    if (typeof v === 'string' && here.refersTo !== undefined) {
      const ref = here.refersTo;
      const kind = typeof ref === 'string' ? ref : ref.kinds[String((parent as Record<string, unknown> | undefined)?.[ref.by])];
      const refusal = [s, ...wrappers].some((w) => metaOf(w)?.[REFUSAL] === 400) ? { refusal: 400 as const } : {};
      if (kind) out.set(`${path}\u0000${v}`, { path, kind, id: v, ...refusal });
      return;
    }
    if (WRAPPERS.has(def.type)) return walk(def.innerType, v, path, parent, here, depth + 1, [...wrappers, s]);
    switch (def.type) {
      case 'object':
        if (typeof v !== 'object' || Array.isArray(v)) return;
        for (const [key, child] of Object.entries(def.shape as Record<string, unknown>))
          walk(child, (v as Record<string, unknown>)[key], `${path}.${key}`, v, {}, depth + 1);
        return;
      case 'array':
        if (Array.isArray(v)) v.forEach((item, i) => walk(def.element, item, `${path}[${i}]`, parent, here, depth + 1));
        return;
      case 'pipe':
        return walk(def.in, v, path, parent, here, depth + 1);
      case 'union':
        for (const option of def.options as unknown[]) walk(option, v, path, parent, here, depth + 1);
        return;
      case 'intersection':
        walk(def.left, v, path, parent, here, depth + 1);
        return walk(def.right, v, path, parent, here, depth + 1);
      case 'record':
        if (typeof v === 'object' && !Array.isArray(v)) {
          for (const [key, child] of Object.entries(v as Record<string, unknown>))
            walk(def.valueType, child, `${path}.${key}`, v, here, depth + 1);
        }
        return;
      default:
    }
  };
  walk(schema, value, location, undefined, {}, 0);
  return [...out.values()];
}

/** A field is id-like when it is a uuid or its name ends in Id, Ids or _id. */
export const ID_LIKE_NAME = /(Id|Ids|_id)$/;
export const isIdLike = (f: SchemaField): boolean => f.uuid || ID_LIKE_NAME.test(f.name);
