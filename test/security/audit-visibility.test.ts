import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { useApiHarness, createLiveTenantKey } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operations } from '../../src/api';
import { operatorContext } from '../../src/services/access/operators';
import type { CallerContext, Level } from '../../src/domain/context';
import { createApiKey } from '../../src/services/api-keys/keys';
import { listAuditEntries, recordAudit } from '../../src/services/audit/entries';
import { AUDIT_TARGETS, type AuditTargetType } from '../../src/services/audit/targets';
import { createMerchantRecord } from '../../src/services/organization/records';
import { allows, layerPermissions } from '../../src/domain/permissions';
import { layerOf } from '../../src/domain/level';
import { up as retargetLimitEntries } from '../../src/db/migrations/0026_audit_limit_targets';

/**
 * Audit entries (issue 20, item 3): a caller sees an entry only if it may read the record the entry is about, and
 * sees its before and after as its level's view of that record. Generated from the declarations of
 * src/services/audit/targets.ts, which are held to the recordAudit call sites of src (every targetType written is
 * declared, every declared one is written) and to the operation registry (the reading operations, their levels and
 * permissions): a new kind of audited record, a new reading operation or a changed permission is covered.
 */

const SRC = path.join(__dirname, '..', '..', 'src');
const KINDS = Object.keys(AUDIT_TARGETS) as AuditTargetType[];
const LEVELS: Level[] = ['merchant', 'tenant', 'platform'];
const CODE: Record<Level, string> = { merchant: 'M', tenant: 'T', platform: 'P' };
const ACTOR = 'audit-visibility-test';

/** The specification's data scope: what a merchant never sees (fee parts, commissions, provider, routing, risk), and what only the platform sees. */
const MERCHANT_HIDDEN = [
  'providerFee',
  'tenantFee',
  'platformFee',
  'partnerCommission',
  'commissionRate',
  'feeBreakdown',
  'providerReference',
  'providerStatus',
  'rawProviderStatus',
  'terminalId',
  'providerIntegrationId',
  'routing',
  'routingDecision',
  'risk',
  'riskDecision',
];
const PLATFORM_ONLY = ['internal'];
const HIDDEN_AT: Record<Level, string[]> = { merchant: [...MERCHANT_HIDDEN, ...PLATFORM_ONLY], tenant: PLATFORM_ONLY, platform: [] };

/** A before/after carrying every field of the data scope, at the top, nested and in a list. */
function sample(kind: string): Record<string, unknown> {
  const sensitive = Object.fromEntries([...MERCHANT_HIDDEN, ...PLATFORM_ONLY].map((k) => [k, `${k}-value`]));
  return { kind, status: 'active', ...sensitive, nested: { name: 'n', ...sensitive }, items: [{ id: 'i', ...sensitive }] };
}

/** Every key of a JSON value, at any depth. */
function keysOf(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => keysOf(v, into));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      keysOf(v, into);
    }
  }
  return into;
}

