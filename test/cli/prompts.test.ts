import fs from 'node:fs';
import path from 'node:path';
import { dialectName } from '../helpers/db';
import { ROOT, hasScript, runOnTerminal, useCliSandbox } from '../helpers/cli';
import { describeWhenPresent } from '../helpers/prerequisite';
import { confirmQuestion, limitLabel, restrictionLabel, userLabel } from '../../src/cli/prompts';
import { CancelledError } from '../../src/domain/errors';

// Issue 24 item 13, prompts: a confirmation names the record (what a person knows it by, and its id); "no" exits 9
// (CANCELLED: nothing changed), the same for every command; Ctrl-C at any prompt exits 130 with one quiet line.
// The built binary runs in a pseudo-terminal (script(1)) and is answered keystroke by keystroke, as an operator would.

const t = useCliSandbox();
const cli = t.cli;

interface TerminalRun {
  status: number | null;
  /** everything the terminal showed (stdout and stderr share it), escapes and carriage returns removed */
  screen: string;
}

/** The screen as text: no colour or cursor escapes, no carriage returns. */
const plain = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

/**
 * Runs `payplane <args>` on a terminal 250 columns wide (no prompt wraps mid-id), typing `keys` once `prompt`
 * shows on the screen.
 */
async function onTerminal(args: string[], prompt: string, keys: string): Promise<TerminalRun> {
  const run = await runOnTerminal(args, { cols: 250, env: t.env, steps: [{ waitFor: prompt, keys }], timeoutMs: 45_000 });
  return { status: run.status, screen: plain(run.output) };
}

/** a terminal test runs the binary up to six times, on 2 shared cores */
const TERMINAL_TEST_TIMEOUT = 240_000;

const NO = 'n\r';
const YES = 'y\r';
const CTRL_C = '\u0003';

/** Nothing alarming after an answer: no "Error:", no stack frame. */
function expectQuiet(run: TerminalRun): void {
  expect(run.screen).not.toMatch(/Error|\n\s+at .+:\d+:\d+/);
}

let sandbox: { tenantId: string; merchantKey: { id: string } };
let roleId: string;
let endpointId: string;
let tenantId: string;
let group: { id: string; entryId: string };

beforeAll(async () => {
  sandbox = t.sandbox;
  const role = await cli('roles', 'create', '--name', 'Support agents', '--json');
  expect(role.status).toBe(0);
  roleId = role.json().id;
  const endpoint = await cli(
    'webhooks',
    'endpoints',
    'create',
    '--tenant',
    sandbox.tenantId,
    '--url',
    'https://hooks.example.com/payplane',
    '--event',
    'payment.*',
    '--json',
  );
  expect(endpoint.status).toBe(0);
  endpointId = endpoint.json().id;
  const tenant = await cli('tenants', 'create', '--name', 'Acme Payments', '--json');
  expect(tenant.status).toBe(0);
  tenantId = tenant.json().id;
  const list = await cli(
    'risk',
    'lists',
    'create',
    '--tenant',
    sandbox.tenantId,
    '--name',
    'Blocked emails',
    '--entry-type',
    'email',
    '--json',
  );
  expect(list.status).toBe(0);
  const entry = await cli('risk', 'lists', 'add-entry', list.json().id, 'fraud@example.com', '--tenant', sandbox.tenantId, '--json');
  expect(entry.status).toBe(0);
  group = { id: list.json().id, entryId: entry.json().id };
}, 120_000);

