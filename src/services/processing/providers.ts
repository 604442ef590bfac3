import fs from 'node:fs';
import net from 'node:net';
import { z } from 'zod';
import { inTransaction, type CallerContext } from '../../domain/context';
import { NotFoundError, ValidationError, type FieldIssue } from '../../domain/errors';
import { isUuid, scoped, type ListParams, type Page } from '../../db/scoped';
import type { ProviderOverlayRow } from '../../db/models';
import { fixturePath } from '../../util/paths';
import { auditRecord, auditedRecord } from '../audit/changes';
import { refusedMove, statusMachine, transition } from '../status';
import { iso } from '../present';
import { baseUrlRefusal } from '../../connectors/transport';
import { hostRefusal, systemResolver } from '../webhooks/transport';

/**
 * Provider integrations: the connector catalog of fixtures/providers.json (each connector's own declaration of
 * what it supports), validated once at load, with the platform's adjustments (status, capability overlays, the
 * connector's base URL) kept in provider_integration_overlays and merged on read. Platform-wide: they belong to no tenant and no mode.
 */

const Flag = z.strictObject({ supported: z.boolean(), implemented: z.boolean() });
const Upper3 = z.string().regex(/^[A-Z]{3}$/);
const Code = z.string().regex(/^[a-z0-9][a-z0-9_-]*$/);

/** The built-in sandbox providers of fixtures/providers.json. */
export const SANDBOX_CARD_PROVIDER_ID = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';
export const SANDBOX_PAYOUT_PROVIDER_ID = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e02';
/** The sandbox card acquirer declared as allowing one lifetime full refund per payment (no partial, no second refund). */
export const SANDBOX_SINGLE_REFUND_PROVIDER_ID = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e03';

export const PROVIDER_STATUSES = ['available', 'maintenance', 'deprecated'] as const;
export type ProviderStatus = (typeof PROVIDER_STATUSES)[number];

const CredentialSchemaFile = z
  .object({
    type: z.literal('object'),
    properties: z.record(
      z.string(),
      z.object({ type: z.literal('string'), title: z.string().optional(), secret: z.boolean().optional() }).passthrough(),
    ),
    required: z.array(z.string()),
    additionalProperties: z.boolean().optional(),
  })
  .passthrough();

const ProviderFile = z.strictObject({
  id: z.string().uuid(),
  name: z.string().min(1),
  code: Code,
  protocol: z.string().min(1),
  category: z.enum(['card_acquirer', 'payout', 'apm']),
  credentialSchema: CredentialSchemaFile,
  connectorBaseUrl: z.url(),
  connectorReleaseNonce: z.string().uuid(),
  testModeAvailable: z.boolean(),
  status: z.enum(PROVIDER_STATUSES),
  documentationUrl: z.url(),
  supportedPaymentMethods: z
    .array(
      z.strictObject({
        method: Code,
        brands: z.array(Code),
        currencies: z.array(Upper3),
        countries: z.array(z.string().regex(/^[A-Z]{2}$/)),
        supported: z.boolean(),
        implemented: z.boolean(),
        operations: z.array(
          z.strictObject({
            operation: z.enum(['authorize', 'capture', 'void', 'refund', 'payout']),
            supported: z.boolean(),
            implemented: z.boolean(),
          }),
        ),
      }),
    )
    .min(1),
  supportedFeatures: z.array(z.strictObject({ feature: Code, supported: z.boolean(), implemented: z.boolean() })),
  supportedThreeDSVersions: z.array(z.string()),
  threeDsCapabilities: z.strictObject({
    executionModels: z.array(z.strictObject({ model: z.string(), supported: z.boolean(), implemented: z.boolean() })),
    protocolVersions: z.array(z.strictObject({ version: z.string(), supported: z.boolean(), implemented: z.boolean() })),
    controls: z.strictObject({
      forceSkip: Flag,
      challengePreference: Flag,
      scaExemption: Flag,
      browserData: Flag,
      preAuthenticated: Flag,
      storedCredentialIndicator: Flag,
      supportedExemptions: z.array(z.string()),
    }),
    challengeFlows: z.array(z.strictObject({ flow: z.string(), supported: z.boolean(), implemented: z.boolean() })),
  }),
  storedCredentialCapabilities: z.strictObject({
    cardOnFile: Flag,
    recurringMit: Flag,
    installmentMit: Flag,
    oneClickCit: Flag,
    unscheduledMit: Flag,
  }),
  cutoffTimeUtc: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/),
  createdAt: z.iso.datetime(),
});

