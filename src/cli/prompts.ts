import type { Limit } from '../services/limits/manage';
import type { TerminalRestriction } from '../services/processing/terminals/restrictions';
import { formatMinor } from '../domain/money';

/**
 * The terminal's prompts, one wording and one outcome everywhere (BaseCommand.confirmAction and catch):
 * a confirmation names the record by what a person knows it by and by its id, then what follows from it;
 * "no" is a CancelledError (exit 9, nothing changed); Ctrl-C at any prompt (confirm, input, select, password)
 * ends the command with exit 130, as an interrupted program does.
 */

/** What a confirmation asks about: `Delete role "Support agents" (3f2a…)? This cannot be undone.` */
export interface ConfirmSubject {
  /** what is done, capitalised: 'Delete', 'Revoke', 'Reset the risk configuration of' */
  verb: string;
  /** the kind of record: 'role', 'API key', 'webhook endpoint' */
  noun: string;
  /** what a person knows it by: its name, else its most identifying field (an email, a url, an amount, a brand) */
  name: string;
  /** its id; absent only for a record without one of its own (an MPI account is its brand on its terminal) */
  id?: string;
  /** the record it belongs to, when that is part of what identifies it (a limit's channel, an entry's list) */
  of?: { noun: string; name: string; id: string; /** 'of' unless given: 'from' */ preposition?: string };
  /** what follows beyond the verb, as sentences: 'This cannot be undone.' */
  consequence?: string;
}

/** Exit status of a command interrupted at a prompt (Ctrl-C): 128 + SIGINT, as a shell reports it. */
export const INTERRUPTED_EXIT = 130;

/** A name as one printable line inside quotes (a stored name cannot move the cursor or colour the terminal). */
const printable = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();

const named = (noun: string, name: string, id?: string) => `${noun} "${printable(name)}"${id ? ` (${id})` : ''}`;

/** The one wording of every confirmation. */
export function confirmQuestion(subject: ConfirmSubject): string {
  const of = subject.of ? ` ${subject.of.preposition ?? 'of'} ${named(subject.of.noun, subject.of.name, subject.of.id)}` : '';
  return `${subject.verb} ${named(subject.noun, subject.name, subject.id)}${of}?${subject.consequence ? ` ${subject.consequence}` : ''}`;
}

/** Ctrl-C (or the terminal closing) at an @inquirer/prompts prompt: its ExitPromptError, by name (the package is ESM). */
export function isPromptInterrupt(error: unknown): boolean {
  return (error as { name?: string } | undefined)?.name === 'ExitPromptError';
}

/** A period as words: `day`, `2 weeks`. */
const period = (p: { value: number; unit: string }) => (p.value === 1 ? p.unit : `${p.value} ${p.unit}s`);

/** What transactions a limit or a restriction concerns: `card visa payments`. */
const transactions = (r: { paymentMethod: string | null; brand: string | null; transactionType: string }) =>
  [r.paymentMethod, r.brand, `${r.transactionType}s`].filter(Boolean).join(' ');

/** A limit by what it caps: `volume 1,000.00 EUR of card payments per day`, `count 5 of refunds per 2 weeks`. */
export function limitLabel(limit: Limit): string {
  const cap =
    limit.metric === 'volume' && limit.currency
      ? `volume ${formatMinor({ currency: limit.currency, valueMinor: limit.threshold }, { grouping: true })}`
      : `${limit.metric} ${limit.threshold}${limit.currency ? ` ${limit.currency}` : ''}`;
  return `${cap} of ${transactions(limit)} per ${period(limit.period)}`;
}

/** A terminal restriction by what it does: `deny visa payments`. */
export function restrictionLabel(restriction: TerminalRestriction): string {
  return `${restriction.action} ${transactions(restriction)}`;
}

/** A user by name and email: `Jane Doe <jane@example.com>`, or the email alone. */
export function userLabel(user: { email: string; displayName?: string | null }): string {
  return user.displayName ? `${user.displayName} <${user.email}>` : user.email;
}
