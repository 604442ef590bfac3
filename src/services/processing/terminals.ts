import { inTransaction, type CallerContext } from '../../domain/context';
import { ConflictError, NotFoundError, ValidationError, type FieldIssue } from '../../domain/errors';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { CredentialBindingRow, MpiAccountRow, TerminalRestrictionRow, TerminalRow, ThreeDsConfigRow } from '../../db/models';
import { newId } from '../../util/ids';
import { auditRecord, auditedRecord, auditedUpdate, givenFields, lockedRecord, updateRecord } from '../audit/changes';
import { disableOnly, moveRecord, transition } from '../status';
import { filterWhere, mapPage, presentRow, type Presented } from '../present';
import { tenantForCreate } from '../partners';
import { createLimit, disableLimit, listLimits, registerLimitEntity, type Limit, type LimitFilters, type LimitInput } from '../limits/manage';
import { providerCatalog, providerForField, supportedMethods, threeDsVersions, type CredentialSchema, type ProviderIntegration } from './providers';

/**
 * Terminals: a tenant's merchant account at a provider integration. Credentials given at create or rotate are
 * checked against the provider's credentialSchema, sealed (AES-256-GCM) into a credential binding and never
 * returned, logged or audited: a terminal shows its credentialBindingId only. A disabled terminal is read-only.
 */

// ------------------------------------------------------------------------------------------------ records

const TERMINAL_FIELDS = [
  'id', 'tenantId', 'providerIntegrationId', 'credentialBindingId', 'providerCostScheduleId', 'name', 'mcc', 'descriptor', 'direction',
  'status', 'supportedCurrencies', 'supportedBrands', 'supportedPaymentMethodTypes', 'createdAt', 'updatedAt', 'deletedAt',
] as const satisfies readonly (keyof TerminalRow)[];

export interface MpiAccount extends Omit<MpiAccountRow, 'mcc' | 'preferredVersion'> {
  /** the account's own, else the terminal's mcc */
  mcc: string | null;
  /** the account's own, else the provider's first supported 3DS version */
  preferredVersion: string | null;
}

export type ThreeDsConfig = Omit<ThreeDsConfigRow, 'mpiAccounts'> & { mpiAccounts: MpiAccount[] };

export type Terminal = Presented<Pick<TerminalRow, (typeof TERMINAL_FIELDS)[number]>> & { threeDsConfig: ThreeDsConfig };

function defaultVersion(providerId: string): string | null {
  return providerCatalog().find((p) => p.id === providerId)?.supportedThreeDSVersions[0] ?? null;
}

function toMpiAccount(row: TerminalRow, a: MpiAccountRow): MpiAccount {
  return {
    brand: a.brand, enabled: a.enabled, merchantName: a.merchantName ?? null, merchantId: a.merchantId ?? null,
    merchantCountry: a.merchantCountry ?? null, acquirerBin: a.acquirerBin ?? null,
    mcc: a.mcc ?? row.mcc ?? null, preferredVersion: a.preferredVersion ?? defaultVersion(row.providerIntegrationId),
  };
}

export function toThreeDsConfig(row: TerminalRow): ThreeDsConfig {
  const c = row.threeDsConfig;
  return { enabled: c.enabled, executionModel: c.executionModel, mpiAccounts: c.mpiAccounts.map((a) => toMpiAccount(row, a)), rules: { ...c.rules } };
}

export function toTerminal(row: TerminalRow): Terminal {
  return { ...presentRow(row, TERMINAL_FIELDS), threeDsConfig: toThreeDsConfig(row) };
}

const RESTRICTION_FIELDS = [
  'id', 'terminalId', 'action', 'paymentMethod', 'brand', 'transactionType', 'status', 'createdAt', 'updatedAt',
] as const satisfies readonly (keyof TerminalRestrictionRow)[];
export type TerminalRestriction = Presented<Pick<TerminalRestrictionRow, (typeof RESTRICTION_FIELDS)[number]>>;

export function toRestriction(row: TerminalRestrictionRow): TerminalRestriction {
  return presentRow(row, RESTRICTION_FIELDS);
}

