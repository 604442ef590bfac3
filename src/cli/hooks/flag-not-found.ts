import { Errors } from '@oclif/core';
import { distance } from 'fastest-levenshtein';

/**
 * The flag twin of the command_not_found hook (./command-not-found.ts): a mistyped flag (`--colums`) is answered with
 * the command's flag it is closest to ("Did you mean --columns?") and the command's usage on one line, as a usage
 * error (exit 2, UNKNOWN_FLAG), instead of oclif's "Nonexistent flag" and the whole help. An unexpected or missing
 * argument gets the same short usage instead of the whole help. BaseCommand.catch applies it to oclif's parse errors;
 * under --json it is the same error object every command prints.
 */

/** What a command declares that its usage and the suggestions are drawn from (the static side of a command class). */
export interface CommandShape {
  id?: string;
  flags?: Record<string, FlagShape>;
  baseFlags?: Record<string, FlagShape>;
  args?: Record<string, { required?: boolean }>;
  enableJsonFlag?: boolean;
}

interface FlagShape {
  char?: string;
  allowNo?: boolean;
  required?: boolean;
  hidden?: boolean;
  type?: string;
}

/** Every spelling of the command's flags: `--name`, `--no-name` where it may be negated, `-c` for a char. */
export function flagSpellings(command: CommandShape): string[] {
  const all = { ...(command.baseFlags ?? {}), ...(command.flags ?? {}) };
  const names: string[] = [];
  for (const [name, flag] of Object.entries(all)) {
    if (flag.hidden) continue;
    names.push(`--${name}`);
    if (flag.allowNo) names.push(`--no-${name}`);
  }
  if (command.enableJsonFlag) names.push('--json');
  names.push('--help');
  return [...new Set(names)];
}

/**
 * The flags closest to what was typed, best first: by edit distance within a third of its length (at least 2 edits),
 * else the flags it begins (`--col` for --columns), else the flags whose name holds it (`--truncate` for --no-truncate).
 */
export function closestFlags(typed: string, spellings: string[], max = 3): string[] {
  const word = `--${typed.replace(/^-+/, '').toLowerCase()}`;
  const bound = Math.max(2, Math.floor((word.length - 2) / 3));
  const near = spellings
    .map((name) => ({ name, score: distance(word, name) }))
    .filter((s) => s.score <= bound)
    .sort((a, b) => a.score - b.score || a.name.length - b.name.length || a.name.localeCompare(b.name))
    .map((s) => s.name);
  const bare = word.slice(2);
  const beginning = bare.length >= 2 ? spellings.filter((name) => name.startsWith(word)) : [];
  const holding = bare.length >= 3 ? spellings.filter((name) => name.includes(bare)) : [];
  return [...new Set([...near, ...beginning, ...holding])].slice(0, max);
}

/** The command's usage on one line: `payplane refunds create --payment <value> [ARGS] [FLAGS]`. */
export function usageLine(bin: string, command: CommandShape): string {
  const words = [bin, ...(command.id ?? '').split(':').filter(Boolean)];
  for (const [name, arg] of Object.entries(command.args ?? {})) words.push(arg.required ? name.toUpperCase() : `[${name.toUpperCase()}]`);
  for (const [name, flag] of Object.entries(command.flags ?? {})) {
    if (flag.required && !flag.hidden) words.push(flag.type === 'boolean' ? `--${name}` : `--${name} <value>`);
  }
  words.push('[FLAGS]');
  return words.join(' ');
}

/** oclif's parse errors that print the whole help: an unknown flag, an unexpected or a missing argument. */
interface ParseError extends Error {
  showHelp?: boolean;
  parse?: unknown;
  flags?: string[];
  args?: unknown[];
  oclif?: { exit?: number };
}

/**
 * The short usage error that replaces one of oclif's parse errors (undefined for any other error): the unknown flag
 * and the nearest flags, or oclif's own message for an argument, with the usage line as the hint; exit 2.
 */
export function shortParseError(error: unknown, bin: string, command: CommandShape): Errors.CLIError | undefined {
  const e = error as ParseError;
  if (!(e instanceof Error) || !e.showHelp || e.parse === undefined) return undefined;
  const name = `${bin} ${(command.id ?? '').split(':').join(' ')}`.trim();
  const usage = `Usage: ${usageLine(bin, command)}  (\`${name} --help\` lists its flags)`;
  let cliError: Errors.CLIError;
  if (e.constructor.name === 'NonExistentFlagsError' && Array.isArray(e.flags) && e.flags.length) {
    const spellings = flagSpellings(command);
    const typed = e.flags.map((f) => String(f).split('=')[0]);
    const nearest = closestFlags(typed[0], spellings);
    const what = typed.length === 1 ? `Unknown flag ${typed[0]}` : `Unknown flags ${typed.join(', ')}`;
    const message = `${what} for \`${name}\`.${nearest.length ? ` Did you mean ${nearest[0]}?` : ''}`;
    cliError = new Errors.CLIError(message, { exit: 2, code: 'UNKNOWN_FLAG', suggestions: [usage] });
    Object.assign(cliError, { flagSuggestions: nearest });
  } else {
    // oclif's message without its "See more help with --help" line: the usage says it
    const message = e.message.replace(/\nSee more help with --help$/, '');
    const code =
      e.constructor.name === 'UnexpectedArgsError'
        ? 'UNEXPECTED_ARGUMENT'
        : e.constructor.name === 'RequiredArgsError'
          ? 'MISSING_ARGUMENT'
          : 'USAGE';
    cliError = new Errors.CLIError(message, { exit: 2, code, suggestions: [usage] });
  }
  return Object.assign(cliError, { exitCode: 2 });
}
