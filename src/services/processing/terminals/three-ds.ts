import type { CallerContext } from '../../../domain/context';
import { ValidationError, type FieldIssue } from '../../../domain/errors';
import { scoped } from '../../../db/scoped';
import type { MpiAccountRow, TerminalRow, ThreeDsConfigRow } from '../../../db/models';
import { updateRecord } from '../../audit/changes';
import { threeDsVersions, type ProviderIntegration } from '../providers';
import { TERMINAL, terminalProvider, toThreeDsConfig, toTerminal, writable, type Terminal, type ThreeDsConfig } from './record';

/** A terminal's 3DS configuration: its execution model, rules and MPI accounts, checked against the provider's. */

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

export function defaultThreeDs(p: ProviderIntegration): ThreeDsConfigRow {
  const model = p.threeDsCapabilities.executionModels.find((m) => m.supported)?.model ?? 'gateway_full';
  return { enabled: false, executionModel: model, mpiAccounts: [], rules: { ...DEFAULT_RULES } };
}

export function mpiRow(input: MpiAccountInput): MpiAccountRow {
  return {
    brand: input.brand,
    enabled: input.enabled ?? true,
    merchantName: input.merchantName ?? null,
    merchantId: input.merchantId ?? null,
    merchantCountry: input.merchantCountry ?? null,
    acquirerBin: input.acquirerBin ?? null,
    mcc: input.mcc ?? null,
    preferredVersion: input.preferredVersion ?? null,
  };
}

export function checkMpi(p: ProviderIntegration, brands: string[], a: Partial<MpiAccountInput>, path: string, issues: FieldIssue[]): void {
  if (a.brand !== undefined && !brands.includes(a.brand)) {
    issues.push({
      path: `${path}brand`,
      message: `${a.brand} is not one of the terminal's supportedBrands (${brands.join(', ') || 'none'})`,
    });
  }
  const versions = threeDsVersions(p);
  if (a.preferredVersion != null && !versions.includes(a.preferredVersion)) {
    issues.push({
      path: `${path}preferredVersion`,
      message: `must be a 3DS version ${p.code} supports (${versions.join(', ') || 'none'})`,
    });
  }
}

export function checkThreeDs(
  p: ProviderIntegration,
  row: Pick<TerminalRow, 'supportedBrands'>,
  input: ThreeDsConfigInput,
  base = 'body.',
): void {
  const issues: FieldIssue[] = [];
  const models = p.threeDsCapabilities.executionModels.filter((m) => m.supported).map((m) => m.model);
  if (!models.includes(input.executionModel)) {
    issues.push({
      path: `${base}executionModel`,
      message: `must be a 3DS execution model ${p.code} supports (${models.join(', ') || 'none'})`,
    });
  }
  if (input.enabled && threeDsVersions(p).length === 0)
    issues.push({ path: `${base}enabled`, message: `cannot be true: ${p.code} supports no 3DS version` });
  const seen = new Set<string>();
  (input.mpiAccounts ?? []).forEach((a, i) => {
    if (seen.has(a.brand))
      issues.push({ path: `${base}mpiAccounts[${i}].brand`, message: `${a.brand} appears twice: one MPI account per brand` });
    seen.add(a.brand);
    checkMpi(p, row.supportedBrands, a, `${base}mpiAccounts[${i}].`, issues);
  });
  if (issues.length)
    throw new ValidationError(`Invalid 3DS configuration: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
}

export async function getThreeDsConfig(ctx: CallerContext, id: string): Promise<ThreeDsConfig> {
  return toThreeDsConfig(await scoped(ctx, ctx.db.models.Terminal).get(id));
}

export async function changeThreeDs(
  ctx: CallerContext,
  id: string,
  action: string,
  change: (row: TerminalRow, p: ProviderIntegration) => ThreeDsConfigRow,
): Promise<TerminalRow> {
  return updateRecord(
    ctx,
    TERMINAL,
    id,
    async (row, tx) => {
      writable(row);
      return { threeDsConfig: change(row, await terminalProvider(tx, row)) };
    },
    { action, render: (r) => ({ threeDsConfig: toThreeDsConfig(r) }) },
  );
}

/** Replaces the whole 3DS configuration (MPI accounts included). */
export async function putThreeDsConfig(
  ctx: CallerContext,
  id: string,
  input: ThreeDsConfigInput,
  options: { keepMpiAccounts?: boolean } = {},
): Promise<Terminal> {
  const row = await changeThreeDs(ctx, id, 'terminal.3ds_config_replaced', (r, p) => {
    checkThreeDs(p, r, input);
    const mpiAccounts = options.keepMpiAccounts ? r.threeDsConfig.mpiAccounts : (input.mpiAccounts ?? []).map(mpiRow);
    return { enabled: input.enabled, executionModel: input.executionModel, mpiAccounts, rules: { ...input.rules } };
  });
  return toTerminal(row, ctx);
}