const TERMINAL = auditedRecord<TerminalRow>({ model: (ctx) => ctx.db.models.Terminal, targetType: 'terminal', owner: (row) => ({ tenantId: row.tenantId }), render: toTerminal });

const TERMINAL_STATUS = disableOnly(TERMINAL, 'terminal.disabled', 'terminal', 'terminals');

const RESTRICTION = auditedRecord<TerminalRestrictionRow>({
  model: (ctx) => ctx.db.models.TerminalRestriction, targetType: 'terminal_restriction', owner: (row) => ({ tenantId: row.tenantId }), render: toRestriction,
});

const RESTRICTION_STATUS = disableOnly(RESTRICTION, 'terminal_restriction.disabled', 'restriction', 'restrictions');

// ------------------------------------------------------------------------------------------------ checks

/** Required keys present, no key the schema does not describe, every value a non-empty string. Never echoes a value. */
export function checkCredentials(schema: CredentialSchema, credentials: Record<string, unknown>, path = 'body.credentials'): Record<string, string> {
  const issues: FieldIssue[] = [];
  for (const key of schema.required) {
    if (credentials[key] === undefined) issues.push({ path: `${path}.${key}`, message: 'is required by the provider\'s credentialSchema' });
  }
  for (const [key, value] of Object.entries(credentials)) {
    if (!Object.hasOwn(schema.properties, key)) {
      if (schema.additionalProperties !== true) issues.push({ path: `${path}.${key}`, message: 'is not a credential field of this provider' });
    } else if (typeof value !== 'string' || value.length === 0) {
      issues.push({ path: `${path}.${key}`, message: 'must be a non-empty string' });
    }
  }
  if (issues.length) throw new ValidationError(`Invalid credentials: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues, 'INVALID_CREDENTIALS');
  return credentials as Record<string, string>;
}

interface Capabilities {
  direction: TerminalRow['direction'];
  supportedCurrencies: string[];
  supportedBrands: string[];
  supportedPaymentMethodTypes: string[];
}

const DIRECTION_OPERATION = { payin: 'authorize', payout: 'payout' } as const;

/** The terminal's methods, currencies and brands must be ones the provider supports for the terminal's direction. */
function checkCapabilities(p: ProviderIntegration, c: Capabilities, fields: Partial<Record<keyof Capabilities, boolean>>): void {
  const issues: FieldIssue[] = [];
  const operation = DIRECTION_OPERATION[c.direction];
  const offered = supportedMethods(p).filter((m) => m.operations.some((o) => o.operation === operation && o.supported));
  c.supportedPaymentMethodTypes.forEach((method, i) => {
    if (!offered.some((m) => m.method === method)) {
      issues.push({
        path: `body.supportedPaymentMethodTypes[${i}]`,
        message: `${method} is not a payment method ${p.code} supports for ${c.direction} (${offered.map((m) => m.method).join(', ') || 'none'})`,
      });
    }
  });
  // currencies and brands are judged against valid methods only: a wrong method is the one error to report
  if (issues.length) throw new ValidationError(`Unsupported by the provider: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues, 'UNSUPPORTED_BY_PROVIDER');
  const chosen = offered.filter((m) => c.supportedPaymentMethodTypes.includes(m.method));
  const currencies = new Set(chosen.flatMap((m) => m.currencies));
  const brands = new Set(chosen.flatMap((m) => m.brands));
  if (fields.supportedCurrencies || fields.supportedPaymentMethodTypes) {
    c.supportedCurrencies.forEach((cur, i) => {
      if (!currencies.has(cur)) issues.push({ path: `body.supportedCurrencies[${i}]`, message: `${cur} is not a currency ${p.code} supports for these payment methods (${[...currencies].join(', ')})` });
    });
  }
  if (fields.supportedBrands || fields.supportedPaymentMethodTypes) {
    c.supportedBrands.forEach((b, i) => {
      if (!brands.has(b)) issues.push({ path: `body.supportedBrands[${i}]`, message: `${b} is not a brand ${p.code} supports for these payment methods (${[...brands].join(', ') || 'none'})` });
    });
  }
  if (issues.length) throw new ValidationError(`Unsupported by the provider: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues, 'UNSUPPORTED_BY_PROVIDER');
}

function writable(row: TerminalRow): void {
  if (row.status !== 'active') {
    throw new ConflictError('TERMINAL_DISABLED', `Terminal ${row.id} is disabled: it cannot be changed.`, { hint: 'A disabled terminal is kept for the record; create a new one.' });
  }
}

async function seal(ctx: CallerContext, terminal: { id: string; tenantId: string; providerIntegrationId: string }, credentials: Record<string, string>) {
  return scoped(ctx, ctx.db.models.CredentialBinding).create({
    tenantId: terminal.tenantId, terminalId: terminal.id, providerIntegrationId: terminal.providerIntegrationId,
    credentialsSealed: ctx.sealer.seal(JSON.stringify(credentials)), status: 'active', replacedAt: null,
  });
}

/** The terminal's credentials in plain text, for a connector call only (never for a response, a log or an audit entry). */
export async function openCredentials(ctx: CallerContext, terminalId: string, read?: TerminalRow): Promise<Record<string, string>> {
  // the terminal as the caller just read it, when it did (the provider call reads it to pick the connector)
  const terminal = read?.id === terminalId ? read : await scoped(ctx, ctx.db.models.Terminal).get(terminalId);
  return openBinding(ctx, await scoped(ctx, ctx.db.models.CredentialBinding).get(terminal.credentialBindingId));
}

/** A binding's credentials, opened (for one provider call: never kept or logged). */
export function openBinding(ctx: CallerContext, binding: CredentialBindingRow): Record<string, string> {
  return JSON.parse(ctx.sealer.open(binding.credentialsSealed)) as Record<string, string>;
}

// ------------------------------------------------------------------------------------------------ 3DS

export interface MpiAccountInput {
  brand: string;
  enabled?: boolean;
  merchantName?: string | null;
  merchantId?: string | null;
  merchantCountry?: string | null;
  acquirerBin?: string | null;
  mcc?: string | null;
  preferredVersion?: string | null;
}

export interface ThreeDsConfigInput {
  enabled: boolean;
  executionModel: string;
  mpiAccounts?: MpiAccountInput[];
  rules: ThreeDsConfigRow['rules'];
}

const DEFAULT_RULES = { processOnly3dsCards: false, declineOnAttemptStatus: false, allowMerchantDisable: true };

function defaultThreeDs(p: ProviderIntegration): ThreeDsConfigRow {
  const model = p.threeDsCapabilities.executionModels.find((m) => m.supported)?.model ?? 'gateway_full';
  return { enabled: false, executionModel: model, mpiAccounts: [], rules: { ...DEFAULT_RULES } };
}

function mpiRow(input: MpiAccountInput): MpiAccountRow {
  return {
    brand: input.brand, enabled: input.enabled ?? true, merchantName: input.merchantName ?? null, merchantId: input.merchantId ?? null,
    merchantCountry: input.merchantCountry ?? null, acquirerBin: input.acquirerBin ?? null, mcc: input.mcc ?? null, preferredVersion: input.preferredVersion ?? null,
  };
}

function checkMpi(p: ProviderIntegration, brands: string[], a: Partial<MpiAccountInput>, path: string, issues: FieldIssue[]): void {
  if (a.brand !== undefined && !brands.includes(a.brand)) {
    issues.push({ path: `${path}brand`, message: `${a.brand} is not one of the terminal's supportedBrands (${brands.join(', ') || 'none'})` });
  }
  const versions = threeDsVersions(p);
  if (a.preferredVersion != null && !versions.includes(a.preferredVersion)) {
    issues.push({ path: `${path}preferredVersion`, message: `must be a 3DS version ${p.code} supports (${versions.join(', ') || 'none'})` });
  }
}