/** The registry's word: may a caller of the level holding the permissions call one of the kind's reading operations? */
function mayRead(kind: AuditTargetType, level: Level, permissions: ReadonlySet<string>): boolean {
  return AUDIT_TARGETS[kind].readBy.some((reader) => {
    const op = operations.find((o) => o.id === reader.operation)!;
    return op.levels.includes(CODE[level] as never) && allows(permissions, op.permission);
  });
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * The targetTypes the recordAudit calls of src write, directly or through an audited record's declaration
 * (auditedRecord, src/services/audit/changes.ts): a literal, or a constant of the same file (a string, or an object of
 * strings indexed by the call or by the record's function of its row). A call whose targetType cannot be read this way
 * is listed as unresolved.
 */
function writtenTargetTypes(): { types: Map<string, string[]>; unresolved: string[] } {
  const types = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = fs.readFileSync(file, 'utf8');
    const rel = path.relative(SRC, file);
    for (const call of text.matchAll(/(?:recordAudit|auditedRecord<\w+>)\((?!ctx: CallerContext)[\s\S]{0,600}?targetType:\s*([^,\n}]+)/g)) {
      const expr = call[1].trim().replace(/^\(\w*\)\s*=>\s*/, '');
      let found: string[] = [];
      const literal = /^'([a-z_]+)'$/.exec(expr);
      if (literal) found = [literal[1]];
      else {
        const name = /^([A-Za-z_]\w*)/.exec(expr)?.[1];
        const declared = name ? new RegExp(`const ${name}\\s*=\\s*([^;]+);`).exec(text)?.[1] : undefined;
        if (declared) found = [...declared.replace(/as const.*$/s, '').matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
      }
      if (!found.length) unresolved.push(`${rel}: targetType ${expr}`);
      for (const type of found) types.set(type, [...(types.get(type) ?? []), rel]);
    }
  }
  return { types, unresolved };
}

/** a merchant of its own, so that the records made here are the only ones of their kind for it */
let mine: { merchantId: string; key: string };
let second: { merchantId: string; key: string };
let otherTenantKey: string;
const entryOf = new Map<string, AuditTargetType>();

function tenantContext(overrides: Partial<CallerContext> = {}): CallerContext {
  return {
    ...operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false }),
    actor: { type: 'system', id: ACTOR },
    ...overrides,
  };
}

const h = useApiHarness();
beforeAll(async () => {
  const op = tenantContext({ actor: { type: 'system', id: 'audit-visibility-setup' } });
  const merchant = async (name: string) => {
    const m = await createMerchantRecord(op, { companyId: h.sandbox.companyId, name });
    return { merchantId: m.id, key: (await createApiKey(op, { ownerType: 'merchant', merchantId: m.id, livemode: false })).secretKey };
  };
  mine = await merchant('Audited merchant');
  second = await merchant('Another merchant');
  otherTenantKey = (await createLiveTenantKey(h)).secretKey;
  // one entry about a record of every declared kind, of the merchant, carrying every field of the data scope
  for (const kind of KINDS) {
    const targetId = `${kind}-record`;
    entryOf.set(targetId, kind);
    await recordAudit(tenantContext(), {
      action: `${kind}.updated`,
      targetType: kind,
      targetId,
      tenantId: h.sandbox.tenantId,
      merchantId: mine.merchantId,
      before: sample(kind),
      after: sample(kind),
    });
  }
});

type Entry = { action: string; target: { type: string; id: string }; before: unknown; after: unknown };

