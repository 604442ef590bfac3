import fs from 'node:fs';
import { z } from 'zod';
import { ValidationError, type FieldIssue } from '../../domain/errors';
import { isCountry, isCurrency } from '../../domain/money';
import type { FeePaymentMethod } from '../../db/models/fees';
import { fixturePath } from '../../util/paths';

/**
 * The catalog of withdrawal method types (fixtures/withdrawal-method-types.json): each type's detail keys and how
 * each is checked, validated once at load. Details are plain strings; validateDetails normalizes them (IBAN and BIC
 * upper-case without spaces, values trimmed) and reports every bad key at once; maskDetails is what reads show.
 */

export const DETAIL_FORMATS = ['iban', 'bic', 'aba_routing', 'digits', 'text', 'enum'] as const;
export type DetailFormat = (typeof DETAIL_FORMATS)[number];

export interface WithdrawalDetailSpec {
  key: string;
  label: string;
  required: boolean;
  format: DetailFormat;
  masked: boolean;
  minLength?: number;
  maxLength?: number;
  values?: string[];
}

export interface WithdrawalMethodType {
  type: string;
  name: string;
  description: string;
  /** what the fee engine prices a withdrawal to this type as */
  paymentMethod: FeePaymentMethod;
  /** currencies a withdrawal to this type may be in; empty: any */
  currencies: string[];
  details: WithdrawalDetailSpec[];
}

/** The payment methods a withdrawal can go out by (fee engine names). */
const PAYOUT_METHODS = ['bank_transfer', 'local', 'wallet', 'cash'] as const satisfies readonly FeePaymentMethod[];

const Key = z.string().regex(/^[a-z][a-zA-Z0-9_]{0,63}$/, 'must be an identifier such as bank_account or accountNumber');
const Length = z.number().int().min(1).max(256);

const DetailSpecFile = z
  .strictObject({
    key: Key,
    label: z.string().min(1),
    required: z.boolean(),
    format: z.enum(DETAIL_FORMATS),
    masked: z.boolean(),
    minLength: Length.optional(),
    maxLength: Length.optional(),
    values: z.array(z.string().min(1)).min(1).optional(),
  })
  .superRefine((d, ctx) => {
    if ((d.format === 'enum') !== (d.values !== undefined))
      ctx.addIssue({ code: 'custom', path: ['values'], message: 'enum details (and only they) list their values' });
    if (d.minLength !== undefined && d.maxLength !== undefined && d.minLength > d.maxLength)
      ctx.addIssue({ code: 'custom', path: ['minLength'], message: 'exceeds maxLength' });
  });

const MethodTypeFile = z
  .strictObject({
    type: Key,
    name: z.string().min(1),
    description: z.string().min(1),
    paymentMethod: z.enum(PAYOUT_METHODS),
    currencies: z.array(z.string().refine(isCurrency, 'is not an ISO 4217 currency')),
    details: z.array(DetailSpecFile).min(1),
  })
  .superRefine((t, ctx) => {
    const keys = t.details.map((d) => d.key);
    if (new Set(keys).size !== keys.length) ctx.addIssue({ code: 'custom', path: ['details'], message: 'lists a key twice' });
    if (!t.details.some((d) => d.required)) ctx.addIssue({ code: 'custom', path: ['details'], message: 'has no required detail' });
  });

const CatalogFile = z.strictObject({ types: z.array(MethodTypeFile).min(1) });

let catalog: WithdrawalMethodType[] | undefined;