describe('the one wording of a confirmation (src/cli/prompts.ts)', () => {
  test('verb, kind, "name" (id), the record it belongs to, then the consequence', () => {
    expect(confirmQuestion({ verb: 'Delete', noun: 'role', name: 'Support agents', id: 'r1' })).toBe('Delete role "Support agents" (r1)?');
    expect(confirmQuestion({ verb: 'Revoke', noun: 'API key', name: 'CI', id: 'k1', consequence: 'This cannot be undone.' })).toBe(
      'Revoke API key "CI" (k1)? This cannot be undone.',
    );
    expect(
      confirmQuestion({ verb: 'Delete', noun: 'MPI account', name: 'visa', of: { noun: 'terminal', name: 'Main EUR', id: 't1' } }),
    ).toBe('Delete MPI account "visa" of terminal "Main EUR" (t1)?');
    // a stored name cannot move the cursor or colour the terminal
    expect(confirmQuestion({ verb: 'Delete', noun: 'role', name: 'Evil\u001b[2J\nrole', id: 'r2' })).toBe(
      'Delete role "Evil [2J role" (r2)?',
    );
  });

  test('records without a name are named by what identifies them', () => {
    expect(userLabel({ email: 'jane@example.com', displayName: 'Jane Doe' })).toBe('Jane Doe <jane@example.com>');
    expect(userLabel({ email: 'jane@example.com', displayName: null })).toBe('jane@example.com');
    const limit = {
      metric: 'volume',
      threshold: 100_000_00,
      currency: 'EUR',
      period: { value: 1, unit: 'day' },
      paymentMethod: 'card',
      brand: 'visa',
      transactionType: 'payment',
    } as Parameters<typeof limitLabel>[0];
    expect(limitLabel(limit)).toBe('volume 100,000.00 EUR of card visa payments per day');
    expect(
      limitLabel({
        ...limit,
        metric: 'count',
        threshold: 5,
        currency: null,
        paymentMethod: null,
        brand: null,
        period: { value: 2, unit: 'week' },
      }),
    ).toBe('count 5 of payments per 2 weeks');
    expect(
      restrictionLabel({ action: 'deny', paymentMethod: null, brand: 'visa', transactionType: 'payment' } as Parameters<
        typeof restrictionLabel
      >[0]),
    ).toBe('deny visa payments');
  });

  test('"no" is one error everywhere: CANCELLED, exit 9', () => {
    const error = new CancelledError();
    expect([error.code, error.exitCode, error.detail]).toEqual(['CANCELLED', 9, 'Cancelled: nothing was changed.']);
  });

  test('every confirmation goes through confirmAction: no command words its own question', () => {
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith('.ts')) sources.push(file);
      }
    };
    walk(path.join(ROOT, 'commands'));
    walk(path.join(ROOT, 'src', 'cli'));
    const offenders = sources.filter(
      (file) =>
        /this\.confirm\(|\{[^}]*\bconfirm\b[^}]*\} = await import\('@inquirer\/prompts'\)/.test(fs.readFileSync(file, 'utf8')) &&
        !file.endsWith('base-command.ts'),
    );
    expect(offenders.map((f) => path.relative(ROOT, f))).toEqual([]);
  });
});

