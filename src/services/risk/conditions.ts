import ipaddr from 'ipaddr.js';
import type { FieldIssue } from '../../domain/errors';
import type { ConditionField, ConditionOperator, ListEntryType, RiskCondition } from '../../db/models/risk';
import type { Money } from '../../domain/money';

/**
 * Conditions of scoring rules: which operators each field of the payment context takes, how values are normalized
 * (so that a rule, a list entry and a payment compare alike), and the matching itself. Pure: no database here.
 */

/** The payment as the risk engine sees it (routed, not yet sent: the terminal is the one the route starts with). */
export interface RiskSubject {
  tenantId: string;
  livemode: boolean;
  merchantId: string;
  channelId: string | null;
  /** the terminal the payment is routed to first; null when none can take it (or a dry run names none) */
  terminalId?: string | null;
  amount: Money;
  card: { fingerprint: string; bin: string; brand: string; country: string | null } | null;
  email: string | null;
  ip: string | null;
  customerReference: string | null;
  /** the 3DS status already known for the payment (authenticated, failed…); null when none */
  threeDSResult: string | null;
}

type Kind = 'number' | 'text';

interface FieldSpec {
  kind: Kind;
  operators: readonly ConditionOperator[];
  /** the list group type in_list looks into */
  listType?: ListEntryType;
  normalize: (v: string) => string;
}

const EQUALITY = ['eq', 'neq', 'in', 'not_in'] as const;
const TEXTUAL = [...EQUALITY, 'contains', 'in_list'] as const;
const COMPARISON = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'] as const;
const trim = (v: string) => v.trim();
const lower = (v: string) => v.trim().toLowerCase();
const upper = (v: string) => v.trim().toUpperCase();

export const FIELDS: Record<ConditionField, FieldSpec> = {
  amount: { kind: 'number', operators: [...COMPARISON, 'in', 'not_in'], normalize: trim },
  currency: { kind: 'text', operators: EQUALITY, normalize: upper },
  country: { kind: 'text', operators: [...EQUALITY, 'in_list'], listType: 'country', normalize: upper },
  bin: { kind: 'text', operators: TEXTUAL, listType: 'bin', normalize: trim },
  brand: { kind: 'text', operators: EQUALITY, normalize: lower },
  card_fingerprint: { kind: 'text', operators: TEXTUAL, listType: 'card_fingerprint', normalize: trim },
  email: { kind: 'text', operators: TEXTUAL, listType: 'email', normalize: lower },
  email_domain: { kind: 'text', operators: TEXTUAL, listType: 'email_domain', normalize: lower },
  ip: { kind: 'text', operators: [...EQUALITY, 'in_list'], listType: 'ip', normalize: normalizeIp },
  customer_reference: { kind: 'text', operators: TEXTUAL, listType: 'customer_reference', normalize: trim },
  // risk runs before authentication: only a 3DS result the payment already carries can match (eq, in)
  three_ds_result: { kind: 'text', operators: ['eq', 'in'], normalize: lower },
  merchant_id: { kind: 'text', operators: EQUALITY, normalize: lower },
};

/** The field of the payment context an aggregation condition compares: the count, or the sum of amounts. */
const AGGREGATE_OPERATORS = COMPARISON;

/** The subject's value of a field, normalized; null when the payment does not have it. */
export function subjectValue(subject: RiskSubject, field: ConditionField): string | null {
  const raw = ((): string | null => {
    switch (field) {
      case 'amount':
        return String(subject.amount.valueMinor);
      case 'currency':
        return subject.amount.currency;
      case 'country':
        return subject.card?.country ?? null;
      case 'bin':
        return subject.card?.bin ?? null;
      case 'brand':
        return subject.card?.brand ?? null;
      case 'card_fingerprint':
        return subject.card?.fingerprint ?? null;
      case 'email':
        return subject.email;
      case 'email_domain':
        return emailDomain(subject.email);
      case 'ip':
        return subject.ip;
      case 'customer_reference':
        return subject.customerReference;
      case 'three_ds_result':
        return subject.threeDSResult;
      case 'merchant_id':
        return subject.merchantId;
    }
  })();
  if (raw === null || raw === '') return null;
  try {
    return FIELDS[field].normalize(raw);
  } catch {
    return null;
  }
}

export function emailDomain(email: string | null): string | null {
  if (!email) return null;
  const at = email.lastIndexOf('@');
  return at >= 0 && at < email.length - 1
    ? email
        .slice(at + 1)
        .trim()
        .toLowerCase()
    : null;
}

/** A canonical text of an IP address (IPv4-mapped IPv6 written as IPv4). Throws on anything else. */
export function normalizeIp(value: string): string {
  const parsed = ipaddr.parse(value.trim());
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address().toString();
  return parsed.toNormalizedString();
}

/** An address as 32 hex digits of its IPv6 form (IPv4 mapped), so that ranges compare as strings. */
export function ipKey(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  const v6 = address.kind() === 'ipv4' ? (address as ipaddr.IPv4).toIPv4MappedAddress() : (address as ipaddr.IPv6);
  return v6
    .toByteArray()
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
}