const CatalogFile = z.strictObject({ providers: z.array(ProviderFile).min(1) });

export type ProviderDeclaration = z.infer<typeof ProviderFile>;
export type CredentialSchema = ProviderDeclaration['credentialSchema'];
type SupportFlag = { supported: boolean; implemented: boolean };
export type StoredCredentialKey = keyof ProviderDeclaration['storedCredentialCapabilities'];
export const STORED_CREDENTIAL_KEYS = ['cardOnFile', 'recurringMit', 'installmentMit', 'oneClickCit', 'unscheduledMit'] as const;

let catalog: ProviderDeclaration[] | undefined;

/** Every provider integration of fixtures/providers.json, validated once at load (a broken catalog stops the process). */
export function providerCatalog(): ProviderDeclaration[] {
  if (catalog) return catalog;
  const file = fixturePath('providers.json');
  const parsed = CatalogFile.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success)
    throw new Error(`${file} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const ids = new Set<string>();
  const codes = new Set<string>();
  for (const p of parsed.data.providers) {
    if (ids.has(p.id) || codes.has(p.code)) throw new Error(`${file}: duplicate provider id or code (${p.code})`);
    ids.add(p.id);
    codes.add(p.code);
    for (const key of p.credentialSchema.required) {
      if (!(key in p.credentialSchema.properties)) throw new Error(`${file}: ${p.code} requires credential ${key} it does not describe`);
    }
  }
  catalog = parsed.data.providers;
  return catalog;
}

// ------------------------------------------------------------------------------------------------ overlays

/** What the platform adjusted, keyed by name (the stored form of a capability overlay). */
export interface CapabilityOverlay {
  paymentMethods?: Record<
    string,
    Partial<SupportFlag> & {
      brands?: string[];
      currencies?: string[];
      countries?: string[];
      operations?: Record<string, Partial<SupportFlag>>;
    }
  >;
  features?: Record<string, Partial<SupportFlag>>;
  storedCredential?: Partial<Record<StoredCredentialKey, Partial<SupportFlag>>>;
  testModeAvailable?: boolean;
  cutoffTimeUtc?: string;
}

export interface ProviderIntegration extends Omit<ProviderDeclaration, 'createdAt'> {
  /** the platform's adjustments merged into this record (null when none) */
  capabilityOverlay: CapabilityOverlay | null;
  createdAt: string;
  updatedAt: string;
}

const flag = (declared: SupportFlag, adjust?: Partial<SupportFlag>): SupportFlag => ({
  supported: adjust?.supported ?? declared.supported,
  implemented: adjust?.implemented ?? declared.implemented,
});

/** The declaration with the overlay applied. */
export function toProvider(p: ProviderDeclaration, overlay: ProviderOverlayRow | null): ProviderIntegration {
  const o = (overlay?.capabilities ?? {}) as CapabilityOverlay;
  const hasOverlay = Object.keys(o).length > 0;
  return {
    ...structuredClone(p),
    status: overlay?.status ?? p.status,
    connectorBaseUrl: overlay?.connectorBaseUrl ?? p.connectorBaseUrl,
    testModeAvailable: o.testModeAvailable ?? p.testModeAvailable,
    cutoffTimeUtc: o.cutoffTimeUtc ?? p.cutoffTimeUtc,
    supportedPaymentMethods: p.supportedPaymentMethods.map((m) => {
      const adj = o.paymentMethods?.[m.method];
      return {
        ...m,
        ...flag(m, adj),
        brands: adj?.brands ?? [...m.brands],
        currencies: adj?.currencies ?? [...m.currencies],
        countries: adj?.countries ?? [...m.countries],
        operations: m.operations.map((op) => ({ operation: op.operation, ...flag(op, adj?.operations?.[op.operation]) })),
      };
    }),
    supportedFeatures: p.supportedFeatures.map((f) => ({ feature: f.feature, ...flag(f, o.features?.[f.feature]) })),
    storedCredentialCapabilities: Object.fromEntries(
      STORED_CREDENTIAL_KEYS.map((k) => [k, flag(p.storedCredentialCapabilities[k], o.storedCredential?.[k])]),
    ) as ProviderDeclaration['storedCredentialCapabilities'],
    capabilityOverlay: hasOverlay ? o : null,
    createdAt: p.createdAt,
    updatedAt: iso(overlay?.updatedAt) ?? p.createdAt,
  };
}

function declarationOf(id: string): ProviderDeclaration {
  const p = isUuid(id) ? providerCatalog().find((c) => c.id === id) : undefined;
  if (!p) throw new NotFoundError('provider integration', id);
  return p;
}

/** One provider integration with the platform's adjustments; 404 when the catalog has no such id. */
export async function getProvider(ctx: CallerContext, id: string): Promise<ProviderIntegration> {
  const p = declarationOf(id);
  return toProvider(p, await scoped(ctx, ctx.db.models.ProviderOverlay).find(p.id));
}

/** The provider integration a field names (a terminal's providerIntegrationId): 400 naming the field when unknown. */
export async function providerForField(ctx: CallerContext, id: string, path: string): Promise<ProviderIntegration> {
  const p = isUuid(id) ? providerCatalog().find((c) => c.id === id) : undefined;
  if (!p) throw ValidationError.field(path, 'is not a provider integration of the catalog (GET /v1/admin/provider-integrations)');
  return toProvider(p, await scoped(ctx, ctx.db.models.ProviderOverlay).find(p.id));
}

export interface ProviderFilters {
  status?: ProviderStatus;
  category?: string;
  code?: string;
}

/** The catalog in createdAt order, filtered after the overlays are applied; cursor pagination as every list. */
export async function listProviders(ctx: CallerContext, filters: ProviderFilters, page: ListParams): Promise<Page<ProviderIntegration>> {
  const overlays = new Map((await scoped(ctx, ctx.db.models.ProviderOverlay).findAll()).map((o) => [o.id, o]));
  const all = providerCatalog()
    .map((p) => toProvider(p, overlays.get(p.id) ?? null))
    .filter(
      (p) =>
        (!filters.status || p.status === filters.status) &&
        (!filters.category || p.category === filters.category) &&
        (!filters.code || p.code === filters.code),
    );
  const sign = page.sortOrder === 'asc' ? 1 : -1;
  all.sort((a, b) => sign * (a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)));
  let start = 0;
  if (page.cursor !== undefined) {
    start = all.findIndex((p) => p.id === page.cursor);
    if (start < 0) throw ValidationError.field('query.cursor', 'is not a cursor of this list', 'INVALID_CURSOR');
  }
  const data = all.slice(start, start + page.limit);
  const hasMore = start + page.limit < all.length;
  return {
    data,
    pagination: {
      nextCursor: hasMore ? all[start + page.limit].id : null,
      prevCursor: start > 0 ? all[Math.max(0, start - page.limit)].id : null,
      hasMore,
      totalCount: all.length,
    },
  };
}

/** A provider integration is audited through its overlay (its id is the provider's), as the platform's. */
const PROVIDER = auditedRecord<ProviderOverlayRow>({
  model: (ctx) => ctx.db.models.ProviderOverlay,
  targetType: 'provider_integration',
  owner: () => ({ tenantId: null }),
  render: (row) => toProvider(declarationOf(row.id), row),
});

/** Every status, and none of its own (null: an overlay that shows the provider's declared status). */
const ANY_PROVIDER_STATUS = [...PROVIDER_STATUSES, null] as unknown as ProviderStatus[];
const statusChange = (to: ProviderStatus) => ({ from: ANY_PROVIDER_STATUS, to, action: 'provider_integration.status_changed' });

/** available, maintenance or deprecated, any to any (the specification's table); each move is named by its status. */
const PROVIDER_STATUS = statusMachine({
  record: PROVIDER,
  moves: { available: statusChange('available'), maintenance: statusChange('maintenance'), deprecated: statusChange('deprecated') },
  refused: refusedMove('provider integration'),
});

async function saveOverlay(
  ctx: CallerContext,
  id: string,
  changes: { capabilities?: CapabilityOverlay; connectorBaseUrl?: string | null },
): Promise<ProviderOverlayRow> {
  const access = scoped(ctx, ctx.db.models.ProviderOverlay);
  const existing = await access.find(id, { lock: true });
  if (existing) return access.update(existing, changes as Partial<ProviderOverlayRow>);
  return access.create({
    id,
    status: null,
    capabilities: (changes.capabilities ?? {}) as Record<string, unknown>,
    connectorBaseUrl: changes.connectorBaseUrl ?? null,
  });
}

/** available, maintenance or deprecated, any to any (the specification's table); platform only, audited. */
export async function setProviderStatus(ctx: CallerContext, id: string, status: ProviderStatus): Promise<ProviderIntegration> {
  return inTransaction(ctx, async (tx) => {
    const p = declarationOf(id);
    const access = scoped(tx, tx.db.models.ProviderOverlay);
    const overlay =
      (await access.find(p.id, { lock: true })) ??
      (await access.create({ id: p.id, status: null, capabilities: {}, connectorBaseUrl: null }));
    const moved = await transition(tx, PROVIDER_STATUS, overlay, status, { render: (row) => ({ status: toProvider(p, row).status }) });
    return toProvider(p, moved);
  });
}

export interface CapabilityAdjustments {
  supportedPaymentMethods?: Array<
    Partial<SupportFlag> & {
      method: string;
      brands?: string[];
      currencies?: string[];
      countries?: string[];
      operations?: Array<Partial<SupportFlag> & { operation: string }>;
    }
  >;
  supportedFeatures?: Array<Partial<SupportFlag> & { feature: string }>;
  storedCredentialCapabilities?: Partial<Record<StoredCredentialKey, Partial<SupportFlag>>>;
  testModeAvailable?: boolean;
  cutoffTimeUtc?: string;
  /** drop every earlier adjustment first */
  reset?: boolean;
}

/** An adjustment may switch a declared capability off (or back on), never claim one the connector does not declare. */
function checkFlag(issues: FieldIssue[], path: string, declared: SupportFlag, adjust: Partial<SupportFlag>): Partial<SupportFlag> {
  for (const key of ['supported', 'implemented'] as const) {
    if (adjust[key] === true && !declared[key])
      issues.push({ path: `${path}.${key}`, message: `cannot be true: the connector does not declare it ${key}` });
  }
  return Object.fromEntries(
    Object.entries({ supported: adjust.supported, implemented: adjust.implemented }).filter(([, v]) => v !== undefined),
  );
}

function subset(issues: FieldIssue[], path: string, values: string[] | undefined, declared: string[], what: string): string[] | undefined {
  if (values === undefined) return undefined;
  values.forEach((v, i) => {
    if (!declared.includes(v))
      issues.push({
        path: `${path}[${i}]`,
        message: `${v} is not among the connector's declared ${what} (${declared.join(', ') || 'none'})`,
      });
  });
  return [...new Set(values)];
}