function checkThreeDs(p: ProviderIntegration, row: Pick<TerminalRow, 'supportedBrands'>, input: ThreeDsConfigInput, base = 'body.'): void {
  const issues: FieldIssue[] = [];
  const models = p.threeDsCapabilities.executionModels.filter((m) => m.supported).map((m) => m.model);
  if (!models.includes(input.executionModel)) {
    issues.push({ path: `${base}executionModel`, message: `must be a 3DS execution model ${p.code} supports (${models.join(', ') || 'none'})` });
  }
  if (input.enabled && threeDsVersions(p).length === 0) issues.push({ path: `${base}enabled`, message: `cannot be true: ${p.code} supports no 3DS version` });
  const seen = new Set<string>();
  (input.mpiAccounts ?? []).forEach((a, i) => {
    if (seen.has(a.brand)) issues.push({ path: `${base}mpiAccounts[${i}].brand`, message: `${a.brand} appears twice: one MPI account per brand` });
    seen.add(a.brand);
    checkMpi(p, row.supportedBrands, a, `${base}mpiAccounts[${i}].`, issues);
  });
  if (issues.length) throw new ValidationError(`Invalid 3DS configuration: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
}

// ------------------------------------------------------------------------------------------------ terminals

export interface CreateTerminalInput {
  tenantId?: string;
  providerIntegrationId: string;
  name: string;
  credentials: Record<string, string>;
  mcc?: string | null;
  descriptor?: string | null;
  direction?: TerminalRow['direction'];
  supportedCurrencies: string[];
  supportedBrands?: string[];
  supportedPaymentMethodTypes?: string[];
  providerCostScheduleId?: string | null;
  threeDsConfig?: ThreeDsConfigInput;
}

export interface UpdateTerminalInput {
  name?: string;
  mcc?: string | null;
  descriptor?: string | null;
  supportedCurrencies?: string[];
  supportedBrands?: string[];
  supportedPaymentMethodTypes?: string[];
  providerCostScheduleId?: string | null;
}

export interface TerminalFilters {
  tenantId?: string;
  status?: TerminalRow['status'];
  direction?: TerminalRow['direction'];
  providerIntegrationId?: string;
}

const uniq = (values: string[]) => [...new Set(values)];

/**
 * A terminal's provider cost schedule: a fee schedule the caller sees (404 naming the field otherwise) of the
 * terminal's tenant, or a platform schedule (tenantId null, which only platform callers see). Never another
 * tenant's, whoever names it (a platform caller sees every tenant's).
 */
async function costSchedule(ctx: CallerContext, tenantId: string, id: string | null | undefined): Promise<string | null | undefined> {
  if (id === undefined || id === null) return id;
  const field = 'body.providerCostScheduleId';
  const schedule = await scoped(ctx, ctx.db.models.FeeSchedule).find(id);
  if (!schedule) throw new NotFoundError('fee schedule', id, { errors: [{ path: field, message: 'no such fee schedule' }] });
  if (schedule.tenantId !== null && schedule.tenantId !== tenantId) throw ValidationError.field(field, 'is a fee schedule of another tenant than the terminal\'s');
  return schedule.id;
}

export async function createTerminal(ctx: CallerContext, input: CreateTerminalInput): Promise<Terminal> {
  return inTransaction(ctx, async (tx) => {
    const tenantId = await tenantForCreate(tx, input.tenantId);
    const p = await providerForField(tx, input.providerIntegrationId, 'body.providerIntegrationId');
    if (p.status === 'deprecated') {
      throw new ConflictError('PROVIDER_DEPRECATED', `Provider integration ${p.code} is deprecated: it takes no new terminals.`);
    }
    const credentials = checkCredentials(p.credentialSchema, input.credentials);
    const natural: TerminalRow['direction'] = p.category === 'payout' ? 'payout' : 'payin';
    const direction = input.direction ?? natural;
    if (direction !== natural) throw ValidationError.field('body.direction', `must be ${natural} for a ${p.category} provider integration`);
    const offered = supportedMethods(p).filter((m) => m.operations.some((o) => o.operation === DIRECTION_OPERATION[direction] && o.supported));
    const methods = uniq(input.supportedPaymentMethodTypes ?? offered.map((m) => m.method));
    const brands = uniq(input.supportedBrands ?? offered.filter((m) => methods.includes(m.method)).flatMap((m) => m.brands));
    const caps = { direction, supportedCurrencies: uniq(input.supportedCurrencies), supportedBrands: brands, supportedPaymentMethodTypes: methods };
    checkCapabilities(p, caps, { supportedCurrencies: true, supportedBrands: true, supportedPaymentMethodTypes: true });
    const threeDs = input.threeDsConfig ?? null;
    if (threeDs) checkThreeDs(p, caps, threeDs, 'body.threeDsConfig.');
    const providerCostScheduleId = await costSchedule(tx, tenantId, input.providerCostScheduleId);
    const id = newId();
    const binding = await seal(tx, { id, tenantId, providerIntegrationId: p.id }, credentials);
    const row = await scoped(tx, tx.db.models.Terminal).create({
      id, tenantId, providerIntegrationId: p.id, credentialBindingId: binding.id, providerCostScheduleId: providerCostScheduleId ?? null,
      name: input.name, mcc: input.mcc ?? null, descriptor: input.descriptor ?? null, status: 'active', ...caps,
      threeDsConfig: threeDs
        ? { enabled: threeDs.enabled, executionModel: threeDs.executionModel, mpiAccounts: (threeDs.mpiAccounts ?? []).map(mpiRow), rules: { ...threeDs.rules } }
        : defaultThreeDs(p),
    });
    const terminal = toTerminal(row);
    await auditRecord(tx, TERMINAL, row, 'terminal.created', { after: terminal });
    return terminal;
  });
}

export async function listTerminals(ctx: CallerContext, filters: TerminalFilters, page: ListParams): Promise<Page<Terminal>> {
  const where: Record<string, unknown> = filterWhere(filters, ['tenantId', 'status', 'direction', 'providerIntegrationId']);
  return mapPage(await scoped(ctx, ctx.db.models.Terminal).list(where, page), toTerminal);
}

export async function getTerminal(ctx: CallerContext, id: string): Promise<Terminal> {
  return toTerminal(await scoped(ctx, ctx.db.models.Terminal).get(id));
}

async function provider(ctx: CallerContext, row: TerminalRow): Promise<ProviderIntegration> {
  return providerForField(ctx, row.providerIntegrationId, 'providerIntegrationId');
}

/** Changes the given fields; the lists replace the old ones and are checked against the provider again. */
export async function updateTerminal(ctx: CallerContext, id: string, input: UpdateTerminalInput): Promise<Terminal> {
  return toTerminal(await updateRecord(ctx, TERMINAL, id, async (row, tx) => {
    writable(row);
    const changes: Partial<TerminalRow> = givenFields(input, ['name', 'mcc', 'descriptor']);
    if (input.providerCostScheduleId !== undefined) changes.providerCostScheduleId = (await costSchedule(tx, row.tenantId, input.providerCostScheduleId)) ?? null;
    if (input.supportedCurrencies !== undefined) changes.supportedCurrencies = uniq(input.supportedCurrencies);
    if (input.supportedBrands !== undefined) changes.supportedBrands = uniq(input.supportedBrands);
    if (input.supportedPaymentMethodTypes !== undefined) changes.supportedPaymentMethodTypes = uniq(input.supportedPaymentMethodTypes);
    if (input.supportedCurrencies || input.supportedBrands || input.supportedPaymentMethodTypes) {
      checkCapabilities(await provider(tx, row), {
        direction: row.direction,
        supportedCurrencies: changes.supportedCurrencies ?? row.supportedCurrencies,
        supportedBrands: changes.supportedBrands ?? row.supportedBrands,
        supportedPaymentMethodTypes: changes.supportedPaymentMethodTypes ?? row.supportedPaymentMethodTypes,
      }, { supportedCurrencies: !!input.supportedCurrencies, supportedBrands: !!input.supportedBrands, supportedPaymentMethodTypes: !!input.supportedPaymentMethodTypes });
    }
    return changes;
  }, { action: 'terminal.updated' }));
}

/** active -> disabled; 409 when already disabled. */
export async function disableTerminal(ctx: CallerContext, id: string): Promise<Terminal> {
  return toTerminal(await moveRecord(ctx, TERMINAL_STATUS, id, 'disable'));
}

/** A new credential binding (new id) replaces the current one, which is kept sealed and marked replaced. */
export async function rotateCredentials(ctx: CallerContext, id: string, credentials: Record<string, string>): Promise<Terminal> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, TERMINAL, id);
    writable(row);
    const p = await provider(tx, row);
    const checked = checkCredentials(p.credentialSchema, credentials);
    const bindings = scoped(tx, tx.db.models.CredentialBinding);
    const old = await bindings.find(row.credentialBindingId, { lock: true });
    if (old) await bindings.update(old, { status: 'replaced', replacedAt: tx.clock.now() });
    const binding = await seal(tx, row, checked);
    // the binding ids under names the audit redaction leaves readable; never a credential value
    const updated = await auditedUpdate(tx, TERMINAL, row, { credentialBindingId: binding.id }, {
      action: 'terminal.credentials_rotated', render: (r) => ({ bindingId: r.credentialBindingId }),
    });
    return toTerminal(updated);
  });
}

export async function getThreeDsConfig(ctx: CallerContext, id: string): Promise<ThreeDsConfig> {
  return toThreeDsConfig(await scoped(ctx, ctx.db.models.Terminal).get(id));
}

async function changeThreeDs(
  ctx: CallerContext,
  id: string,
  action: string,
  change: (row: TerminalRow, p: ProviderIntegration) => ThreeDsConfigRow,
): Promise<TerminalRow> {
  return updateRecord(ctx, TERMINAL, id, async (row, tx) => {
    writable(row);
    return { threeDsConfig: change(row, await provider(tx, row)) };
  }, { action, render: (r) => ({ threeDsConfig: toThreeDsConfig(r) }) });
}

/** Replaces the whole 3DS configuration (MPI accounts included). */
export async function putThreeDsConfig(ctx: CallerContext, id: string, input: ThreeDsConfigInput, options: { keepMpiAccounts?: boolean } = {}): Promise<Terminal> {
  const row = await changeThreeDs(ctx, id, 'terminal.3ds_config_replaced', (r, p) => {
    checkThreeDs(p, r, input);
    const mpiAccounts = options.keepMpiAccounts ? r.threeDsConfig.mpiAccounts : (input.mpiAccounts ?? []).map(mpiRow);
    return { enabled: input.enabled, executionModel: input.executionModel, mpiAccounts, rules: { ...input.rules } };
  });
  return toTerminal(row);
}

function mpiNotFound(id: string, brand: string): NotFoundError {
  return new NotFoundError('MPI account', brand, { detail: `Terminal ${id} has no MPI account for brand ${brand}.` });
}

/** One MPI account per brand: 409 MPI_ACCOUNT_EXISTS when the brand has one. */
export async function addMpiAccount(ctx: CallerContext, id: string, input: MpiAccountInput): Promise<MpiAccount> {
  const row = await changeThreeDs(ctx, id, 'terminal.mpi_account_added', (r, p) => {
    const issues: FieldIssue[] = [];
    checkMpi(p, r.supportedBrands, input, 'body.', issues);
    if (issues.length) throw new ValidationError(`Invalid MPI account: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
    if (r.threeDsConfig.mpiAccounts.some((a) => a.brand === input.brand)) {
      throw new ConflictError('MPI_ACCOUNT_EXISTS', `Terminal ${id} already has an MPI account for ${input.brand}.`, { hint: 'Update it with PATCH …/mpi-accounts/{brand}.' });
    }
    return { ...r.threeDsConfig, mpiAccounts: [...r.threeDsConfig.mpiAccounts, mpiRow(input)] };
  });
  return toMpiAccount(row, row.threeDsConfig.mpiAccounts.find((a) => a.brand === input.brand)!);
}

