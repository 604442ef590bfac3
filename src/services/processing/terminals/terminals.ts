import { inTransaction, type CallerContext } from '../../../domain/context';
import { ConflictError, NotFoundError, ValidationError, type FieldIssue } from '../../../domain/errors';
import { scoped, type ListParams, type Page } from '../../../db/scoped';
import type { TerminalRow } from '../../../db/models';
import { newId } from '../../../util/ids';
import { auditRecord, givenFields, updateRecord } from '../../audit/changes';
import { moveRecord } from '../../status';
import { filterWhere, mapPage } from '../../present';
import { tenantForCreate } from '../../partners';
import { providerForField, supportedMethods, type ProviderIntegration } from '../providers';
import { TERMINAL, TERMINAL_STATUS, terminalProvider, toTerminal, writable, type Terminal } from './record';
import { checkCredentials, rotateCredentials, seal } from './credentials';
import { credentialProblem } from '../../provider-call';
import { checkThreeDs, defaultThreeDs, mpiRow, type ThreeDsConfigInput } from './three-ds';

/**
 * Terminals: a tenant's merchant account at a provider integration. Credentials given at create or rotate are
 * checked against the provider's credentialSchema, sealed (AES-256-GCM) into a credential binding and never
 * returned, logged or audited: a terminal shows its credentialBindingId only. A disabled terminal is read-only.
 *
 * Its sub-resources, one file each beside this one: credentials (credential bindings), 3DS configuration, MPI accounts,
 * restrictions, limits; record.ts holds what they share.
 */

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
  if (issues.length)
    throw new ValidationError(
      `Unsupported by the provider: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      issues,
      'UNSUPPORTED_BY_PROVIDER',
    );
  const chosen = offered.filter((m) => c.supportedPaymentMethodTypes.includes(m.method));
  const currencies = new Set(chosen.flatMap((m) => m.currencies));
  const brands = new Set(chosen.flatMap((m) => m.brands));
  if (fields.supportedCurrencies || fields.supportedPaymentMethodTypes) {
    c.supportedCurrencies.forEach((cur, i) => {
      if (!currencies.has(cur))
        issues.push({
          path: `body.supportedCurrencies[${i}]`,
          message: `${cur} is not a currency ${p.code} supports for these payment methods (${[...currencies].join(', ')})`,
        });
    });
  }
  if (fields.supportedBrands || fields.supportedPaymentMethodTypes) {
    c.supportedBrands.forEach((b, i) => {
      if (!brands.has(b))
        issues.push({
          path: `body.supportedBrands[${i}]`,
          message: `${b} is not a brand ${p.code} supports for these payment methods (${[...brands].join(', ') || 'none'})`,
        });
    });
  }
  if (issues.length)
    throw new ValidationError(
      `Unsupported by the provider: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      issues,
      'UNSUPPORTED_BY_PROVIDER',
    );
}

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
  /** which environment of its acquirer the terminal talks to (default: the caller's mode) */
  livemode?: boolean;
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
  if (schedule.tenantId !== null && schedule.tenantId !== tenantId)
    throw ValidationError.field(field, "is a fee schedule of another tenant than the terminal's");
  return schedule.id;
}

/**
 * Credentials the provider's connector refuses for a terminal of this mode (a Stripe sk_test_ key on a live terminal):
 * 400 with the connector's code (CREDENTIALS_MODE_MISMATCH …) naming the field, never echoing a value.
 */
function checkForMode(p: ProviderIntegration, credentials: Record<string, string>, livemode: boolean): Record<string, string> {
  const problem = credentialProblem(p.code, credentials, livemode);
  if (!problem) return credentials;
  const path = `body.credentials.${problem.field}`;
  throw new ValidationError(`Invalid credentials: ${path} ${problem.message}`, [{ path, message: problem.message }], problem.code);
}

/**
 * A new credential binding for the terminal (credentials.ts rotateCredentials), once the credentials fit its
 * provider's credentialSchema and its connector's check for the terminal's own mode (both fixed for a terminal).
 */
export async function rotateTerminalCredentials(ctx: CallerContext, id: string, credentials: Record<string, string>): Promise<Terminal> {
  const row = await scoped(ctx, ctx.db.models.Terminal).get(id);
  const p = await terminalProvider(ctx, row);
  checkForMode(p, checkCredentials(p.credentialSchema, credentials), Boolean(row.livemode));
  return rotateCredentials(ctx, id, credentials);
}