/** Every withdrawal method type of the catalog, validated once at load (a broken catalog stops the process). */
export function withdrawalMethodTypes(): WithdrawalMethodType[] {
  if (catalog) return catalog;
  const file = fixturePath('withdrawal-method-types.json');
  const parsed = CatalogFile.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success)
    throw new Error(`${file} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const types = parsed.data.types.map((t) => t.type);
  if (new Set(types).size !== types.length) throw new Error(`${file}: a type is listed twice`);
  catalog = parsed.data.types;
  return catalog;
}

export function methodTypeOf(key: string): WithdrawalMethodType | undefined {
  return withdrawalMethodTypes().find((t) => t.type === key);
}

// ------------------------------------------------------------------------------------------------ validators

/** IBAN length per country (ISO 13616 registry: SEPA and the other common countries). */
export const IBAN_LENGTHS: Record<string, number> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MR: 27,
  MT: 31,
  MU: 30,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  SA: 24,
  SC: 31,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
};

/** ISO 7064 MOD 97-10 of an IBAN (already upper-case, no spaces): 1 when the check digits are right. */
function ibanRemainder(iban: string): number {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = ch >= 'A' && ch <= 'Z' ? ch.charCodeAt(0) - 55 : Number(ch);
    remainder = (remainder * (value >= 10 ? 100 : 10) + value) % 97;
  }
  return remainder;
}

/** Why an IBAN (normalized) is invalid, or null when it is valid. */
export function ibanProblem(iban: string): string | null {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(iban))
    return 'must be an IBAN: a country code, 2 check digits and the account (letters and digits)';
  const country = iban.slice(0, 2);
  const length = IBAN_LENGTHS[country];
  if (length === undefined) return `is not an IBAN of a supported country (${country})`;
  if (iban.length !== length) return `must be ${length} characters long for ${country} (got ${iban.length})`;
  if (ibanRemainder(iban) !== 1) return 'is not a valid IBAN (check digits do not match)';
  return null;
}

/** Why a BIC (normalized) is invalid, or null: 4 letters (bank), a country, 2 characters (location), an optional branch of 3. */
export function bicProblem(bic: string): string | null {
  if (!/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic)) return 'must be a BIC of 8 or 11 characters (e.g. DEUTDEFF or DEUTDEFF500)';
  if (!isCountry(bic.slice(4, 6))) return `names no country (${bic.slice(4, 6)})`;
  return null;
}

/** Why an ABA routing number is invalid, or null: 9 digits whose weighted sum (3, 7, 1, …) is a multiple of 10. */
export function abaRoutingProblem(routing: string): string | null {
  if (!/^[0-9]{9}$/.test(routing)) return 'must be an ABA routing number of 9 digits';
  if (/^0+$/.test(routing)) return 'is not a valid ABA routing number';
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  const sum = weights.reduce((acc, w, i) => acc + w * Number(routing[i]), 0);
  if (sum % 10 !== 0) return 'is not a valid ABA routing number (check digit does not match)';
  return null;
}

function lengthProblem(value: string, spec: WithdrawalDetailSpec, unit: string): string | null {
  if (spec.minLength !== undefined && value.length < spec.minLength) {
    return spec.maxLength === spec.minLength ? `must be ${spec.minLength} ${unit} long` : `must be at least ${spec.minLength} ${unit} long`;
  }
  if (spec.maxLength !== undefined && value.length > spec.maxLength) return `must be at most ${spec.maxLength} ${unit} long`;
  return null;
}

/** The value as stored (IBAN and BIC upper-case without spaces; others trimmed). */
function normalize(spec: WithdrawalDetailSpec, raw: string): string {
  const value = raw.trim();
  return spec.format === 'iban' || spec.format === 'bic' ? value.replace(/\s+/g, '').toUpperCase() : value;
}

function problemOf(spec: WithdrawalDetailSpec, value: string): string | null {
  switch (spec.format) {
    case 'iban':
      return ibanProblem(value);
    case 'bic':
      return bicProblem(value);
    case 'aba_routing':
      return abaRoutingProblem(value);
    case 'digits':
      return /^[0-9]+$/.test(value) ? lengthProblem(value, spec, 'digits') : 'must contain digits only';
    case 'enum':
      return spec.values!.includes(value) ? null : `must be one of ${spec.values!.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'text':
      return lengthProblem(value, spec, 'characters');
  }
}

/**
 * The details normalized (IBAN and BIC upper-case without spaces, values trimmed; optional details left empty are
 * dropped), or a ValidationError listing every bad key as `${path}.${key}`: required keys missing or empty,
 * keys the type does not know, values failing their format.
 */
export function validateDetails(
  type: WithdrawalMethodType,
  details: Record<string, string>,
  path = 'body.details',
): Record<string, string> {
  const issues: FieldIssue[] = [];
  const known = new Set(type.details.map((d) => d.key));
  for (const key of Object.keys(details)) {
    if (!known.has(key))
      issues.push({ path: `${path}.${key}`, message: `is not a detail of ${type.type} (its details: ${[...known].join(', ')})` });
  }
  const out: Record<string, string> = {};
  for (const spec of type.details) {
    const raw = details[spec.key];
    const value = typeof raw === 'string' ? normalize(spec, raw) : '';
    if (value === '') {
      if (spec.required) issues.push({ path: `${path}.${spec.key}`, message: `is required for ${type.type} (${spec.label})` });
      continue;
    }
    const problem = problemOf(spec, value);
    if (problem) issues.push({ path: `${path}.${spec.key}`, message: problem });
    else out[spec.key] = value;
  }
  if (issues.length)
    throw new ValidationError(`Invalid ${type.type} details: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return out;
}

const BULLET = '•';

/**
 * What reads show of details: a masked key keeps its last 4 characters (never more than half of a short value)
 * behind at least 4 bullets, so neither a short value nor its length is given away; other keys as they are.
 */
export function maskDetails(type: WithdrawalMethodType, details: Record<string, string>): Record<string, string> {
  const masked = new Set(type.details.filter((d) => d.masked).map((d) => d.key));
  return Object.fromEntries(
    Object.entries(details).map(([key, value]) => {
      if (!masked.has(key)) return [key, value];
      const visible = Math.min(4, Math.floor(value.length / 2));
      return [key, BULLET.repeat(Math.max(4, value.length - visible)) + value.slice(value.length - visible)];
    }),
  );
}
