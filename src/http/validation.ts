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

/** Parses every input location and reports all invalid fields at once. */
export function parseInputs<T extends Record<string, unknown>>(
  parts: { location: string; schema: z.ZodType | undefined; value: unknown }[],
): T {
  const out: Record<string, unknown> = {};
  const issues: FieldIssue[] = [];
  for (const { location, value } of parts) issues.push(...controlCharacters(location, value));
  for (const { location, schema, value } of parts) {
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
