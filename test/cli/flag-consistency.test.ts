import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, runCli } from '../helpers/cli';

// The same flag names across topics, read from the commands themselves: oclif loads them (dist/commands, which the
// CLI tests run) in a child process, since its dynamic imports do not work inside jest's module sandbox.

interface FlagInfo {
  type: 'boolean' | 'option';
  char?: string;
  description?: string;
  helpGroup?: string;
  hidden?: boolean;
}
interface CommandInfo {
  id: string;
  plugin: string;
  examples: string[];
  flags: Record<string, FlagInfo>;
}

const DUMP = `
const { Config } = require('@oclif/core');
Config.load({ root: process.cwd() }).then((config) => {
  const commands = config.commands.filter((c) => !c.hidden).map((c) => ({
    id: c.id,
    plugin: c.pluginName,
    examples: (c.examples ?? []).map((e) => (typeof e === 'string' ? e : e.command)),
    flags: Object.fromEntries(Object.entries(c.flags).map(([name, f]) => [name, { type: f.type, char: f.char, description: f.description, helpGroup: f.helpGroup, hidden: f.hidden }])),
  }));
  process.stdout.write(JSON.stringify(commands));
});
`;

/** Commands whose last word is one of these change or remove something for good (or stop it working): they confirm. */
/** commands outside DESTRUCTIVE's names that do ask for confirmation (and so offer --yes) */
const NON_DESTRUCTIVE_CONFIRMING: string[] = [];
const DESTRUCTIVE = /:(delete|revoke|disable|cancel|remove-entry|suspend|archive|close|reset)$/;

/** Flags whose names mention a tenant or a merchant without naming the one the command acts on, and why. */
const TENANT_MERCHANT_NAME_ALLOWED: Record<string, string> = {
  'routing-rules:create --merchants': 'a routing condition: a comma-separated list of merchant ids the rule matches',
  'routing-rules:update --merchants': 'a routing condition: a comma-separated list of merchant ids the rule matches',
  'terminals:3ds:set --allow-merchant-disable': "a switch of the terminal's 3DS policy, not a merchant",
  'terminals:mpi-accounts:add --merchant-name': 'the merchant record at the 3DS MPI (an external system)',
  'terminals:mpi-accounts:add --mpi-merchant-id': 'the merchant record at the 3DS MPI (an external system)',
  'terminals:mpi-accounts:add --merchant-country': 'the merchant record at the 3DS MPI (an external system)',
  'terminals:mpi-accounts:update --merchant-name': 'the merchant record at the 3DS MPI (an external system)',
  'terminals:mpi-accounts:update --mpi-merchant-id': 'the merchant record at the 3DS MPI (an external system)',
  'terminals:mpi-accounts:update --merchant-country': 'the merchant record at the 3DS MPI (an external system)',
};

/** Flags that look like a confirmation but are not one, and why. */
const CONFIRMATION_LOOKALIKES_ALLOWED: Record<string, string> = {
  'kyb:documents:download --force': 'overwrites an existing --out file; nothing is confirmed',
  'settlements:download --force': 'overwrites an existing --output file; nothing is confirmed',
};

const SHARED = {
  limit: 'Page size (1-100)',
  cursor: 'Cursor from a previous page (nextCursor)',
  yes: 'Confirm without a prompt',
};

let commands: CommandInfo[];
let own: CommandInfo[];

beforeAll(() => {
  commands = JSON.parse(
    execFileSync(process.execPath, ['-e', DUMP], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }),
  ) as CommandInfo[];
  own = commands.filter((c) => c.plugin === 'payplane');
});

/** `id --flag` for each flag of each command that `pick` selects. */
function offenders(pick: (c: CommandInfo, name: string, flag: FlagInfo) => boolean, among = own): string[] {
  return among.flatMap((c) =>
    Object.entries(c.flags)
      .filter(([name, flag]) => pick(c, name, flag))
      .map(([name]) => `${c.id} --${name}`),
  );
}