describeWhenPresent('the terminal tests', hasScript() ? null : 'no `script` command (bsdutils)')(
  `prompts on a terminal (${dialectName})`,
  () => {
    test(
      'keys revoke: the key by name and id; no exits 9 and revokes nothing, Ctrl-C exits 130, yes revokes',
      async () => {
        const id = sandbox.merchantKey.id;
        const question = `Revoke API key "Sandbox merchant key" (${id})? It stops authenticating at once. This cannot be undone.`;

        const no = await onTerminal(['keys', 'revoke', id], 'Revoke API key', NO);
        expect(no.screen).toContain(question);
        expect(no.screen).toContain('Cancelled: nothing was changed.');
        expect(no.status).toBe(9);
        expectQuiet(no);
        expect((await cli('keys', 'get', id, '--json')).json().revokedAt).toBeNull();

        const interrupted = await onTerminal(['keys', 'revoke', id], 'Revoke API key', CTRL_C);
        expect(interrupted.status).toBe(130);
        expect(interrupted.screen).toContain('Interrupted.');
        expect(interrupted.screen).not.toContain('Cancelled');
        expectQuiet(interrupted);
        expect((await cli('keys', 'get', id, '--json')).json().revokedAt).toBeNull();

        const yes = await onTerminal(['keys', 'revoke', id], 'Revoke API key', YES);
        expect(yes.status).toBe(0);
        expect(yes.screen).toContain(`Revoked ${id} (Sandbox merchant key)`);
        expect((await cli('keys', 'get', id, '--json')).json().revokedAt).toEqual(expect.any(String));
      },
      TERMINAL_TEST_TIMEOUT,
    );

    test(
      'roles delete: the role by name and id; no exits 9 and keeps it, yes deletes it',
      async () => {
        const no = await onTerminal(['roles', 'delete', roleId], 'Delete role', NO);
        expect(no.screen).toContain(`Delete role "Support agents" (${roleId})?`);
        expect([no.status, no.screen.includes('Cancelled: nothing was changed.')]).toEqual([9, true]);
        expectQuiet(no);
        const kept = await cli('roles', 'get', roleId, '--json');
        expect([kept.status, kept.json().name]).toEqual([0, 'Support agents']);

        const yes = await onTerminal(['roles', 'delete', roleId], 'Delete role', YES);
        expect(yes.status).toBe(0);
        expect((await cli('roles', 'get', roleId, '--json')).status).toBe(4);
      },
      TERMINAL_TEST_TIMEOUT,
    );

    test(
      'webhooks endpoints delete: the endpoint by url and id, and what follows; no exits 9 and keeps it',
      async () => {
        const no = await onTerminal(['webhooks', 'endpoints', 'delete', endpointId], 'Delete webhook endpoint', NO);
        expect(no.screen).toContain(
          `Delete webhook endpoint "https://hooks.example.com/payplane" (${endpointId})? Its pending deliveries are canceled.`,
        );
        expect(no.status).toBe(9);
        const kept = await cli('webhooks', 'endpoints', 'get', endpointId, '--json');
        expect([kept.status, kept.json().deletedAt ?? null]).toEqual([0, null]);
      },
      TERMINAL_TEST_TIMEOUT,
    );

    test(
      'a status move (tenants suspend): the tenant by name and id; no exits 9 and leaves it active, yes suspends it',
      async () => {
        const no = await onTerminal(['tenants', 'suspend', tenantId], 'Suspend tenant', NO);
        expect(no.screen).toContain(`Suspend tenant "Acme Payments" (${tenantId})?`);
        expect(no.status).toBe(9);
        expect((await cli('tenants', 'get', tenantId, '--json')).json().status).toBe('active');

        const interrupted = await onTerminal(['tenants', 'suspend', tenantId], 'Suspend tenant', CTRL_C);
        expect(interrupted.status).toBe(130);
        expect((await cli('tenants', 'get', tenantId, '--json')).json().status).toBe('active');

        const yes = await onTerminal(['tenants', 'suspend', tenantId], 'Suspend tenant', YES);
        expect(yes.status).toBe(0);
        expect(yes.screen).toContain(`Tenant Acme Payments (${tenantId}) is now suspended.`);
        expect((await cli('tenants', 'get', tenantId, '--json')).json().status).toBe('suspended');
      },
      TERMINAL_TEST_TIMEOUT,
    );

    test(
      'risk lists remove-entry: the entry by value and id, and its list by name and id; no exits 9 and keeps it',
      async () => {
        const no = await onTerminal(
          ['risk', 'lists', 'remove-entry', group.id, group.entryId, '--tenant', sandbox.tenantId],
          'Remove entry',
          NO,
        );
        expect(no.screen).toContain(`Remove entry "fraud@example.com" (${group.entryId}) from list group "Blocked emails" (${group.id})?`);
        expect(no.status).toBe(9);
        const entries = await cli('risk', 'lists', 'entries', group.id, '--tenant', sandbox.tenantId, '--json');
        expect(entries.json().data.map((e: { id: string }) => e.id)).toEqual([group.entryId]);
      },
      TERMINAL_TEST_TIMEOUT,
    );

    test(
      'Ctrl-C at an input prompt (a missing required flag) exits 130 and creates nothing',
      async () => {
        const before = (await cli('webhooks', 'endpoints', 'list', '--tenant', sandbox.tenantId, '--json')).json().data.length;
        const run = await onTerminal(['webhooks', 'endpoints', 'create', '--tenant', sandbox.tenantId], 'Receiver URL', CTRL_C);
        expect(run.status).toBe(130);
        expect(run.screen).toContain('Interrupted.');
        expectQuiet(run);
        expect((await cli('webhooks', 'endpoints', 'list', '--tenant', sandbox.tenantId, '--json')).json().data).toHaveLength(before);
      },
      TERMINAL_TEST_TIMEOUT,
    );

    test(
      'a missing record is 404 before any question (the record is loaded to name it)',
      async () => {
        const missing = '00000000-0000-4000-8000-000000000000';
        const child = await runOnTerminal(['terminals', 'disable', missing], { cols: 250, env: t.env, timeoutMs: 45_000 });
        expect(child.status).toBe(4);
        expect(plain(child.output)).not.toContain('Disable terminal');
      },
      TERMINAL_TEST_TIMEOUT,
    );
  },
);
