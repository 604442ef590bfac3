import { Flags } from '@oclif/core';
import { recordOwnerFlags } from './context';
import { chalk, colourEnabled, renderRecord, renderTable, type TableOptions } from './output';
import { formatMinor } from '../domain/money';
import type { Withdrawal } from '../services/withdrawals';
import type { ExecutionOutcome } from '../services/withdrawal-execution';
import { validateWith } from './validate';
import { CompleteWithdrawalBody, FailWithdrawalBody } from '../api/withdrawals/schemas';
import { methodTypeOf } from '../services/withdrawal-methods/types';
import { inquirer } from './inquirer';
import { actorLabel } from './actors';

/** --operator: who acts, on every withdrawals command. */
export const operatorFlags = {
  operator: Flags.string({
    description:
      "Who acts (default: your OS user name): approvedBy, executedBy, … hold the id of that account's platform user (externalIdpId os:<name>, created on first use), the audit trail names the account",
    env: 'PAYPLANE_OPERATOR',
  }),
};

/**
 * --tenant and --merchant on the commands that take a withdrawal id: optional, guards against acting on another
 * tenant's or merchant's record (BaseCommand checks them against the withdrawal, as for every record named by id).
 */
export const withdrawalOwnerFlags = {
  tenant: Flags.string({ description: "The withdrawal's tenant (404 when the withdrawal is another tenant's)" }),
  merchant: recordOwnerFlags.merchant,
};

/**
 * The outcome from flags, validated with the API's own bodies (so the terminal accepts what the API accepts), with
 * issues naming the flags: call it before starting an execution, so a refused input changes nothing.
 */
export function checkedOutcome(outcome: ExecutionOutcome): ExecutionOutcome {
  const names = { providerReference: 'reference' };
  if (outcome.outcome === 'complete') {
    const body = validateWith(CompleteWithdrawalBody, { providerReference: outcome.providerReference, comment: outcome.comment }, names);
    return { outcome: 'complete', providerReference: body.providerReference!, comment: body.comment };
  }
  const body = validateWith(FailWithdrawalBody, { comment: outcome.comment, providerReference: outcome.providerReference }, names);
  return { outcome: 'fail', comment: body.comment, providerReference: body.providerReference };
}

/** A prompt's check of one answer against the API body's field: true, or the message to show. */
function answerCheck(body: 'CompleteWithdrawalBody' | 'FailWithdrawalBody', field: 'providerReference' | 'comment', optional = false) {
  return (value: string): true | string => {
    if (optional && value.trim() === '') return true;
    const parsed = { CompleteWithdrawalBody, FailWithdrawalBody }[body].safeParse({ [field]: value });
    if (parsed.success) return true;
    return parsed.error.issues.find((i) => i.path[0] === field)?.message ?? 'is not valid';
  };
}

/**
 * Asks the operator on the terminal how the payout went: Completed (provider reference, optional comment), Failed
 * (comment) or Not yet. Null for "Not yet": the withdrawal then stays executing. Ctrl-C throws the prompt's
 * ExitPromptError, as at every prompt (exit 130, BaseCommand.catch).
 */
export async function promptOutcome(defaults: { reference?: string; comment?: string }): Promise<ExecutionOutcome | null> {
  const { select, input } = await inquirer();
  const answer = await select({
    message: 'Did the payout complete?',
    choices: [
      { name: 'Completed', value: 'complete' as const, description: 'The money left: record the provider or bank reference.' },
      {
        name: 'Failed',
        value: 'fail' as const,
        description: "It did not go out: the amount and fee return to the merchant's available balance.",
      },
      { name: 'Not yet', value: 'later' as const, description: 'Leave the withdrawal executing; run this command again when you know.' },
    ],
  });
  if (answer === 'later') return null;
  if (answer === 'complete') {
    const providerReference = await input({
      message: 'Provider reference:',
      required: true,
      default: defaults.reference,
      validate: answerCheck('CompleteWithdrawalBody', 'providerReference'),
    });
    const comment = await input({
      message: 'Comment (optional):',
      default: defaults.comment,
      validate: answerCheck('CompleteWithdrawalBody', 'comment', true),
    });
    return { outcome: 'complete', providerReference: providerReference.trim(), comment: comment.trim() || undefined };
  }
  const comment = await input({
    message: 'Why did it fail?',
    required: true,
    default: defaults.comment,
    validate: answerCheck('FailWithdrawalBody', 'comment'),
  });
  return { outcome: 'fail', comment: comment.trim(), providerReference: defaults.reference };
}

