import fs from 'node:fs';
import type { z as Zod } from 'zod';
import type { Level } from '../../domain/context';
import { ValidationError, type FieldIssue } from '../../domain/errors';
import { fixturePath } from '../../util/paths';
import { EVENT_GROUP_KINDS, type RecordKindName } from '../../domain/record-kinds';

/** The catalog file's schema, made when the catalog is first read (zod is not loaded by a command that never reads it). */
const catalogFile = ({ z }: { z: typeof Zod }) =>
  z.object({
    events: z
      .array(
        z.strictObject({
          type: z.string().regex(/^[a-z_]+(\.[a-z_]+)+$/, 'must look like entity.action'),
          group: z.string().min(1),
          /** merchant: any endpoint may subscribe; tenant: tenant and platform endpoints only */
          level: z.enum(['merchant', 'tenant']),
        }),
      )
      .min(1),
  });

export type EventType = Zod.infer<ReturnType<typeof catalogFile>>['events'][number];

/**
 * The record each group's events carry, rendered through that record's schema (src/api/views.ts), exactly as its
 * API answer: a field the schema hides from merchants is hidden from merchant endpoints. null: the group's data is
 * a summary of its own (a balance, an alert, a delivery), shown by field name. Every group of the catalog is here.
 */
const GROUP_RESOURCE: Record<string, RecordKindName | null> = {
  /** the groups of the registry's kinds (their eventGroup: src/domain/record-kinds.ts) */
  ...EVENT_GROUP_KINDS,
  Balance: null,
  KYB: null,
  Alerts: null,
  Webhook: null,
};

let catalog: EventType[] | undefined;

/** Every event type of fixtures/events.json, validated once at load. */
export function eventCatalog(): EventType[] {
  if (catalog) return catalog;
  const file = fixturePath('events.json');
  const parsed = catalogFile(require('zod') as typeof import('zod')).safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success)
    throw new Error(`${file} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const seen = new Set<string>();
  for (const e of parsed.data.events) {
    if (seen.has(e.type)) throw new Error(`${file}: duplicate event type ${e.type}`);
    if (!Object.prototype.hasOwnProperty.call(GROUP_RESOURCE, e.group))
      throw new Error(`${file}: group ${e.group} of ${e.type} names no record (declare it in GROUP_RESOURCE)`);
    seen.add(e.type);
  }
  catalog = parsed.data.events;
  return catalog;
}

/** The kind of record the event type's data is, or null when its data is a summary of its own. */
export function eventResource(type: string): RecordKindName | null {
  const entry = eventCatalog().find((e) => e.type === type);
  return entry ? GROUP_RESOURCE[entry.group] : null;
}

export function isKnownEventType(type: string): boolean {
  return eventCatalog().some((e) => e.type === type);
}

/** Event types an endpoint of the level may subscribe to: merchants their own events, tenants and the platform all. */
export function subscribableTypes(level: Level): EventType[] {
  return eventCatalog().filter((e) => level !== 'merchant' || e.level === 'merchant');
}

/** An exact name, a category wildcard (payment.*, checkout.session.*) or * for every event. */
export function matchesPattern(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

export function subscribes(patterns: string[], type: string): boolean {
  return patterns.some((p) => matchesPattern(p, type));
}

/** Checks each pattern against what the level may receive; names the offending entries. */
export function validateSubscription(level: Level, patterns: string[], field = 'body.events'): string[] {
  const allowed = subscribableTypes(level).map((e) => e.type);
  const issues: FieldIssue[] = [];
  patterns.forEach((pattern, i) => {
    if (!/^(\*|[a-z_]+(\.[a-z_]+)*(\.\*)?)$/.test(pattern)) {
      issues.push({ path: `${field}[${i}]`, message: `"${pattern}" is not an event name, a category wildcard such as payment.* or *` });
    } else if (!allowed.some((type) => matchesPattern(pattern, type))) {
      const known = eventCatalog().some((e) => matchesPattern(pattern, e.type));
      issues.push({
        path: `${field}[${i}]`,
        message: known ? `"${pattern}" is not available to ${level} endpoints` : `"${pattern}" matches no event type`,
      });
    }
  });
  if (issues.length)
    throw new ValidationError(`Invalid events: ${issues.map((i) => i.message).join('; ')}`, issues, 'INVALID_EVENT_SUBSCRIPTION');
  return [...new Set(patterns)];
}
