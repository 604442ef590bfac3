import { Op, UniqueConstraintError } from 'sequelize';
import ipaddr from 'ipaddr.js';
import { inTransaction, type CallerContext } from '../../domain/context';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/errors';
import { isUuid, scoped, type ListParams, type Page } from '../../db/scoped';
import type { ListEntryRow, ListEntryType, ListGroupRow } from '../../db/models/risk';
import { isCountry } from '../../domain/money';
import { auditRecord, auditedDelete, auditedRecord, givenFields } from '../audit/changes';
import { tenantForCreate } from '../partners';
import { filterWhere, mapPage, presentRow, type Presented } from '../present';
import { ipKey, ipRange, subjectValue, type RiskSubject } from './conditions';

/**
 * List groups: named lists of one entry type (card fingerprints, emails, email domains, IPs and CIDR ranges, BINs,
 * countries, customer references) that scoring rules look into with in_list. Tenant configuration per mode.
 * Entries are normalized on the way in so matching is exact (ip: containment in the entry's range). Deleting a group
 * soft-deletes its entries in the same transaction.
 */

const GROUP_FIELDS = [
  'id',
  'tenantId',
  'livemode',
  'name',
  'description',
  'entryType',
  'createdBy',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const;
const ENTRY_FIELDS = [
  'id',
  'listGroupId',
  'tenantId',
  'livemode',
  'entryType',
  'value',
  'note',
  'createdBy',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const;

export type ListGroup = Presented<Pick<ListGroupRow, (typeof GROUP_FIELDS)[number]>> & { entryCount: number };
export type ListEntry = Presented<Pick<ListEntryRow, (typeof ENTRY_FIELDS)[number]>>;

export const toListEntry = (row: ListEntryRow): ListEntry => presentRow(row, ENTRY_FIELDS);

const GROUP = auditedRecord<ListGroupRow>({
  model: (ctx) => ctx.db.models.ListGroup,
  targetType: 'list_group',
  owner: (row) => ({ tenantId: row.tenantId, livemode: row.livemode }),
  render: (row, _now, ctx) => toListGroup(ctx, row),
});

const ENTRY = auditedRecord<ListEntryRow>({
  model: (ctx) => ctx.db.models.ListEntry,
  targetType: 'list_entry',
  owner: (row) => ({ tenantId: row.tenantId, livemode: row.livemode }),
  render: toListEntry,
});

/** Groups as records with their live entry counts: one query for any number of groups. */
async function toListGroups(ctx: CallerContext, rows: ListGroupRow[]): Promise<ListGroup[]> {
  const live = rows.filter((r) => !r.deletedAt).map((r) => r.id);
  const counts = live.length
    ? await scoped(ctx, ctx.db.models.ListEntry).countBy('listGroupId', { listGroupId: { [Op.in]: live } })
    : new Map<string, number>();
  return rows.map((row) => ({ ...presentRow(row, GROUP_FIELDS), entryCount: row.deletedAt ? 0 : (counts.get(row.id) ?? 0) }));
}

async function toListGroup(ctx: CallerContext, row: ListGroupRow): Promise<ListGroup> {
  return (await toListGroups(ctx, [row]))[0];
}

/** The normalized value of an entry of `type` (400 naming body.value when it is not one). */
export function normalizeEntry(type: ListEntryType, raw: string): { value: string; rangeStart: string | null; rangeEnd: string | null } {
  const value = raw.trim();
  const bad = (message: string) => ValidationError.field('body.value', message);
  switch (type) {
    case 'ip': {
      try {
        const range = ipRange(value);
        return { value: range.value, rangeStart: range.start, rangeEnd: range.end };
      } catch {
        throw bad('must be an IPv4 or IPv6 address or a CIDR range such as 203.0.113.0/24');
      }
    }
    case 'email':
      if (!/^[^\s@]+@[^\s@]+$/.test(value)) throw bad('must be an email address');
      return { value: value.toLowerCase(), rangeStart: null, rangeEnd: null };
    case 'email_domain': {
      const domain = value.toLowerCase().replace(/^@/, '');
      if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain)) throw bad('must be a domain such as example.com');
      return { value: domain, rangeStart: null, rangeEnd: null };
    }
    case 'bin':
      // payments keep the first 6 digits of the card
      if (!/^\d{6}$/.test(value)) throw bad('must be the 6 first digits of a card number');
      return { value, rangeStart: null, rangeEnd: null };
    case 'country': {
      const country = value.toUpperCase();
      if (!isCountry(country)) throw bad('must be an ISO 3166-1 alpha-2 country code');
      return { value: country, rangeStart: null, rangeEnd: null };
    }
    case 'card_fingerprint':
    case 'customer_reference':
      if (!value) throw bad('must not be empty');
      return { value, rangeStart: null, rangeEnd: null };
  }
}

