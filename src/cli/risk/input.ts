import { Flags } from '@oclif/core';
import type { z } from 'zod';
import { readJsonFlag, sharedFlags } from '../flags';
import { ValidationError, type FieldIssue } from '../../domain/errors';
import { issuesOf } from '../../http/validation';
import type { CallerContext } from '../../domain/context';
import type { PathRecord } from '../../services/references';
import { checkInputReferences, declaresReferences } from '../validate';
import { asOperatorOfTenant, withScope } from '../context';

// What the `payplane risk …` commands share: who acts, and their input checked as the API checks it, with issues
// naming the flags.

/** --tenant, --live and --operator: the terminal acts as an operator of the tenant, in sandbox mode unless --live. */
export const riskScopeFlags = {
  tenant: withScope(Flags.string({ description: 'Tenant id (asked on a terminal when missing)' }), asOperatorOfTenant),
  live: sharedFlags.live,
  operator: Flags.string({
    description:
      "Who acts (default: your OS user name): createdBy holds the id of that account's platform user (externalIdpId os:<name>, created on first use), the audit trail names the account",
    env: 'PAYPLANE_OPERATOR',
  }),
};

/** The same without --live: the risk configuration is one per tenant for both modes. */
export const riskTenantFlags = { tenant: riskScopeFlags.tenant, operator: riskScopeFlags.operator };

/** "none" (or "null") clears a nullable value; anything else is kept. */
export function nullable(value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  return ['none', 'null'].includes(value.trim().toLowerCase()) ? null : value;
}

/** A score flag: an integer, or null for "none" when `allowNone`; 400 naming the flag otherwise. */
export function scoreFlag(value: string | undefined, flag: string, allowNone = true): number | null | undefined {
  const v = allowNone ? nullable(value) : value;
  if (v === undefined || v === null) return v;
  if (!/^-?\d+$/.test(v.trim())) throw ValidationError.field(`--${flag}`, allowNone ? 'must be an integer or none' : 'must be an integer');
  return Number(v.trim());
}

/**
 * Rewrites `path` (an API field path such as body.thresholds.challenge, .ruleIds[1] or card.number) to the flag it came
 * from, by the longest field of `fields` it starts with; `fields['']` names the whole input, `fields['*']` prefixes any
 * other field (else --field).
 */
function flagPath(path: string, fields: Record<string, string>): string {
  if (path.startsWith('--')) return path;
  const field = path.replace(/^(body|query)?\./, '').replace(/^(body|query)$/, '');
  if (field === '') return fields[''] ?? (path || 'flags');
  const key = Object.keys(fields)
    .filter((k) => k !== '' && k !== '*')
    .sort((a, b) => b.length - a.length)
    .find((k) => field === k || field.startsWith(`${k}.`) || field.startsWith(`${k}[`));
  if (key !== undefined) return `${fields[key]}${field.slice(key.length)}`;
  return fields['*'] !== undefined ? `${fields['*']}.${field}` : `--${field}`;
}

function renamed(error: ValidationError, fields: Record<string, string>): ValidationError {
  const issues: FieldIssue[] = (error.errors ?? []).map((i) => ({ ...i, path: flagPath(i.path, fields) }));
  const detail = issues.length ? `Invalid input: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}` : error.detail;
  return new ValidationError(detail, issues, error.code, { hint: error.hint });
}

/**
 * Validates command input with the operation's own request schema (the terminal accepts exactly what the API
 * accepts). `fields` maps an API field (or field path: thresholds.challenge) to the flag that gives it, so each
 * issue names the flag, with the rest of the path after it (--conditions-json[0].operator).
 */
export function validateRisk<S extends z.ZodType>(schema: S, value: Record<string, unknown>, fields: Record<string, string>): z.output<S> {
  if (declaresReferences(schema)) {
    throw new Error(
      'validateRisk: this schema declares references (refersTo); validate the input with validateRiskInput, which looks them up',
    );
  }
  return parseRisk(schema, value, fields);
}

/**
 * validateRisk for a schema that names records: then every record the input names is looked up in `ctx`'s scope, as
 * the API pipeline does (src/cli/validate.ts checkInputReferences), each refusal naming the flag. `record`: the plan an
 * update writes, whose tenant every named record must be of.
 */
export async function validateRiskInput<S extends z.ZodType>(
  ctx: CallerContext,
  schema: S,
  value: Record<string, unknown>,
  fields: Record<string, string>,
  record?: PathRecord,
): Promise<z.output<S>> {
  const input = parseRisk(schema, value, fields);
  await checkInputReferences(ctx, schema, input, (path) => flagPath(path, fields), record);
  return input;
}

function parseRisk<S extends z.ZodType>(schema: S, value: Record<string, unknown>, fields: Record<string, string>): z.output<S> {
  const present = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  const issues = issuesOf('', parsed.error);
  throw renamed(new ValidationError('Invalid input.', issues), fields);
}

/** Runs a service call; the field issues of its 400 answer (body.ruleIds[0]) name the flags instead. */
export async function namingFlags<T>(fields: Record<string, string>, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ValidationError) throw renamed(error, fields);
    throw error;
  }
}

/** --conditions-json: inline JSON (a JSON array) or the path of a JSON file holding one. */
export function conditionsFlag(value: string | undefined): unknown {
  if (value === undefined) return undefined;
  const parsed = readJsonFlag(value, 'conditions-json');
  if (!Array.isArray(parsed))
    throw ValidationError.field(
      '--conditions-json',
      'must be a JSON array of conditions ([{"field":"amount","operator":"gt","value":"10000"}])',
    );
  return parsed;
}
