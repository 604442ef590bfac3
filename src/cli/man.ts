import fs from 'node:fs';
import path from 'node:path';
import { Config, type Command } from '@oclif/core';

/**
 * Man pages generated from the command manifest (oclif's loaded commands: summary, description, flags, arguments,
 * examples): one page per command, man/payplane-<topic>-<command>.1, and payplane.1 listing them all. `npm run man`
 * writes them; test/cli/man.test.ts checks that every command has its page and that the pages are current.
 */

/** What every command shares: the exit codes of src/domain/errors.ts (exitCode of each error class), and 130 for Ctrl-C at a prompt. */
export const EXIT_CODES: [number, string][] = [
  [0, 'success'],
  [1, 'internal error'],
  [2, 'invalid input or usage'],
  [3, 'authentication or permission'],
  [4, 'not found'],
  [5, 'state conflict'],
  [6, 'business rule refused'],
  [7, 'rate limited'],
  [8, 'unavailable (the database, a provider, an address serve cannot listen on: a port in use)'],
  [9, 'cancelled: the operator answered no at a confirmation (nothing was changed)'],
  [130, 'interrupted: Ctrl-C at a prompt'],
];

/** Environment variables every command reads (a flag's own variable is listed with the flag). */
export const COMMON_ENVIRONMENT: [string, string][] = [
  ['DATABASE_URL', 'sqlite:<path> or postgres://user@host:port/db (default sqlite:.payplane/payplane.db)'],
  ['PAYPLANE_HOME', 'folder of the sandbox database, generated keys and sandbox.json (default .payplane)'],
  ['PAYPLANE_MASTER_KEY', '32 bytes, base64: encrypts webhook secrets, terminal credentials and stored responses at rest'],
  ['PAYPLANE_TOKEN_SECRET', 'HS256 key (32+ characters) of user access tokens'],
  ['PAYPLANE_LOG_LEVEL', 'pino level of the logs (serve: info; other commands: silent)'],
  ['PAYPLANE_LOG_FILE', 'append the JSON logs to this file instead of stdout (%p: the process id)'],
  ['PAYPLANE_LOG_FORMAT', 'json, pretty (one readable line per request) or auto (default: pretty on a terminal, else JSON)'],
  ['NO_COLOR', 'no colour in tables and messages (also when stdout is not a terminal)'],
];

