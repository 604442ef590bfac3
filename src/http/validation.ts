import type { z } from 'zod';
import { ValidationError, type FieldIssue } from '../domain/errors';

/** A zod path as a field name: body.permissions[0].code */
export function fieldPath(location: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${String(key)}`), location);
}

export function issuesOf(location: string, error: z.ZodError): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: fieldPath(location, [...issue.path, key]), message: 'is not a known field' }));
    }
    return [{ path: fieldPath(location, issue.path), message: issue.message }];
  });
}

/** The fields of an object schema (through pipes), or undefined for a schema that is not an object. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const def = (schema as unknown as { _zod: { def: { type: string; shape?: Record<string, z.ZodType>; in?: z.ZodType } } })._zod.def;
  if (def.type === 'object') return def.shape;
  if (def.type === 'pipe' && def.in) return shapeOf(def.in);
  return undefined;
}

/** Whether a field's schema takes an array (through optional, nullable, default and pipes). */
function takesArray(schema: z.ZodType): boolean {
  const def = (schema as unknown as { _zod: { def: { type: string; innerType?: z.ZodType; in?: z.ZodType } } })._zod.def;
  if (def.type === 'array') return true;
  const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
  return inner ? takesArray(inner) : false;
}

/**
 * The query string as the operation declares it: a parameter the schema does not name (?statuss=), a bracketed
 * form (status[$ne]=x, limit[]=1: the simple parser keeps them as keys of their own) and a parameter given twice
 * (a=1&a=2) where the schema takes one plain value are refused, naming the parameter; what remains is validated.
 * An operation without a query schema takes no query parameter.
 */
function declaredQuery(schema: z.ZodType | undefined, value: unknown): { value: Record<string, unknown>; issues: FieldIssue[] } {
  const shape = schema ? shapeOf(schema) : {};
  const kept: Record<string, unknown> = {};
  const issues: FieldIssue[] = [];
  for (const [key, v] of Object.entries((value ?? {}) as Record<string, unknown>)) {
    const bracket = key.indexOf('[');
    const name = bracket > 0 ? key.slice(0, bracket) : key;
    const field = shape ? (Object.hasOwn(shape, name) ? shape[name] : undefined) : schema;
    const path = fieldPath('query', [name]);
    if (!field) issues.push({ path, message: `is not a known query parameter${bracket > 0 ? ` (sent as ${key})` : ''}` });
    else if (bracket >= 0) issues.push({ path, message: `must be a plain value (${name}=…), not ${key}` });
    else if (Array.isArray(v) && shape && !takesArray(field)) issues.push({ path, message: `must be given once (got ${v.length} values)` });
    else kept[key] = v;
  }
  return { value: kept, issues };
}

/** Parses every input location and reports all invalid fields at once. */
export function parseInputs<T extends Record<string, unknown>>(
  parts: { location: string; schema: z.ZodType | undefined; value: unknown }[],
): T {
  const out: Record<string, unknown> = {};
  const issues: FieldIssue[] = [];
  for (const { location, value } of parts) issues.push(...controlCharacters(location, value));
  for (const part of parts) {
    const { location, schema } = part;
    let value = part.value;
    if (location === 'query') {
      const declared = declaredQuery(schema, value);
      issues.push(...declared.issues);
      value = declared.value;
    }
    if (!schema) {
      out[location] = {};
      continue;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) out[location] = parsed.data;
    else issues.push(...issuesOf(location, parsed.error));
  }
  if (issues.length) {
    throw new ValidationError(`Invalid request: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  }
  return out as T;
}

/** NUL characters are refused everywhere: databases store them differently or not at all. */
function controlCharacters(location: string, value: unknown, depth = 0): FieldIssue[] {
  if (typeof value === 'string') return value.includes('\u0000') ? [{ path: location, message: 'must not contain NUL characters' }] : [];
  if (depth > 32 || !value || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, v]) => [
    ...(key.includes('\u0000') ? [{ path: location, message: 'must not contain NUL characters in field names' }] : []),
    ...controlCharacters(Array.isArray(value) ? `${location}[${key}]` : `${location}.${key}`, v, depth + 1),
  ]);
}