export interface ListGroupFilters {
  entryType?: ListEntryType;
  tenantId?: string;
}

export async function listListGroups(ctx: CallerContext, filters: ListGroupFilters, page: ListParams): Promise<Page<ListGroup>> {
  const where: Record<string, unknown> = filterWhere(filters, ['entryType', 'tenantId']);
  const result = await scoped(ctx, ctx.db.models.ListGroup).list(where, page);
  return { data: await toListGroups(ctx, result.data), pagination: result.pagination };
}

export async function getListGroup(ctx: CallerContext, id: string): Promise<ListGroup> {
  return toListGroup(ctx, await scoped(ctx, ctx.db.models.ListGroup).get(id));
}

export interface ListGroupInput {
  name: string;
  description?: string | null;
  entryType: ListEntryType;
  tenantId?: string;
}

export async function createListGroup(ctx: CallerContext, input: ListGroupInput): Promise<ListGroup> {
  return inTransaction(ctx, async (tx) => {
    const tenantId = await tenantForCreate(tx, input.tenantId);
    const row = await scoped(tx, tx.db.models.ListGroup).create({
      tenantId,
      name: input.name,
      description: input.description ?? null,
      entryType: input.entryType,
      createdBy: tx.actor.id,
    });
    const group = await toListGroup(tx, row);
    await auditRecord(tx, GROUP, row, 'list_group.created', { after: group });
    return group;
  });
}

/** name and description change; the entry type does not (its entries were normalized for it). */
export async function updateListGroup(
  ctx: CallerContext,
  id: string,
  input: { name?: string; description?: string | null },
): Promise<ListGroup> {
  return inTransaction(ctx, async (tx) => {
    const access = scoped(tx, tx.db.models.ListGroup);
    const row = await access.get(id, { lock: true });
    const updated = await access.update(row, givenFields(input, ['name', 'description']));
    const [before, after] = await toListGroups(tx, [row, updated]);
    await auditRecord(tx, GROUP, row, 'list_group.updated', { before, after });
    return after;
  });
}

/** Soft-deletes the group and its entries together; rules naming the group then match nothing in it. */
export async function deleteListGroup(ctx: CallerContext, id: string): Promise<ListGroup> {
  return inTransaction(ctx, async (tx) => {
    const access = scoped(tx, tx.db.models.ListGroup);
    const row = await access.get(id, { lock: true });
    const before = await toListGroup(tx, row);
    const now = tx.clock.now();
    const deleted = await access.update(row, { deletedAt: now });
    const [removed] = await tx.db.models.ListEntry.update(
      { deletedAt: now, updatedAt: now },
      { where: { listGroupId: row.id, deletedAt: null }, transaction: tx.transaction },
    );
    await auditRecord(tx, GROUP, row, 'list_group.deleted', {
      before,
      after: { ...presentRow(deleted, GROUP_FIELDS), entriesDeleted: removed },
    });
    return { ...presentRow(deleted, GROUP_FIELDS), entryCount: 0 };
  });
}

export async function addListEntry(
  ctx: CallerContext,
  groupId: string,
  input: { value: string; note?: string | null },
): Promise<ListEntry> {
  try {
    return await inTransaction(ctx, async (tx) => {
      const group = await scoped(tx, tx.db.models.ListGroup).get(groupId, { lock: true });
      const normalized = normalizeEntry(group.entryType, input.value);
      const entries = scoped(tx, tx.db.models.ListEntry);
      if (await entries.findOne({ listGroupId: group.id, value: normalized.value })) throw entryExists(normalized.value);
      const row = await entries.create({
        tenantId: group.tenantId,
        livemode: group.livemode,
        listGroupId: group.id,
        entryType: group.entryType,
        ...normalized,
        note: input.note ?? null,
        createdBy: tx.actor.id,
      });
      const entry = toListEntry(row);
      await auditRecord(tx, ENTRY, row, 'list_entry.created', { after: entry });
      return entry;
    });
  } catch (error) {
    // the same value added twice at once: the partial unique index lets one in
    if (error instanceof UniqueConstraintError) throw entryExists(input.value.trim());
    throw error;
  }
}