/** Merges the adjustments into the stored overlay (PATCH semantics: what is not named stays as it was). */
export async function adjustCapabilities(ctx: CallerContext, id: string, input: CapabilityAdjustments): Promise<ProviderIntegration> {
  const p = declarationOf(id);
  const issues: FieldIssue[] = [];
  const add: CapabilityOverlay = {};
  input.supportedPaymentMethods?.forEach((m, i) => {
    const path = `body.supportedPaymentMethods[${i}]`;
    const declared = p.supportedPaymentMethods.find((d) => d.method === m.method);
    if (!declared) {
      issues.push({ path: `${path}.method`, message: `${m.method} is not a payment method the connector declares` });
      return;
    }
    const entry: NonNullable<CapabilityOverlay['paymentMethods']>[string] = { ...checkFlag(issues, path, declared, m) };
    const brands = subset(issues, `${path}.brands`, m.brands, declared.brands, 'brands');
    const currencies = subset(issues, `${path}.currencies`, m.currencies, declared.currencies, 'currencies');
    const countries = subset(issues, `${path}.countries`, m.countries, declared.countries, 'countries');
    if (brands) entry.brands = brands;
    if (currencies) entry.currencies = currencies;
    if (countries) entry.countries = countries;
    m.operations?.forEach((op, j) => {
      const d = declared.operations.find((x) => x.operation === op.operation);
      if (!d)
        issues.push({
          path: `${path}.operations[${j}].operation`,
          message: `${op.operation} is not an operation the connector declares for ${m.method}`,
        });
      else (entry.operations ??= {})[op.operation] = checkFlag(issues, `${path}.operations[${j}]`, d, op);
    });
    (add.paymentMethods ??= {})[m.method] = entry;
  });
  input.supportedFeatures?.forEach((f, i) => {
    const declared = p.supportedFeatures.find((d) => d.feature === f.feature);
    if (!declared)
      issues.push({ path: `body.supportedFeatures[${i}].feature`, message: `${f.feature} is not a feature the connector declares` });
    else (add.features ??= {})[f.feature] = checkFlag(issues, `body.supportedFeatures[${i}]`, declared, f);
  });
  for (const key of STORED_CREDENTIAL_KEYS) {
    const adj = input.storedCredentialCapabilities?.[key];
    if (adj)
      (add.storedCredential ??= {})[key] = checkFlag(
        issues,
        `body.storedCredentialCapabilities.${key}`,
        p.storedCredentialCapabilities[key],
        adj,
      );
  }
  if (input.testModeAvailable === true && !p.testModeAvailable)
    issues.push({ path: 'body.testModeAvailable', message: 'cannot be true: the connector has no test mode' });
  if (input.testModeAvailable !== undefined) add.testModeAvailable = input.testModeAvailable;
  if (input.cutoffTimeUtc !== undefined) add.cutoffTimeUtc = input.cutoffTimeUtc;
  if (issues.length)
    throw new ValidationError(`Invalid capability adjustments: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);

  return inTransaction(ctx, async (tx) => {
    const existing = await scoped(tx, tx.db.models.ProviderOverlay).find(p.id, { lock: true });
    const before = toProvider(p, existing);
    const merged = mergeOverlay(input.reset ? {} : ((existing?.capabilities ?? {}) as CapabilityOverlay), add);
    const overlay = await saveOverlay(tx, p.id, { capabilities: merged });
    const after = toProvider(p, overlay);
    await auditRecord(tx, PROVIDER, overlay, 'provider_integration.capabilities_adjusted', {
      before: { capabilityOverlay: before.capabilityOverlay },
      after: { capabilityOverlay: after.capabilityOverlay },
    });
    return after;
  });
}

// ------------------------------------------------------------------------------------------------ base URL

/** How long the save waits for a name's addresses: a name not resolved by then is saved (each connection checks it). */
const BASE_URL_RESOLVE_TIMEOUT_MS = 3_000;

/** A provider integration by its id or by its code (the CLI names providers by code): 404 when the catalog has neither. */
export function providerIdOf(idOrCode: string): string {
  const p = providerCatalog().find((c) => c.id === idOrCode || c.code === idOrCode);
  if (!p) throw new NotFoundError('provider integration', idOrCode);
  return p.id;
}

/**
 * Refuses a connector base URL that may not be called: not https, credentials in it, a literal address or localhost
 * outside PAYPLANE_CONNECTOR_ALLOW_CIDRS (baseUrlRefusal), or a name that now resolves to such an address (the check
 * the connectors' agent makes again at every connection). A name that does not resolve now is saved.
 */
async function checkBaseUrl(ctx: CallerContext, value: string, field: string): Promise<string> {
  const allow = ctx.config.connectorAllowCidrs;
  const refused = baseUrlRefusal(value, allow);
  if (refused) throw ValidationError.field(field, refused, 'CONNECTOR_BASE_URL_NOT_ALLOWED');
  const url = new URL(value);
  if (url.search || url.hash) throw ValidationError.field(field, 'must not carry a query or a fragment', 'CONNECTOR_BASE_URL_NOT_ALLOWED');
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (!net.isIP(host)) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((done) => {
      timer = setTimeout(() => done(undefined), BASE_URL_RESOLVE_TIMEOUT_MS);
    });
    const resolved = await Promise.race([systemResolver(host).catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
    const addressRefused = hostRefusal(
      host,
      (resolved ?? []).map((a) => a.address),
      allow,
    );
    if (addressRefused) throw ValidationError.field(field, addressRefused, 'CONNECTOR_BASE_URL_NOT_ALLOWED');
  }
  return url.toString().replace(/\/$/, '');
}

export interface ProviderUpdate {
  /** the base URL the provider's connector calls (https); null: back to the catalog's */
  connectorBaseUrl: string | null;
}

/** Sets the base URL the provider's connector calls (platform only, audited with the URL before and after). */
export async function updateProvider(
  ctx: CallerContext,
  id: string,
  input: ProviderUpdate,
  options: { field?: string } = {},
): Promise<ProviderIntegration> {
  const p = declarationOf(id);
  const field = options.field ?? 'body.connectorBaseUrl';
  const url = input.connectorBaseUrl === null ? null : await checkBaseUrl(ctx, input.connectorBaseUrl, field);
  return inTransaction(ctx, async (tx) => {
    const existing = await scoped(tx, tx.db.models.ProviderOverlay).find(p.id, { lock: true });
    const before = toProvider(p, existing);
    const overlay = await saveOverlay(tx, p.id, { connectorBaseUrl: url });
    const after = toProvider(p, overlay);
    await auditRecord(tx, PROVIDER, overlay, 'provider_integration.updated', {
      before: { connectorBaseUrl: before.connectorBaseUrl },
      after: { connectorBaseUrl: after.connectorBaseUrl },
    });
    return after;
  });
}

function mergeOverlay(base: CapabilityOverlay, add: CapabilityOverlay): CapabilityOverlay {
  const out: CapabilityOverlay = structuredClone(base);
  for (const [method, entry] of Object.entries(add.paymentMethods ?? {})) {
    const prev = out.paymentMethods?.[method] ?? {};
    const operations = { ...(prev.operations ?? {}) };
    for (const [op, f] of Object.entries(entry.operations ?? {})) operations[op] = { ...(operations[op] ?? {}), ...f };
    const next: typeof prev = { ...prev, ...entry };
    if (Object.keys(operations).length) next.operations = operations;
    (out.paymentMethods ??= {})[method] = next;
  }
  for (const [feature, f] of Object.entries(add.features ?? {}))
    (out.features ??= {})[feature] = { ...(out.features?.[feature] ?? {}), ...f };
  for (const [key, f] of Object.entries(add.storedCredential ?? {})) {
    (out.storedCredential ??= {})[key as StoredCredentialKey] = { ...(out.storedCredential?.[key as StoredCredentialKey] ?? {}), ...f };
  }
  if (add.testModeAvailable !== undefined) out.testModeAvailable = add.testModeAvailable;
  if (add.cutoffTimeUtc !== undefined) out.cutoffTimeUtc = add.cutoffTimeUtc;
  return out;
}

// ------------------------------------------------------------------------------------------ what a provider offers

/** Payment methods the provider supports now (after the overlay). */
export function supportedMethods(p: ProviderIntegration): ProviderIntegration['supportedPaymentMethods'] {
  return p.supportedPaymentMethods.filter((m) => m.supported);
}

/** Whether a feature is supported (after the overlay): e.g. partial_refund, single_full_refund_only. */
export function supportsFeature(p: ProviderIntegration, feature: string): boolean {
  return p.supportedFeatures.some((f) => f.feature === feature && f.supported);
}

/** 3DS protocol versions the provider supports, in its order of preference. */
export function threeDsVersions(p: ProviderIntegration): string[] {
  return p.supportedThreeDSVersions.filter((v) => p.threeDsCapabilities.protocolVersions.find((x) => x.version === v)?.supported ?? true);
}
