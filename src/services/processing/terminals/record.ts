import type { CallerContext } from '../../../domain/context';
import { ConflictError } from '../../../domain/errors';
import { scoped } from '../../../db/scoped';
import type { MpiAccountRow, TerminalRow, ThreeDsConfigRow } from '../../../db/models';
import { auditedRecord } from '../../audit/changes';
import { disableOnly } from '../../status';
import { presentRow, type Presented } from '../../present';
import { registerLimitEntity } from '../../limits/manage';
import { providerCatalog, providerForField, type ProviderIntegration } from '../providers';
import { takesNotifications } from '../../../connectors/notifications';
import { publicUrl, type PublicUrlSource } from '../../../util/public-url';

/**
 * The terminal as its sub-resources share it: its rendering (with its 3DS configuration and MPI accounts), its audited
 * record and status machine, the rule that a disabled terminal is read-only, its provider integration.
 */

const TERMINAL_FIELDS = [
  'id',
  'tenantId',
  'providerIntegrationId',
  'credentialBindingId',
  'providerCostScheduleId',
  'name',
  'mcc',
  'descriptor',
  'direction',
  'status',
  'livemode',
  'supportedCurrencies',
  'supportedBrands',
  'supportedPaymentMethodTypes',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof TerminalRow)[];

export interface MpiAccount extends Omit<MpiAccountRow, 'mcc' | 'preferredVersion'> {
  /** the account's own, else the terminal's mcc */
  mcc: string | null;
  /** the account's own, else the provider's first supported 3DS version */
  preferredVersion: string | null;
}

export type ThreeDsConfig = Omit<ThreeDsConfigRow, 'mpiAccounts'> & { mpiAccounts: MpiAccount[] };

export type Terminal = Presented<Pick<TerminalRow, (typeof TERMINAL_FIELDS)[number]>> & {
  threeDsConfig: ThreeDsConfig;
  /** where its acquirer sends notifications (absolute), when its connector takes them; else null */
  notificationUrl: string | null;
};

function defaultVersion(providerId: string): string | null {
  return providerCatalog().find((p) => p.id === providerId)?.supportedThreeDSVersions[0] ?? null;
}

export function toMpiAccount(row: TerminalRow, a: MpiAccountRow): MpiAccount {
  return {
    brand: a.brand,
    enabled: a.enabled,
    merchantName: a.merchantName ?? null,
    merchantId: a.merchantId ?? null,
    merchantCountry: a.merchantCountry ?? null,
    acquirerBin: a.acquirerBin ?? null,
    mcc: a.mcc ?? row.mcc ?? null,
    preferredVersion: a.preferredVersion ?? defaultVersion(row.providerIntegrationId),
  };
}

export function toThreeDsConfig(row: TerminalRow): ThreeDsConfig {
  const c = row.threeDsConfig;
  return {
    enabled: c.enabled,
    executionModel: c.executionModel,
    mpiAccounts: c.mpiAccounts.map((a) => toMpiAccount(row, a)),
    rules: { ...c.rules },
  };
}

/**
 * The address its acquirer's notifications are registered with (`{public base}/v1/provider-notifications/{id}`,
 * src/util/public-url.ts), for a terminal whose connector takes notifications (a real acquirer's); null otherwise.
 */
export function notificationUrlOf(row: Pick<TerminalRow, 'id' | 'providerIntegrationId'>, source: PublicUrlSource): string | null {
  const code = providerCatalog().find((p) => p.id === row.providerIntegrationId)?.code;
  return code && takesNotifications(code) ? publicUrl(source, `/v1/provider-notifications/${row.id}`) : null;
}

/** The terminal as the API and the CLI show it; `source` gives the base of its notificationUrl (a caller's context). */
export function toTerminal(row: TerminalRow, source: PublicUrlSource): Terminal {
  return { ...presentRow(row, TERMINAL_FIELDS), threeDsConfig: toThreeDsConfig(row), notificationUrl: notificationUrlOf(row, source) };
}

export const TERMINAL = auditedRecord<TerminalRow>({
  model: (ctx) => ctx.db.models.Terminal,
  targetType: 'terminal',
  owner: (row) => ({ tenantId: row.tenantId }),
  render: (row, _now, ctx) => toTerminal(row, ctx),
});

export const TERMINAL_STATUS = disableOnly(TERMINAL, 'terminal.disabled', 'terminal', 'terminals');

export function writable(row: TerminalRow): void {
  if (row.status !== 'active') {
    throw new ConflictError('TERMINAL_DISABLED', `Terminal ${row.id} is disabled: it cannot be changed.`, {
      hint: 'A disabled terminal is kept for the record; create a new one.',
    });
  }
}

export async function terminalProvider(ctx: CallerContext, row: TerminalRow): Promise<ProviderIntegration> {
  return providerForField(ctx, row.providerIntegrationId, 'providerIntegrationId');
}

// with the record: every use of a terminal (the CLI's limits commands read one) finds the terminals' limits
registerLimitEntity('terminal', async (ctx, id) => {
  const terminal = await scoped(ctx, ctx.db.models.Terminal).get(id);
  return { tenantId: terminal.tenantId, merchantId: null };
});