/** Every page of the caller's entries written by this test, and the totalCount each page announced. */
async function readAll(credential: string): Promise<{ entries: Entry[]; totals: number[] }> {
  const entries: Entry[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  do {
    const res = await h.as(credential).get(`/v1/audit-entries?actorId=${ACTOR}&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    entries.push(...res.body.data);
    totals.push(res.body.pagination.totalCount);
    cursor = res.body.pagination.nextCursor;
  } while (cursor);
  return { entries, totals };
}

describe(`audit entries are shown as the records they are about (${dialectName})`, () => {
  test('every targetType that recordAudit writes in src is declared, and every declared one is written', () => {
    const { types, unresolved } = writtenTargetTypes();
    expect(unresolved).toEqual([]);
    expect([...types.keys()].filter((t) => !(t in AUDIT_TARGETS))).toEqual([]);
    expect(KINDS.filter((k) => !types.has(k))).toEqual([]);
    // and the count is not trivially small: the scan does find the call sites
    expect(types.size).toBeGreaterThan(30);
  });

  test('recordAudit refuses a kind of record that has no declaration', async () => {
    await expect(
      recordAudit(tenantContext(), {
        action: 'secret.updated',
        targetType: 'secret' as AuditTargetType,
        targetId: 'x',
        tenantId: h.sandbox.tenantId,
      }),
    ).rejects.toThrow(/undeclared kind of record: secret/);
    expect(await h.rt.db.models.AuditEntry.count({ where: { targetType: 'secret' } })).toBe(0);
  });

  test('each declaration names reading operations of the registry, with their levels and permission', () => {
    for (const kind of KINDS) {
      for (const reader of AUDIT_TARGETS[kind].readBy) {
        const op = operations.find((o) => o.id === reader.operation);
        expect([kind, reader.operation, op?.method]).toEqual([kind, reader.operation, 'get']);
        expect([kind, reader.operation, [...reader.levels].map((l) => CODE[l]).sort(), reader.permission]).toEqual([
          kind,
          reader.operation,
          [...op!.levels].sort(),
          op!.permission,
        ]);
      }
    }
  });

  test.each(LEVELS)(
    'a %s caller holding one view permission sees the kinds that permission reads at its level, and no other (every permission of the layer)',
    async (level) => {
      const base =
        level === 'merchant'
          ? tenantContext({ level: 'merchant', merchantId: mine.merchantId })
          : level === 'platform'
            ? tenantContext({ level: 'platform', tenantId: null })
            : tenantContext();
      const codes = [...layerPermissions(layerOf(level))].filter((c) => c.endsWith(':view') || c.endsWith(':review'));
      for (const code of [...codes, 'none']) {
        const permissions = new Set(['access:audit:view', code]);
        const page = await listAuditEntries({ ...base, permissions }, { actorId: ACTOR }, { limit: 100, sortOrder: 'desc' });
        const seen = page.data.map((e) => e.target.type).sort();
        const expected = KINDS.filter((k) => mayRead(k, level, permissions)).sort();
        expect([level, code, seen]).toEqual([level, code, expected]);
        expect([level, code, page.pagination.totalCount]).toEqual([level, code, expected.length]);
      }
    },
  );

  test('merchant, tenant and platform: the entries of the kinds they may read, every page and totalCount agreeing, before/after at their level', async () => {
    const callers: Record<Level, string> = { merchant: mine.key, tenant: h.sandbox.tenantKey.secretKey, platform: h.sandbox.platformToken };
    const seenBy: Record<string, string[]> = {};
    for (const level of LEVELS) {
      const { entries, totals } = await readAll(callers[level]);
      const permissions = layerPermissions(layerOf(level));
      const expected = KINDS.filter((k) => mayRead(k, level, permissions)).sort();
      const seen = entries.map((e) => e.target.type).sort();
      expect([level, seen]).toEqual([level, expected]);
      expect([level, new Set(totals)]).toEqual([level, new Set([expected.length])]);
      seenBy[level] = seen;
      for (const entry of entries) {
        expect(entryOf.get(entry.target.id)).toBe(entry.target.type);
        for (const value of [entry.before, entry.after]) {
          const keys = keysOf(value);
          // nothing beyond the level's view
          expect([level, entry.target.type, HIDDEN_AT[level].filter((k) => keys.has(k))]).toEqual([level, entry.target.type, []]);
          // and the rest of the record is there
          expect(value).toMatchObject({ kind: entry.target.type, status: 'active', nested: { name: 'n' }, items: [{ id: 'i' }] });
          // what the level may see is all there
          const shown = [...MERCHANT_HIDDEN, ...PLATFORM_ONLY].filter((k) => !HIDDEN_AT[level].includes(k));
          expect(shown.filter((k) => !keys.has(k))).toEqual([]);
        }
      }
    }
    // the kinds of the issue: tenant and platform records, never a merchant's
    for (const kind of [
      'partner_assignment',
      'integration_profile',
      'fee_schedule',
      'fee_assignment',
      'terminal',
      'routing_rule',
      'partner',
      'provider_integration',
    ]) {
      expect([kind, seenBy.merchant.includes(kind), seenBy.tenant.includes(kind)]).toEqual([kind, false, true]);
    }
    // and what a merchant does read, it sees the entries of
    for (const kind of ['payment', 'refund', 'api_key', 'user', 'webhook_endpoint', 'merchant', 'withdrawal'])
      expect(seenBy.merchant).toContain(kind);
  });

  test('another merchant of the tenant, and another tenant, see none of these entries', async () => {
    expect((await readAll(second.key)).entries).toEqual([]);
    expect((await readAll(otherTenantKey)).entries).toEqual([]);
  });

  test('as the issue found it: a merchant lists no partner assignment or integration profile entry, and no commissionRate', async () => {
    const tenantKey = h.sandbox.tenantKey.secretKey;
    const partner = await h.as(tenantKey).post('/v1/admin/partners', { name: 'Referral Co' });
    expect(partner.status).toBe(201);
    const assignment = await h
      .as(tenantKey)
      .post('/v1/admin/partner-assignments', { partnerId: partner.body.data.id, merchantId: mine.merchantId, commissionRate: 15000 });
    expect(assignment.status).toBe(201);
    expect(
      (await h.as(tenantKey).patch(`/v1/admin/partner-assignments/${assignment.body.data.id}`, { commissionRate: 20000 })).status,
    ).toBe(200);
    const profile = await h
      .as(tenantKey)
      .post('/v1/admin/integration-profiles', { merchantId: mine.merchantId, mode: 'checkout', sessionLifetime: 3600 });
    expect(profile.status).toBe(201);

    const tenantView = await h.as(tenantKey).get(`/v1/audit-entries?targetId=${assignment.body.data.id}`);
    expect(tenantView.body.data.map((e: Entry) => e.action)).toEqual(['partner_assignment.updated', 'partner_assignment.created']);
    expect(tenantView.body.data[0]).toMatchObject({ before: { commissionRate: 15000 }, after: { commissionRate: 20000 } });

    const merchantView = await h.as(mine.key).get('/v1/audit-entries?limit=100');
    expect(merchantView.status).toBe(200);
    const types = merchantView.body.data.map((e: Entry) => e.target.type);
    expect(types.filter((t: string) => t === 'partner_assignment' || t === 'integration_profile')).toEqual([]);
    expect(JSON.stringify(merchantView.body)).not.toContain('commissionRate');
    expect(merchantView.body.pagination).toMatchObject({ totalCount: merchantView.body.data.length, hasMore: false });
    for (const id of [assignment.body.data.id, profile.body.data.id]) {
      const byId = await h.as(mine.key).get(`/v1/audit-entries?targetId=${id}`);
      expect([id, byId.body.data, byId.body.pagination.totalCount]).toEqual([id, [], 0]);
    }
  });

  test("migration 0026: entries written about a limit as 'limit' take their owner's kind, and are shown by it", async () => {
    const { AuditEntry } = h.rt.db.models;
    const now = h.clock.now();
    const legacy = ['merchant', 'channel', 'terminal'].map((entityType) => ({
      id: crypto.randomUUID(),
      tenantId: h.sandbox.tenantId,
      merchantId: entityType === 'merchant' ? mine.merchantId : null,
      livemode: false,
      actorType: 'system',
      actorId: `${ACTOR}-legacy`,
      action: 'limit.created',
      targetType: 'limit',
      targetId: `legacy-${entityType}-limit`,
      before: null,
      after: { entityType, status: 'active' },
      requestId: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    }));
    await AuditEntry.bulkCreate(legacy);
    await retargetLimitEntries(h.rt.db.sequelize.getQueryInterface());
    const rows = (await AuditEntry.findAll({ where: { actorId: `${ACTOR}-legacy` } })).map((r) => r.get({ plain: true }));
    expect(Object.fromEntries(rows.map((r) => [r.targetId, r.targetType]))).toEqual({
      'legacy-merchant-limit': 'merchant_limit',
      'legacy-channel-limit': 'channel_limit',
      'legacy-terminal-limit': 'terminal_limit',
    });
    const seen = (await h.as(mine.key).get(`/v1/audit-entries?actorId=${ACTOR}-legacy`)).body.data.map((e: Entry) => e.target.id);
    expect(seen).toEqual(['legacy-merchant-limit']);
    expect((await h.as(h.sandbox.tenantKey.secretKey).get(`/v1/audit-entries?actorId=${ACTOR}-legacy`)).body.pagination.totalCount).toBe(3);
  });
});
