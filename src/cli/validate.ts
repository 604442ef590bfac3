import type { z } from 'zod';
import { ValidationError } from '../domain/errors';
import { issuesOf } from '../http/validation';

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * Validates command input with the operation's own request schema, so the terminal and the API accept
 * exactly the same values; issues name the flag (`flags` maps a field to its flag where names differ).
 */
export function validateWith<S extends z.ZodType>(schema: S, value: Record<string, unknown>, flags: Record<string, string> = {}): z.output<S> {
  const present = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  const issues = issuesOf('', parsed.error).map((issue) => {
    const field = issue.path.replace(/^\./, '');
    const top = field.split(/[.[]/)[0];
    return { path: `--${flags[top] ?? kebab(top)}${field.slice(top.length)}`, message: issue.message };
  });
  throw new ValidationError(`Invalid input: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id given on the command line: 400 naming `path` (`--tenant must be a tenant id (uuid)`) unless it is a uuid. */
export function requireId(value: string, what: string, path: string): string {
  if (!UUID.test(value)) throw ValidationError.field(path, `must be a ${what} id (uuid)`);
  return value;
}
