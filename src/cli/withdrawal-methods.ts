import { Flags } from '@oclif/core';
import { sharedFlags } from './flags';
import { renderRecord, renderTable, type TableOptions, statusColour } from './output';
import { asReader, recordOwnerFlags, withScope } from './context';
import { ValidationError } from '../domain/errors';
import type { CallerContext } from '../domain/context';
import { getWithdrawalMethod, type WithdrawalMethod, type WithdrawalMethodTypeRecord } from '../services/withdrawal-methods/methods';
import { getMerchant } from '../services/organization/merchants';
import type { ConfirmSubject } from './prompts';
import { inquirer } from './inquirer';

/** --tenant (required) and --live: the records of one tenant in one mode. */
export const methodScopeFlags = {
  tenant: withScope(sharedFlags.tenant, asReader),
  live: sharedFlags.live,
};

/** The same, with --merchant: the method must be that merchant's (404 otherwise), on the commands that take a method id. */
export const methodOwnerFlags = { tenant: methodScopeFlags.tenant, merchant: recordOwnerFlags.merchant, live: methodScopeFlags.live };

export const detailFlag = Flags.string({
  description:
    'A detail of the method type as key=value (repeatable), e.g. --detail iban="DE89 3704 0044 0532 0130 00" --detail accountHolderName="Jane Doe"',
  multiple: true,
});

/**
 * Asks the operator to confirm `verb` on a method (on a terminal, --yes otherwise), in the context the command acts in;
 * 404 before any question when there is no such method.
 */
export async function confirmedContext(
  ctx: CallerContext,
  id: string,
  verb: string,
  confirm: (subject: () => Promise<ConfirmSubject>) => Promise<void>,
): Promise<CallerContext> {
  const m = await getWithdrawalMethod(ctx, id);
  await confirm(async () => {
    const merchant = await getMerchant(ctx, m.merchantId);
    return { verb, noun: 'withdrawal method', name: m.label, id: m.id, of: { noun: 'merchant', name: merchant.name, id: merchant.id } };
  });
  return ctx;
}

/** `--detail key=value` flags as a details object; 400 naming --detail for a malformed or repeated key (values are never echoed). */
export function detailsFrom(values: string[] | undefined): Record<string, string> {
  const details = new Map<string, string>();
  for (const entry of values ?? []) {
    const at = entry.indexOf('=');
    const key = at > 0 ? entry.slice(0, at).trim() : '';
    if (!key)
      throw ValidationError.field(
        '--detail',
        'must be key=value: a detail key of the type, "=", then its value (e.g. accountHolderName=Jane Doe)',
      );
    if (details.has(key)) throw ValidationError.field(`--detail.${key}`, 'is given twice');
    details.set(key, entry.slice(at + 1));
  }
  return Object.fromEntries(details);
}

/** Asks for a value on the terminal without echoing it (each character shows as a bullet). */
export async function askHidden(question: string): Promise<string> {
  const { password } = await inquirer();
  return password({ message: question, mask: '•', validate: (v) => v.trim() !== '' || 'is required' });
}

const detailsText = (details: Record<string, string>) =>
  Object.entries(details)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

export function renderMethods(rows: WithdrawalMethod[], options: TableOptions = {}): string {
  if (rows.length === 0 && !options.csv && !options.columns) return 'No withdrawal methods.';
  return renderTable(
    rows,
    [
      { header: 'ID', get: (m) => m.id },
      { header: 'Merchant', get: (m) => m.merchantId },
      { header: 'Type', get: (m) => m.methodType },
      { header: 'Label', get: (m) => m.label },
      { header: 'Details', get: (m) => detailsText(m.details) },
      { header: 'Status', get: (m) => statusColour(m.status) },
      { header: 'Active from', get: (m) => m.activatesAt ?? '' },
    ],
    options,
  );
}

/** One method: details masked as every read shows them. */
export function renderMethod(m: WithdrawalMethod): string {
  return renderRecord({
    id: m.id,
    tenant: m.tenantId,
    merchant: m.merchantId,
    mode: m.livemode ? 'live' : 'test',
    type: m.methodType,
    label: m.label,
    details: detailsText(m.details),
    status: statusColour(m.status),
    activeFrom: m.activatesAt ?? '',
    created: m.createdAt,
    updated: m.updatedAt,
    deleted: m.deletedAt ?? '',
  });
}

export function renderTypes(rows: WithdrawalMethodTypeRecord[], options: TableOptions = {}): string {
  return renderTable(
    rows,
    [
      { header: 'Type', get: (t) => t.type },
      { header: 'Name', get: (t) => t.name },
      { header: 'Currencies', get: (t) => (t.currencies.length ? t.currencies.join(', ') : 'any') },
      { header: 'Required details', get: (t) => t.requiredDetails.join(', ') },
      {
        header: 'Optional details',
        get: (t) =>
          t.details
            .filter((d) => !d.required)
            .map((d) => (d.values ? `${d.key} (${d.values.join('|')})` : d.key))
            .join(', '),
      },
    ],
    options,
  );
}