/** groff text: backslashes escaped, a line never starting with a control character, hyphens of options literal. */
function esc(text: string): string {
  return (
    text
      .replace(/\\/g, '\\e')
      .replace(/-/g, '\\-')
      // non-ASCII as groff's Unicode escapes: the page renders the same with or without preconv
      .replace(/[^\x00-\x7f]/gu, (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`)
      .split('\n')
      .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
      .join('\n')
  );
}

const commandWords = (id: string) => id.split(':');
export const pageName = (id: string) => `payplane-${commandWords(id).join('-')}`;

function flagLine(flag: Command.Flag.Any): string {
  const names = [flag.char ? `\\-${flag.char}` : undefined, `\\-\\-${esc(flag.name)}`].filter(Boolean).join(', ');
  if (flag.type === 'boolean') return flag.allowNo ? `${names}, \\-\\-no\\-${esc(flag.name)}` : names;
  const value = flag.options?.length ? flag.options.map(esc).join('|') : 'value';
  return `${names} \\fI${value}\\fR`;
}

function flagDescription(flag: Command.Flag.Any): string {
  const text = (flag.summary ?? flag.description ?? '').trim();
  const parts = [text && !/[.!?)]$/.test(text) ? `${text}.` : text];
  if (flag.required) parts.push('Required.');
  if (flag.type === 'option' && flag.multiple) parts.push('May be given more than once.');
  const fallback = (flag as { default?: unknown }).default;
  if (fallback !== undefined && typeof fallback !== 'function' && fallback !== false) parts.push(`Default: ${String(fallback)}.`);
  if (flag.env) parts.push(`Environment: ${flag.env}.`);
  return esc(parts.filter(Boolean).join(' '));
}

function examples(cmd: Command.Loadable): string[] {
  const list = (cmd.examples ?? []).map((e) => (typeof e === 'string' ? { command: e } : e));
  return list.flatMap((e) => {
    const command = e.command
      .replace(/<%=\s*config\.bin\s*%>/g, 'payplane')
      .replace(/<%=\s*command\.id\s*%>/g, commandWords(cmd.id).join(' '));
    return [...('description' in e && e.description ? ['.PP', esc(e.description)] : ['.PP']), '.nf', '.RS 4', esc(command), '.RE', '.fi'];
  });
}

function header(name: string, version: string): string[] {
  return [`.TH ${esc(name.toUpperCase())} 1 "" "payplane ${esc(version)}" "Payplane Manual"`];
}

function exitStatus(): string[] {
  return ['.SH EXIT STATUS', ...EXIT_CODES.flatMap(([code, what]) => ['.TP', `.B ${code}`, esc(what)])];
}

/** The page of one command. */
export function commandPage(cmd: Command.Loadable, version: string): string {
  const words = commandWords(cmd.id).join(' ');
  const flags = Object.values(cmd.flags).filter((f) => !f.hidden);
  const own = flags.filter((f) => f.helpGroup !== 'GLOBAL');
  const global = flags.filter((f) => f.helpGroup === 'GLOBAL');
  const args = Object.values(cmd.args ?? {});
  const synopsis = [
    `.B payplane ${esc(words)}`,
    ...args.map((a) => (a.required ? `\\fI${esc(a.name.toUpperCase())}\\fR` : `[\\fI${esc(a.name.toUpperCase())}\\fR]`)),
    ...own.filter((f) => f.required).map((f) => flagLine(f)),
    own.some((f) => !f.required) || global.length ? '[\\fIflags\\fR]' : '',
  ].filter(Boolean);
  const env = [
    ...COMMON_ENVIRONMENT,
    ...flags.filter((f) => f.env && !COMMON_ENVIRONMENT.some(([n]) => n === f.env)).map((f) => [f.env!, `--${f.name}`] as [string, string]),
  ];
  return [
    ...header(pageName(cmd.id), version),
    '.SH NAME',
    `${esc(pageName(cmd.id))} \\- ${esc(cmd.summary ?? cmd.description ?? '')}`,
    '.SH SYNOPSIS',
    synopsis.join('\n'),
    ...(cmd.description && cmd.description !== cmd.summary ? ['.SH DESCRIPTION', esc(cmd.description)] : []),
    ...(args.length
      ? [
          '.SH ARGUMENTS',
          ...args.flatMap((a) => [
            '.TP',
            `.I ${esc(a.name.toUpperCase())}`,
            esc(
              [
                a.description ?? '',
                a.options?.length ? `One of ${a.options.join(', ')}.` : '',
                a.default !== undefined && typeof a.default !== 'function' ? `Default: ${String(a.default)}.` : '',
              ]
                .filter(Boolean)
                .join(' '),
            ),
          ]),
        ]
      : []),
    ...(own.length ? ['.SH OPTIONS', ...own.flatMap((f) => ['.TP', flagLine(f), flagDescription(f)])] : []),
    ...(global.length ? ['.SH GLOBAL OPTIONS', ...global.flatMap((f) => ['.TP', flagLine(f), flagDescription(f)])] : []),
    ...(cmd.examples?.length ? ['.SH EXAMPLES', ...examples(cmd)] : []),
    '.SH ENVIRONMENT',
    ...env.flatMap(([name, what]) => ['.TP', `.B ${esc(name)}`, esc(what)]),
    ...exitStatus(),
    '.SH SEE ALSO',
    '.BR payplane (1)',
    '',
  ].join('\n');
}

/** payplane(1): every command with its summary. */
export function indexPage(commands: Command.Loadable[], version: string): string {
  return [
    ...header('payplane', version),
    '.SH NAME',
    'payplane \\- multi\\-tenant payment processing: the /v1 API, hosted checkout, webhook dispatcher and admin commands',
    '.SH SYNOPSIS',
    '.B payplane',
    '\\fICOMMAND\\fR [\\fIflags\\fR]',
    '.SH DESCRIPTION',
    esc(
      'Every command takes --json (its result as JSON) and --database-url, and talks to the database through the same services as the API. `payplane serve` runs the API; `payplane doctor` checks a set-up. Each command has a page of its own: payplane-<topic>-<command>(1).',
    ),
    '.SH COMMANDS',
    ...commands.flatMap((c) => [
      '.TP',
      `.B payplane ${esc(commandWords(c.id).join(' '))}`,
      `${esc(c.summary ?? '')} See \\fB${esc(pageName(c.id))}\\fR(1).`,
    ]),
    '.SH ENVIRONMENT',
    ...COMMON_ENVIRONMENT.flatMap(([name, what]) => ['.TP', `.B ${esc(name)}`, esc(what)]),
    ...exitStatus(),
    '',
  ].join('\n');
}

/** Every page by file name, from the commands oclif loads at `root` (dist/ must be built). */
export async function manPages(root: string): Promise<Map<string, string>> {
  const config = await Config.load({ root });
  const commands = config.commands.filter((c) => !c.hidden).sort((a, b) => a.id.localeCompare(b.id));
  const pages = new Map<string, string>([['payplane.1', indexPage(commands, config.version)]]);
  for (const cmd of commands) pages.set(`${pageName(cmd.id)}.1`, commandPage(cmd, config.version));
  return pages;
}

/** Writes man/ afresh: `npm run man`; with --json, prints the pages it would write (the test compares them). */
async function main(): Promise<void> {
  const root = path.resolve(__dirname, '../../..');
  const dir = path.join(root, 'man');
  const pages = await manPages(root);
  if (process.argv.includes('--json')) {
    process.stdout.write(JSON.stringify(Object.fromEntries(pages)));
    return;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of pages) fs.writeFileSync(path.join(dir, name), text);
  console.log(`${pages.size} man pages written to ${path.relative(process.cwd(), dir) || dir}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