describe('flag consistency across commands', () => {
  test('the commands were found (every file under dist/commands)', () => {
    expect(own.length).toBeGreaterThan(150);
    for (const id of ['tenants:list', 'payments:list', 'keys:revoke', 'kyb:documents:download']) expect(own.map((c) => c.id)).toContain(id);
  });

  test('every command has at least one example in --help', () => {
    expect(commands.filter((c) => c.examples.length === 0).map((c) => c.id)).toEqual([]);
  });

  test('every payplane command takes --json', () => {
    expect(own.filter((c) => c.flags.json?.type !== 'boolean').map((c) => c.id)).toEqual([]);
  });

  test('a tenant is --tenant and a merchant --merchant (no --tenant-id, --tenantId, --merchant-id…)', () => {
    const misnamed = offenders(
      (c, name) =>
        /tenant|merchant/i.test(name) && name !== 'tenant' && name !== 'merchant' && !TENANT_MERCHANT_NAME_ALLOWED[`${c.id} --${name}`],
    );
    expect(misnamed).toEqual([]);
    // a flag described as a tenant's or a merchant's id is named for it
    const described = offenders(
      (c, name, f) =>
        f.type === 'option' &&
        /^(tenant|merchant) id\b/i.test(f.description ?? '') &&
        name !== 'tenant' &&
        name !== 'merchant' &&
        !TENANT_MERCHANT_NAME_ALLOWED[`${c.id} --${name}`],
    );
    expect(described).toEqual([]);
    expect(offenders((_c, name, f) => (name === 'tenant' || name === 'merchant') && f.type !== 'option')).toEqual([]);
    // the allowlist names flags that exist (a renamed flag must leave it)
    const existing = new Set(offenders(() => true));
    expect(Object.keys(TENANT_MERCHANT_NAME_ALLOWED).filter((k) => !existing.has(k))).toEqual([]);
  });

  test('paginated lists: --cursor comes with --limit and --all, each the shared flag', () => {
    const lists = own.filter((c) => c.flags.cursor);
    expect(lists.length).toBeGreaterThanOrEqual(35);
    expect(lists.filter((c) => !c.flags.limit || !c.flags.all).map((c) => c.id)).toEqual([]);
    expect(offenders((c, name) => (name === 'limit' || name === 'all') && !c.flags.cursor)).toEqual([]);
    expect(
      offenders((_c, name, f) => (name === 'limit' || name === 'cursor') && (f.type !== 'option' || f.description !== SHARED[name])),
    ).toEqual([]);
    expect(offenders((_c, name, f) => name === 'all' && (f.type !== 'boolean' || !/^Fetch every page/.test(f.description ?? '')))).toEqual(
      [],
    );
    // and their --help shows --all
    expect(lists.filter((c) => !c.examples.some((e) => /\s--all(\s|$)/.test(e))).map((c) => c.id)).toEqual([]);
  });

  test('destructive commands confirm with --yes (-y), and show it in an example', () => {
    const destructive = own.filter((c) => DESTRUCTIVE.test(c.id));
    expect(destructive.length).toBeGreaterThanOrEqual(25);
    expect(destructive.filter((c) => !c.flags.yes).map((c) => c.id)).toEqual([]);
    expect(destructive.filter((c) => !c.examples.some((e) => /\s(--yes|-y)(\s|$)/.test(e))).map((c) => c.id)).toEqual([]);
    // every --yes is the shared one: boolean, -y; and -y means nothing else
    expect(offenders((_c, name, f) => name === 'yes' && (f.type !== 'boolean' || f.char !== 'y' || f.description !== SHARED.yes))).toEqual(
      [],
    );
    expect(offenders((_c, name, f) => f.char === 'y' && name !== 'yes', commands)).toEqual([]);
    // a command that asks nothing does not offer --yes (status moves to active still accept it, hidden, for scripts)
    expect(own.filter((c) => !DESTRUCTIVE.test(c.id) && c.flags.yes && !c.flags.yes.hidden).map((c) => c.id)).toEqual(
      NON_DESTRUCTIVE_CONFIRMING,
    );
  });

  test('the destructive commands that took no --yes before (issue 11) now refuse without it off a terminal', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-flags-'));
    const id = '00000000-0000-4000-8000-000000000000';
    const env = { DATABASE_URL: `sqlite:${path.join(home, 'none.db')}`, PAYPLANE_HOME: home };
    try {
      const runs = await Promise.all(
        [
          ['channels', 'limits', 'disable', id, id],
          ['limits', 'disable', id],
          ['risk', 'plans', 'disable', id, '--tenant', id],
          ['users', 'disable', id],
          ['users', 'invitations', 'cancel', id],
        ].map(async (args) => {
          const res = await runCli([...args, '--json'], env);
          return [args.join(' '), res.status, res.json().error?.code];
        }),
      );
      expect(runs.filter(([, status, code]) => status !== 2 || code !== 'CONFIRMATION_REQUIRED')).toEqual([]);
      // activate asks nothing and offers no --yes, but a script passing it is not broken: the move is tried (404 here,
      // in a database made for it: on a missing one every command but those that create it answers 8)
      expect((await runCli(['db', 'migrate', '--json'], env)).status).toBe(0);
      const activate = await runCli(['tenants', 'activate', id, '--yes', '--json'], env);
      expect([activate.status, activate.json().error?.code]).toEqual([4, 'RESOURCE_NOT_FOUND']);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  test('no --force, --confirm or the like stands in for --yes', () => {
    const lookalikes = offenders(
      (c, name) =>
        /^(force|confirm(ed)?|assume-yes|no-prompt|non-interactive|sure)$/.test(name) &&
        !CONFIRMATION_LOOKALIKES_ALLOWED[`${c.id} --${name}`],
    );
    expect(lookalikes).toEqual([]);
    const existing = new Set(offenders(() => true));
    expect(Object.keys(CONFIRMATION_LOOKALIKES_ALLOWED).filter((k) => !existing.has(k))).toEqual([]);
  });
});