// ------------------------------------------------------------------------------------------------------ output

function withdrawalStatusColour(status: string): string {
  if (!colourEnabled()) return status;
  if (status === 'completed') return chalk.green(status);
  if (['failed', 'rejected', 'canceled'].includes(status)) return chalk.red(status);
  return chalk.yellow(status);
}

/** The label of a detail key in the method-type catalog (the key itself for an unknown type or key). */
function detailLabel(type: string, key: string): string {
  return methodTypeOf(type)?.details.find((d) => d.key === key)?.label ?? key;
}

function typeName(type: string): string {
  return methodTypeOf(type)?.name ?? type;
}

/** A destination on one line, as every read shows it (masked): `Bank account (IBAN): IBAN ••••3000, Account holder name Jane`. */
export function destinationLine(destination: Withdrawal['destination']): string {
  const parts = Object.entries(destination.details).map(([key, value]) => `${detailLabel(destination.type, key)} ${value}`);
  return `${typeName(destination.type)}: ${parts.join(', ')}`;
}

/** The destination as key/value lines under its type's name: the full details when revealed, for the executing operator. */
export function renderDestination(destination: { type: string; details: Record<string, string> }): string {
  const labelled = Object.fromEntries(
    Object.entries(destination.details).map(([key, value]) => [detailLabel(destination.type, key), value]),
  );
  return [typeName(destination.type), renderRecord(labelled).replace(/^/gm, '  ')].join('\n');
}

const debited = (w: Withdrawal) => ({ currency: w.currency, valueMinor: w.amount.valueMinor + w.fee.valueMinor });
const when = (at: string | null, by: string | null) => (at ? `${at}${by ? ` by ${actorLabel(by)}` : ''}` : '');

export function renderWithdrawals(rows: Withdrawal[], options: TableOptions = {}): string {
  if (rows.length === 0 && !options.csv && !options.columns) return 'No withdrawals.';
  return renderTable(
    rows,
    [
      { header: 'ID', get: (w) => w.id },
      { header: 'Merchant', get: (w) => w.entityId },
      { header: 'Amount', get: (w) => formatMinor(w.amount) },
      { header: 'Fee', get: (w) => formatMinor(w.fee) },
      { header: 'Status', get: (w) => withdrawalStatusColour(w.status) },
      { header: 'Created', get: (w) => w.createdAt },
      { header: 'Destination', get: (w) => destinationLine(w.destination) },
    ],
    options,
  );
}

/** One withdrawal: amounts, the masked destination and who moved it when (empty steps left out). */
export function renderWithdrawal(w: Withdrawal): string {
  const record: Record<string, unknown> = {
    id: w.id,
    tenant: w.tenantId,
    merchant: w.entityId,
    mode: w.livemode ? 'live' : 'test',
    status: withdrawalStatusColour(w.status),
    amount: formatMinor(w.amount),
    fee: formatMinor(w.fee),
    debited: formatMinor(debited(w)),
    destination: destinationLine(w.destination),
    method: w.withdrawalMethodId,
    channel: w.withdrawalChannelId,
    providerReference: w.providerReference ?? '',
    rejectionReason: w.rejectionReason ?? '',
    comment: w.executionComment ?? '',
    failureReason: w.failureReason ?? '',
    created: when(w.createdAt, w.createdBy),
    approved: when(w.approvedAt, w.approvedBy),
    rejected: when(w.rejectedAt, w.rejectedBy),
    canceled: when(w.canceledAt, w.canceledBy),
    executionStarted: when(w.executedAt, w.executedBy),
    completed: when(w.completedAt, w.completedBy),
    failed: when(w.failedAt, w.failedBy),
    updated: w.updatedAt,
  };
  return renderRecord(Object.fromEntries(Object.entries(record).filter(([, v]) => v !== '')));
}

/** What the executing operator must pay: the amount to send, the fee kept back, the merchant and the FULL destination. */
export function renderPayoutOrder(
  w: Withdrawal,
  merchantName: string,
  destination: { type: string; details: Record<string, string> },
): string {
  return [
    `Executing withdrawal ${w.id} (started ${w.executedAt ?? ''} by ${actorLabel(w.executedBy)}).`,
    renderRecord({
      'pay out': formatMinor(w.amount),
      fee: `${formatMinor(w.fee)} (charged to the merchant on top; not paid out)`,
      merchant: `${merchantName} (${w.entityId})`,
      reference: w.id,
    }),
    'Destination:',
    renderDestination(destination),
  ].join('\n');
}