/** An ip list entry (an address or a CIDR range): its canonical text and first and last address keys. */
export function ipRange(value: string): { value: string; start: string; end: string } {
  const text = value.trim();
  if (text.includes('/')) {
    const [address, bits] = ipaddr.parseCIDR(text);
    const network = address.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(text) : ipaddr.IPv6.networkAddressFromCIDR(text);
    const broadcast = address.kind() === 'ipv4' ? ipaddr.IPv4.broadcastAddressFromCIDR(text) : ipaddr.IPv6.broadcastAddressFromCIDR(text);
    return { value: `${network.toString()}/${bits}`, start: ipKey(network), end: ipKey(broadcast) };
  }
  const address = ipaddr.parse(text);
  const key = ipKey(address);
  return { value: normalizeIp(text), start: key, end: key };
}

/** The values of in and not_in: a comma-separated list. */
export function listValues(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

const INTEGER = /^-?\d{1,15}$/;

/**
 * Checks one condition (shape already checked by the schema): the operator suits the field (or the aggregation),
 * values parse. Returns the issues under `path`; in_list groups are checked against the database by the caller.
 */
export function conditionIssues(condition: RiskCondition, path: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const spec = FIELDS[condition.field];
  if (condition.aggregation) {
    if (!(AGGREGATE_OPERATORS as readonly string[]).includes(condition.operator)) {
      issues.push({
        path: `${path}.operator`,
        message: `with an aggregation must be one of ${AGGREGATE_OPERATORS.join(', ')} (the count or sum is compared)`,
      });
    }
    if (condition.aggregation.metric === 'sum' && condition.field !== 'amount') {
      issues.push({ path: `${path}.field`, message: 'must be amount for a sum aggregation (the amounts are summed)' });
    }
    if (!INTEGER.test(condition.value.trim()))
      issues.push({ path: `${path}.value`, message: 'must be an integer (a count, or a sum in minor units)' });
    return issues;
  }
  if (!spec.operators.includes(condition.operator)) {
    issues.push({ path: `${path}.operator`, message: `must be one of ${spec.operators.join(', ')} for field ${condition.field}` });
    return issues;
  }
  const values = condition.operator === 'in' || condition.operator === 'not_in' ? listValues(condition.value) : [condition.value];
  if (!values.length) issues.push({ path: `${path}.value`, message: 'must list at least one value, separated by commas' });
  if (condition.operator === 'in_list') return issues;
  for (const v of values) {
    if (spec.kind === 'number' && !INTEGER.test(v.trim())) {
      issues.push({ path: `${path}.value`, message: 'must be an integer amount in minor units (comma-separated for in and not_in)' });
      break;
    }
    if (condition.field === 'ip' && !ipaddr.isValid(v.trim())) {
      issues.push({ path: `${path}.value`, message: 'must be an IPv4 or IPv6 address (use in_list with a list group for CIDR ranges)' });
      break;
    }
    if (!v.trim()) {
      issues.push({ path: `${path}.value`, message: 'must not be empty' });
      break;
    }
  }
  return issues;
}

/** Normalizes a condition's value the way the subject's values are (ids of list groups kept as given). */
export function normalizeCondition(condition: RiskCondition): RiskCondition {
  if (condition.aggregation || condition.operator === 'in_list') return { ...condition, value: condition.value.trim() };
  const normalize = FIELDS[condition.field].normalize;
  const value =
    condition.operator === 'in' || condition.operator === 'not_in'
      ? listValues(condition.value).map(normalize).join(',')
      : normalize(condition.value);
  return { ...condition, value };
}

/**
 * Whether a condition without aggregation holds for the subject. `inList(groupId)` answers list membership (looked
 * up beforehand). A value the payment does not have matches only neq and not_in.
 */
export function matchesCondition(condition: RiskCondition, subject: RiskSubject, inList: (groupId: string) => boolean): boolean {
  const actual = subjectValue(subject, condition.field);
  const op = condition.operator;
  if (actual === null) return op === 'neq' || op === 'not_in';
  if (op === 'in_list') return inList(condition.value);
  if (FIELDS[condition.field].kind === 'number') return compareNumbers(op, Number(actual), condition.value);
  switch (op) {
    case 'eq':
      return actual === condition.value;
    case 'neq':
      return actual !== condition.value;
    case 'in':
      return listValues(condition.value).includes(actual);
    case 'not_in':
      return !listValues(condition.value).includes(actual);
    case 'contains':
      return actual.includes(condition.value);
    default:
      return false;
  }
}

/** Compares a number with a condition's value (in and not_in: a list of numbers). */
export function compareNumbers(op: ConditionOperator, actual: number, value: string): boolean {
  const list = () => listValues(value).map(Number);
  const n = Number(value);
  switch (op) {
    case 'eq':
      return actual === n;
    case 'neq':
      return actual !== n;
    case 'gt':
      return actual > n;
    case 'gte':
      return actual >= n;
    case 'lt':
      return actual < n;
    case 'lte':
      return actual <= n;
    case 'in':
      return list().includes(actual);
    case 'not_in':
      return !list().includes(actual);
    default:
      return false;
  }
}