const entryExists = (value: string) =>
  new ConflictError('LIST_ENTRY_EXISTS', `The list group already holds ${value}.`, {
    hint: 'Each value is listed once; delete the entry first to change its note.',
  });

export async function listListEntries(
  ctx: CallerContext,
  groupId: string,
  filters: { value?: string },
  page: ListParams,
): Promise<Page<ListEntry>> {
  const group = await scoped(ctx, ctx.db.models.ListGroup).get(groupId);
  const where: Record<string, unknown> = { listGroupId: group.id };
  if (filters.value !== undefined) {
    try {
      where.value = normalizeEntry(group.entryType, filters.value).value;
    } catch {
      throw ValidationError.field('query.value', `is not a ${group.entryType} value`);
    }
  }
  return mapPage(await scoped(ctx, ctx.db.models.ListEntry).list(where, page), toListEntry);
}

/** One entry of a list group (404 when there is none with that id in that group). */
export async function getListEntry(ctx: CallerContext, groupId: string, entryId: string): Promise<ListEntry> {
  const group = await scoped(ctx, ctx.db.models.ListGroup).get(groupId);
  const row = isUuid(entryId) ? await scoped(ctx, ctx.db.models.ListEntry).findOne({ id: entryId, listGroupId: group.id }) : null;
  if (!row) throw new NotFoundError('list entry', entryId);
  return toListEntry(row);
}

export async function deleteListEntry(ctx: CallerContext, groupId: string, entryId: string): Promise<ListEntry> {
  return inTransaction(ctx, async (tx) => {
    const group = await scoped(tx, tx.db.models.ListGroup).get(groupId);
    const entries = scoped(tx, tx.db.models.ListEntry);
    // an id that is no uuid is no entry (Postgres would refuse to compare it with a uuid column)
    const row = isUuid(entryId) ? await entries.findOne({ id: entryId, listGroupId: group.id }, { lock: true }) : null;
    if (!row) throw new NotFoundError('list entry', entryId);
    return toListEntry(await auditedDelete(tx, ENTRY, row, { action: 'list_entry.deleted' }));
  });
}

/** The value of the subject an entry type is compared with. */
const ENTRY_FIELD = {
  card_fingerprint: 'card_fingerprint',
  email: 'email',
  email_domain: 'email_domain',
  ip: 'ip',
  bin: 'bin',
  country: 'country',
  customer_reference: 'customer_reference',
} as const;

/**
 * Which of `groupIds` hold the subject: at most two indexed queries whatever the number of groups and entries (one
 * for exact values, one for ip ranges). `ctx` is scoped to the subject's tenant and mode: groups of another tenant
 * or mode, and deleted ones, hold nothing.
 */
export async function groupsHolding(ctx: CallerContext, groupIds: string[], subject: RiskSubject): Promise<Set<string>> {
  const holding = new Set<string>();
  if (!groupIds.length) return holding;
  const entries = scoped(ctx, ctx.db.models.ListEntry);
  const values = [
    ...new Set(
      (Object.keys(ENTRY_FIELD) as ListEntryType[])
        .filter((t) => t !== 'ip')
        .map((t) => subjectValue(subject, ENTRY_FIELD[t]))
        .filter((v): v is string => v !== null),
    ),
  ];
  const exact = values.length
    ? entries.findAll({ listGroupId: { [Op.in]: groupIds }, entryType: { [Op.ne]: 'ip' }, value: { [Op.in]: values } })
    : Promise.resolve([]);
  let key: string | null = null;
  if (subject.ip && ipaddr.isValid(subject.ip)) key = ipKey(ipaddr.parse(subject.ip));
  const ranges = key
    ? entries.findAll({ listGroupId: { [Op.in]: groupIds }, entryType: 'ip', rangeStart: { [Op.lte]: key }, rangeEnd: { [Op.gte]: key } })
    : Promise.resolve([]);
  for (const row of [...(await exact), ...(await ranges)]) {
    if (row.entryType === 'ip' || subjectValue(subject, ENTRY_FIELD[row.entryType]) === row.value) holding.add(row.listGroupId);
  }
  return holding;
}
