import { z } from '../zod';
import { notChecked } from '../references';
import { defineOperation } from '../registry';
import { Timestamp, listQuery } from '../common';
import { listAuditEntries } from '../../services/audit/entries';

export const AuditEntrySchema = z
  .object({
    id: z.string().uuid(),
    tenantId: z.string().uuid().nullable(),
    merchantId: z.string().uuid().nullable(),
    livemode: z.boolean(),
    actor: z.object({
      type: z.string(),
      id: z.string().openapi({ description: "The user or API key id (system for the platform's own jobs)" }),
      name: z
        .string()
        .nullable()
        .openapi({ description: 'For an operator at the terminal (payplane CLI): its operating-system account, os:<name>' }),
    }),
    action: z.string(),
    target: z.object({ type: z.string(), id: z.string() }),
    before: z.unknown(),
    after: z.unknown(),
    requestId: z.string().nullable(),
    createdAt: Timestamp,
  })
  .strict()
  .openapi('AuditEntry');

const ListAuditQuery = listQuery({
  action: z.string().min(1).max(100).optional(),
  targetId: notChecked(
    "the record an entry is about, of any kind, deleted ones included: a filter over the caller's own entries",
    z.string().min(1).max(100),
  ).optional(),
  actorId: notChecked(
    "the user, key or operator account that acted, of any time: a filter over the caller's own entries",
    z.string().min(1).max(255),
  ).optional(),
});

export const auditOperations = [
  defineOperation({
    id: 'listAuditEntries',
    method: 'get',
    path: '/v1/audit-entries',
    levels: ['M', 'T', 'P'],
    permission: 'access:audit:view',
    tag: 'Audit',
    summary: 'Recent audit entries, newest first',
    description: 'Every state change: actor, action, target, before and after (secrets never included).',
    kind: 'list',
    query: ListAuditQuery,
    response: AuditEntrySchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => listAuditEntries(ctx, filters, { cursor, limit, sortOrder }),
  }),
];
