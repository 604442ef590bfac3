import type { Level } from '../../domain/level';
import { allows } from '../../domain/permissions';
import { isRecordKindName, RECORD_KIND_NAMES, RECORD_KINDS, type RecordKindName, type RecordReader } from '../../domain/record-kinds';
import { apiViews } from '../../api/lazy-views';

/**
 * Who may read an audit entry, and what of it: an entry is about one record (its targetType and targetId), and a
 * caller sees it only if it may read that kind of record, at its level (operations.md's levels and view permission
 * of the operations that read it, declared in src/domain/record-kinds.ts), with before and after rendered as that
 * level's view of the record: through the schema its reading operations answer with (RESOURCES of src/api/views.ts,
 * one per kind). Every targetType that recordAudit writes is a kind of the registry (recordAudit refuses any other),
 * and GET /v1/audit-entries selects, in its query, only the kinds the caller may read (src/services/audit/entries.ts).
 */

/** One operation that reads records of the kind: its operationId, levels and permission, as the registry declares them. */
export type AuditReader = RecordReader;

export interface AuditTarget {
  /** the operations that read the record; a caller that may call one of them may see the record's entries */
  readBy: readonly AuditReader[];
}

/** Every kind of record an audit entry may be about: every kind of the registry, read by its reading operations. */
export const AUDIT_TARGETS = Object.fromEntries(
  RECORD_KIND_NAMES.map((kind): [RecordKindName, AuditTarget] => [kind, { readBy: RECORD_KINDS[kind].read }]),
) as Record<RecordKindName, AuditTarget>;

/** Every kind of record an audit entry may be about. */
export type AuditTargetType = RecordKindName;

export const isAuditTargetType = isRecordKindName;

/** The kinds of record whose entries a caller of the level holding the permissions may see. */
export function readableTargetTypes(level: Level, permissions: ReadonlySet<string>): AuditTargetType[] {
  return (Object.keys(AUDIT_TARGETS) as AuditTargetType[]).filter((type) =>
    AUDIT_TARGETS[type].readBy.some((reader) => reader.levels.includes(level) && allows(permissions, reader.permission)),
  );
}

/** An entry's before or after as a caller of the level sees it. */
export function auditValueAt(type: string, value: unknown, level: Level): unknown {
  if (value === null || value === undefined) return null;
  const { RESOURCES, viewAt } = apiViews();
  return viewAt(isAuditTargetType(type) ? RESOURCES[type] : undefined, value, level);
}