export async function createTerminal(ctx: CallerContext, input: CreateTerminalInput): Promise<Terminal> {
  return inTransaction(ctx, async (tx) => {
    const tenantId = await tenantForCreate(tx, input.tenantId);
    const p = await providerForField(tx, input.providerIntegrationId, 'body.providerIntegrationId');
    if (p.status === 'deprecated') {
      throw new ConflictError('PROVIDER_DEPRECATED', `Provider integration ${p.code} is deprecated: it takes no new terminals.`);
    }
    const livemode = input.livemode ?? ctx.livemode;
    const credentials = checkForMode(p, checkCredentials(p.credentialSchema, input.credentials), livemode);
    const natural: TerminalRow['direction'] = p.category === 'payout' ? 'payout' : 'payin';
    const direction = input.direction ?? natural;
    if (direction !== natural) throw ValidationError.field('body.direction', `must be ${natural} for a ${p.category} provider integration`);
    const offered = supportedMethods(p).filter((m) =>
      m.operations.some((o) => o.operation === DIRECTION_OPERATION[direction] && o.supported),
    );
    const methods = uniq(input.supportedPaymentMethodTypes ?? offered.map((m) => m.method));
    const brands = uniq(input.supportedBrands ?? offered.filter((m) => methods.includes(m.method)).flatMap((m) => m.brands));
    const caps = {
      direction,
      supportedCurrencies: uniq(input.supportedCurrencies),
      supportedBrands: brands,
      supportedPaymentMethodTypes: methods,
    };
    checkCapabilities(p, caps, { supportedCurrencies: true, supportedBrands: true, supportedPaymentMethodTypes: true });
    const threeDs = input.threeDsConfig ?? null;
    if (threeDs) checkThreeDs(p, caps, threeDs, 'body.threeDsConfig.');
    const providerCostScheduleId = await costSchedule(tx, tenantId, input.providerCostScheduleId);
    const id = newId();
    const binding = await seal(tx, { id, tenantId, providerIntegrationId: p.id }, credentials);
    const row = await scoped(tx, tx.db.models.Terminal).create({
      id,
      tenantId,
      providerIntegrationId: p.id,
      credentialBindingId: binding.id,
      providerCostScheduleId: providerCostScheduleId ?? null,
      name: input.name,
      mcc: input.mcc ?? null,
      descriptor: input.descriptor ?? null,
      status: 'active',
      livemode,
      ...caps,
      threeDsConfig: threeDs
        ? {
            enabled: threeDs.enabled,
            executionModel: threeDs.executionModel,
            mpiAccounts: (threeDs.mpiAccounts ?? []).map(mpiRow),
            rules: { ...threeDs.rules },
          }
        : defaultThreeDs(p),
    });
    const terminal = toTerminal(row, tx);
    await auditRecord(tx, TERMINAL, row, 'terminal.created', { after: terminal });
    return terminal;
  });
}

export async function listTerminals(ctx: CallerContext, filters: TerminalFilters, page: ListParams): Promise<Page<Terminal>> {
  const where: Record<string, unknown> = filterWhere(filters, ['tenantId', 'status', 'direction', 'providerIntegrationId']);
  return mapPage(await scoped(ctx, ctx.db.models.Terminal).list(where, page), (row) => toTerminal(row, ctx));
}

export async function getTerminal(ctx: CallerContext, id: string): Promise<Terminal> {
  return toTerminal(await scoped(ctx, ctx.db.models.Terminal).get(id), ctx);
}

/** Changes the given fields; the lists replace the old ones and are checked against the provider again. */
export async function updateTerminal(ctx: CallerContext, id: string, input: UpdateTerminalInput): Promise<Terminal> {
  return toTerminal(
    await updateRecord(
      ctx,
      TERMINAL,
      id,
      async (row, tx) => {
        writable(row);
        const changes: Partial<TerminalRow> = givenFields(input, ['name', 'mcc', 'descriptor']);
        if (input.providerCostScheduleId !== undefined)
          changes.providerCostScheduleId = (await costSchedule(tx, row.tenantId, input.providerCostScheduleId)) ?? null;
        if (input.supportedCurrencies !== undefined) changes.supportedCurrencies = uniq(input.supportedCurrencies);
        if (input.supportedBrands !== undefined) changes.supportedBrands = uniq(input.supportedBrands);
        if (input.supportedPaymentMethodTypes !== undefined) changes.supportedPaymentMethodTypes = uniq(input.supportedPaymentMethodTypes);
        if (input.supportedCurrencies || input.supportedBrands || input.supportedPaymentMethodTypes) {
          checkCapabilities(
            await terminalProvider(tx, row),
            {
              direction: row.direction,
              supportedCurrencies: changes.supportedCurrencies ?? row.supportedCurrencies,
              supportedBrands: changes.supportedBrands ?? row.supportedBrands,
              supportedPaymentMethodTypes: changes.supportedPaymentMethodTypes ?? row.supportedPaymentMethodTypes,
            },
            {
              supportedCurrencies: !!input.supportedCurrencies,
              supportedBrands: !!input.supportedBrands,
              supportedPaymentMethodTypes: !!input.supportedPaymentMethodTypes,
            },
          );
        }
        return changes;
      },
      { action: 'terminal.updated' },
    ),
    ctx,
  );
}

/** active -> disabled; 409 when already disabled. */
export async function disableTerminal(ctx: CallerContext, id: string): Promise<Terminal> {
  return toTerminal(await moveRecord(ctx, TERMINAL_STATUS, id, 'disable'), ctx);
}