export async function updateMpiAccount(ctx: CallerContext, id: string, brand: string, input: Omit<MpiAccountInput, 'brand'>): Promise<MpiAccount> {
  const row = await changeThreeDs(ctx, id, 'terminal.mpi_account_updated', (r, p) => {
    const current = r.threeDsConfig.mpiAccounts.find((a) => a.brand === brand);
    if (!current) throw mpiNotFound(id, brand);
    const issues: FieldIssue[] = [];
    checkMpi(p, r.supportedBrands, { preferredVersion: input.preferredVersion }, 'body.', issues);
    if (issues.length) throw new ValidationError(`Invalid MPI account: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
    const next: MpiAccountRow = { ...current };
    for (const key of ['enabled', 'merchantName', 'merchantId', 'merchantCountry', 'acquirerBin', 'mcc', 'preferredVersion'] as const) {
      if (input[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = input[key];
    }
    return { ...r.threeDsConfig, mpiAccounts: r.threeDsConfig.mpiAccounts.map((a) => (a.brand === brand ? next : a)) };
  });
  return toMpiAccount(row, row.threeDsConfig.mpiAccounts.find((a) => a.brand === brand)!);
}

/** Removes the brand's MPI account; answers with the terminal. */
export async function deleteMpiAccount(ctx: CallerContext, id: string, brand: string): Promise<Terminal> {
  const row = await changeThreeDs(ctx, id, 'terminal.mpi_account_deleted', (r) => {
    if (!r.threeDsConfig.mpiAccounts.some((a) => a.brand === brand)) throw mpiNotFound(id, brand);
    return { ...r.threeDsConfig, mpiAccounts: r.threeDsConfig.mpiAccounts.filter((a) => a.brand !== brand) };
  });
  return toTerminal(row);
}

// ------------------------------------------------------------------------------------------------ restrictions

export interface RestrictionInput {
  action?: TerminalRestrictionRow['action'];
  paymentMethod?: string | null;
  brand?: string | null;
  transactionType?: TerminalRestrictionRow['transactionType'];
}

function checkRestriction(row: TerminalRow, input: RestrictionInput): void {
  const issues: FieldIssue[] = [];
  if (input.paymentMethod && !row.supportedPaymentMethodTypes.includes(input.paymentMethod)) {
    issues.push({ path: 'body.paymentMethod', message: `must be one of the terminal's supportedPaymentMethodTypes (${row.supportedPaymentMethodTypes.join(', ')})` });
  }
  if (input.brand && !row.supportedBrands.includes(input.brand)) {
    issues.push({ path: 'body.brand', message: `must be one of the terminal's supportedBrands (${row.supportedBrands.join(', ') || 'none'})` });
  }
  if (issues.length) throw new ValidationError(`Invalid restriction: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
}

export async function createRestriction(ctx: CallerContext, terminalId: string, input: RestrictionInput & { action: TerminalRestrictionRow['action'] }): Promise<TerminalRestriction> {
  return inTransaction(ctx, async (tx) => {
    const terminal = await scoped(tx, tx.db.models.Terminal).get(terminalId, { lock: true });
    writable(terminal);
    checkRestriction(terminal, input);
    const row = await scoped(tx, tx.db.models.TerminalRestriction).create({
      tenantId: terminal.tenantId, terminalId, action: input.action, paymentMethod: input.paymentMethod ?? null, brand: input.brand ?? null,
      transactionType: input.transactionType ?? (terminal.direction === 'payout' ? 'payout' : 'payment'), status: 'active',
    });
    const restriction = toRestriction(row);
    await auditRecord(tx, RESTRICTION, row, 'terminal_restriction.created', { after: restriction });
    return restriction;
  });
}

export async function listRestrictions(ctx: CallerContext, terminalId: string, filters: { status?: TerminalRestrictionRow['status'] }, page: ListParams): Promise<Page<TerminalRestriction>> {
  await scoped(ctx, ctx.db.models.Terminal).get(terminalId);
  const where: Record<string, unknown> = { terminalId };
  if (filters.status) where.status = filters.status;
  return mapPage(await scoped(ctx, ctx.db.models.TerminalRestriction).list(where, page), toRestriction);
}

/** One restriction of a terminal (404 when there is none with that id on that terminal). */
export async function getRestriction(ctx: CallerContext, terminalId: string, restrictionId: string): Promise<TerminalRestriction> {
  await scoped(ctx, ctx.db.models.Terminal).get(terminalId);
  const row = await scoped(ctx, ctx.db.models.TerminalRestriction).find(restrictionId);
  if (!row || row.terminalId !== terminalId) throw new NotFoundError('restriction', restrictionId);
  return toRestriction(row);
}

async function restrictionOf(ctx: CallerContext, terminalId: string, restrictionId: string): Promise<{ terminal: TerminalRow; row: TerminalRestrictionRow }> {
  const terminal = await scoped(ctx, ctx.db.models.Terminal).get(terminalId, { lock: true });
  const row = await scoped(ctx, ctx.db.models.TerminalRestriction).find(restrictionId, { lock: true });
  if (!row || row.terminalId !== terminalId) throw new NotFoundError('restriction', restrictionId);
  return { terminal, row };
}

/** Changes the given fields of an active restriction (409 when disabled). */
export async function updateRestriction(ctx: CallerContext, terminalId: string, restrictionId: string, input: RestrictionInput): Promise<TerminalRestriction> {
  return inTransaction(ctx, async (tx) => {
    const { terminal, row } = await restrictionOf(tx, terminalId, restrictionId);
    writable(terminal);
    if (row.status !== 'active') throw new ConflictError('INVALID_STATE_TRANSITION', 'A disabled restriction cannot be changed.', { hint: 'Create a new restriction.' });
    checkRestriction(terminal, input);
    const changes = givenFields(input, ['action', 'paymentMethod', 'brand', 'transactionType']);
    const refused = () => new ConflictError('INVALID_STATE_TRANSITION', 'A disabled restriction cannot be changed.');
    return toRestriction(await auditedUpdate(tx, RESTRICTION, row, changes, { action: 'terminal_restriction.updated', expect: { status: 'active' }, refused }));
  });
}

/** active -> disabled; 409 when already disabled. */
export async function disableRestriction(ctx: CallerContext, terminalId: string, restrictionId: string): Promise<TerminalRestriction> {
  return inTransaction(ctx, async (tx) => {
    const { row } = await restrictionOf(tx, terminalId, restrictionId);
    return toRestriction(await transition(tx, RESTRICTION_STATUS, row, 'disable'));
  });
}

// ------------------------------------------------------------------------------------------------ limits

registerLimitEntity('terminal', async (ctx, id) => {
  const terminal = await scoped(ctx, ctx.db.models.Terminal).get(id);
  return { tenantId: terminal.tenantId, merchantId: null };
});

/** A terminal limit (the shared limit model); its currency must be one the terminal supports. */
export async function createTerminalLimit(ctx: CallerContext, terminalId: string, input: LimitInput): Promise<Limit> {
  return inTransaction(ctx, async (tx) => {
    const terminal = await scoped(tx, tx.db.models.Terminal).get(terminalId, { lock: true });
    writable(terminal);
    if (input.currency && !terminal.supportedCurrencies.includes(input.currency)) {
      throw ValidationError.field('body.currency', `must be one of the terminal's supportedCurrencies (${terminal.supportedCurrencies.join(', ')})`);
    }
    return createLimit(tx, { ...input, entityType: 'terminal', entityId: terminalId });
  });
}

export async function listTerminalLimits(ctx: CallerContext, terminalId: string, filters: LimitFilters, page: ListParams): Promise<Page<Limit>> {
  return listLimits(ctx, { entityType: 'terminal', entityId: terminalId }, filters, page);
}

export async function disableTerminalLimit(ctx: CallerContext, terminalId: string, limitId: string): Promise<Limit> {
  return disableLimit(ctx, { entityType: 'terminal', entityId: terminalId }, limitId);
}
