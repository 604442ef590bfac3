import type { z } from 'zod';
import type { CallerContext } from '../domain/context';
import { ValidationError } from '../domain/errors';
import { issuesOf } from '../http/validation';
import { namedIds, schemaFields } from '../api/references';
import { checkNamedIds, type PathRecord } from '../services/references';

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** A field's path (`.roleIds[0]`, `roleIds`) as the terminal names it: its flag (`--role[0]`). */
function flagPath(path: string, flags: Record<string, string>): string {
  const field = path.replace(/^\./, '');
  const top = field.split(/[.[]/)[0];
  return `--${flags[top] ?? kebab(top)}${field.slice(top.length)}`;
}

function parse<S extends z.ZodType>(schema: S, value: Record<string, unknown>, flags: Record<string, string>): z.output<S> {
  const present = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  const issues = issuesOf('', parsed.error).map((issue) => ({ path: flagPath(issue.path, flags), message: issue.message }));
  throw new ValidationError(`Invalid input: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
}

const declaring = new WeakMap<object, boolean>();
/** Whether a schema declares references (refersTo on one of its fields: src/api/references.ts). */
export function declaresReferences(schema: z.ZodType): boolean {
  let known = declaring.get(schema);
  if (known === undefined) {
    known = schemaFields(schema, '').some((f) => f.refersTo !== undefined);
    declaring.set(schema, known);
  }
  return known;
}

/**
 * Validates command input with the operation's own request schema, so the terminal and the API accept
 * exactly the same values; issues name the flag (`flags` maps a field to its flag where names differ).
 * Only for a schema that names no record: input naming records goes through validateInput, which looks them up
 * as the API pipeline does (a schema declaring references here is a defect, refused before anything is written).
 */
export function validateWith<S extends z.ZodType>(
  schema: S,
  value: Record<string, unknown>,
  flags: Record<string, string> = {},
): z.output<S> {
  if (declaresReferences(schema)) {
    throw new Error('validateWith: this schema declares references (refersTo); validate the input with validateInput, which looks them up');
  }
  return parse(schema, value, flags);
}

/**
 * Validates command input with the operation's own request schema (as validateWith) and then looks up every record
 * it names in `ctx`'s scope, with the one check the API pipeline runs before every handler (checkNamedIds,
 * src/services/references.ts): an id the caller cannot see is exit 4 naming the flag (exit 2 for fields declared
 * so), and records of two tenants are never linked (exit 2 naming each flag). `record`: the existing record an
 * update writes (the API's pathRecord), whose tenant every named record must be of.
 */
export async function validateInput<S extends z.ZodType>(
  ctx: CallerContext,
  schema: S,
  value: Record<string, unknown>,
  flags: Record<string, string> = {},
  record?: PathRecord,
): Promise<z.output<S>> {
  const input = parse(schema, value, flags);
  await checkInputReferences(ctx, schema, input, (path) => flagPath(path, flags), record);
  return input;
}

/**
 * The records a command's validated input names (the fields `schema` declares with refersTo), looked up in `ctx`'s
 * scope by the API pipeline's own check (checkNamedIds); `flagOf` turns a field's path (`.roleIds[0]`) into the flag
 * the refusal names. For the commands that validate with a parser of their own (src/cli/risk/input.ts).
 */
export async function checkInputReferences(
  ctx: CallerContext,
  schema: z.ZodType,
  input: unknown,
  flagOf: (path: string) => string,
  record?: PathRecord,
): Promise<void> {
  const named = namedIds(schema, input, '').map((n) => ({ ...n, path: flagOf(n.path) }));
  await checkNamedIds(ctx, named, record);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id given on the command line: 400 naming `path` (`--tenant must be a tenant id (uuid)`) unless it is a uuid. */
export function requireId(value: string, what: string, path: string): string {
  if (!UUID.test(value)) throw ValidationError.field(path, `must be a ${what} id (uuid)`);
  return value;
}
