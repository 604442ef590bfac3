import { renderRecord, renderTable, type TableOptions } from '../output';
import type { ListEntry, ListGroup } from '../../services/risk/lists';
import { actorLabel } from '../actors';

// The `payplane risk lists …` commands' pieces: list groups and their entries.

export const LIST_ENTRY_TYPE_OPTIONS = ['card_fingerprint', 'email', 'email_domain', 'ip', 'bin', 'country', 'customer_reference'];

export function renderListGroup(g: ListGroup): string {
  return renderRecord({
    id: g.id,
    tenant: g.tenantId,
    mode: g.livemode ? 'live' : 'sandbox',
    name: g.name,
    description: g.description,
    entryType: g.entryType,
    entries: g.entryCount,
    createdBy: actorLabel(g.createdBy),
    createdAt: g.createdAt,
    updatedAt: g.updatedAt,
    deletedAt: g.deletedAt,
  });
}

export function renderListGroups(groups: ListGroup[], options: TableOptions = {}): string {
  return renderTable(
    groups,
    [
      { header: 'ID', get: (g) => g.id },
      { header: 'Name', get: (g) => g.name },
      { header: 'Entry type', get: (g) => g.entryType },
      { header: 'Entries', get: (g) => String(g.entryCount) },
      { header: 'Created', get: (g) => g.createdAt },
    ],
    options,
  );
}

export function renderListEntries(entries: ListEntry[], options: TableOptions = {}): string {
  return renderTable(
    entries,
    [
      { header: 'ID', get: (e) => e.id },
      { header: 'Value', get: (e) => e.value },
      { header: 'Note', get: (e) => e.note },
      { header: 'Created by', get: (e) => actorLabel(e.createdBy) },
      { header: 'Created', get: (e) => e.createdAt },
    ],
    options,
  );
}

export function renderListEntry(e: ListEntry): string {
  return renderRecord({
    id: e.id,
    listGroup: e.listGroupId,
    entryType: e.entryType,
    value: e.value,
    note: e.note,
    createdBy: actorLabel(e.createdBy),
    createdAt: e.createdAt,
    deletedAt: e.deletedAt,
  });
}
