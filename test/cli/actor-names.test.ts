import os from 'node:os';
import { withRuntimeOf, dialectName } from '../helpers/db';
import { useCliSandbox } from '../helpers/cli';
import { withdrawalsOfSandbox } from '../helpers/withdrawals';
import { claimExecution } from '../../src/services/withdrawals';
import { operatorContext, operatorUserId } from '../../src/services/access/operators';

/**
 * Issue 32 item 17: records hold the id of who acted (issue 20 item 14), and the CLI's messages had come to show that
 * id where they showed a name ("approved by <uuid>"). Wherever the CLI names an actor it shows the name and the id:
 * the steps of a withdrawal (approve, reject, execute, get), the risk records' createdBy/updatedBy, the "Created by"
 * column, and the messages of refused moves ("being executed by bob (…)"). Under --json the records keep the ids.
 */

jest.setTimeout(180_000);

const s = useCliSandbox();
const cli = s.cli;
const ok = s.ok;
/** "alice (<the id of alice's user>)" */
const named = (account: string) => `${account} (${operatorUserId(account)})`;

let requestWithdrawal: (valueMinor: number) => Promise<string>;

beforeAll(async () => {
  ({ requestWithdrawal } = await withdrawalsOfSandbox(s.db, s.sandbox, 'actor-names'));
});

describe(`the CLI names actors by name and id (${dialectName})`, () => {
  test('withdrawals approve, execute, reject and get: each step "by <name> (<id>)"; --json keeps the ids', async () => {
    const [paid, refused] = [await requestWithdrawal(1_000), await requestWithdrawal(2_000)];
    const approved = await ok('withdrawals', 'approve', paid, '--operator', 'alice');
    expect(approved.stdout).toMatch(new RegExp(`approved\\s+\\S+ by ${escape(named('alice'))}`));
    expect(approved.stdout).toMatch(new RegExp(`created\\s+\\S+ by ${escape(named('merchant-admin'))}`));
    const executed = await ok('withdrawals', 'execute', paid, '--complete', '--reference', 'BANK-1', '--operator', 'bob');
    expect(executed.stdout).toMatch(new RegExp(`executionStarted\\s+\\S+ by ${escape(named('bob'))}`));
    expect(executed.stdout).toMatch(new RegExp(`completed\\s+\\S+ by ${escape(named('bob'))}`));
    const rejected = await ok('withdrawals', 'reject', refused, '--reason', 'Destination not verified', '--operator', 'carol');
    expect(rejected.stdout).toMatch(new RegExp(`rejected\\s+\\S+ by ${escape(named('carol'))}`));
    const shown = await ok('withdrawals', 'get', paid);
    expect(shown.stdout).toContain(`by ${named('alice')}`);
    // no step is named by a bare id
    expect(shown.stdout).not.toMatch(/ by [0-9a-f-]{36}\b(?! ?\))/);
    const json = (await ok('withdrawals', 'get', paid, '--json')).json();
    expect(json).toMatchObject({ approvedBy: operatorUserId('alice'), executedBy: operatorUserId('bob') });
  });

  test('a refused move names the operator executing it: "being executed by bob (<id>)"', async () => {
    const id = await requestWithdrawal(3_000);
    await ok('withdrawals', 'approve', id, '--operator', 'alice');
    await withRuntimeOf(s.db, async (rt) => {
      await claimExecution(operatorContext(rt, { level: 'tenant', tenantId: s.sandbox.tenantId, livemode: false, operator: 'bob' }), id);
    });
    const other = await cli('withdrawals', 'execute', id, '--complete', '--reference', 'BANK-2', '--operator', 'carol');
    expect(other.status).toBe(5);
    expect(other.stderr.replace(/\s*›\s*/g, ' ')).toContain(named('bob'));
    const json = await cli('withdrawals', 'execute', id, '--fail', '--comment', 'no', '--operator', 'carol', '--json');
    expect(json.status).toBe(5);
    expect(json.json().error.message).toContain(named('bob'));
  });

  test('records printed whole (roles, users): their createdBy by name and id', async () => {
    const account = os.userInfo().username;
    const role = await ok('roles', 'create', '--tenant', s.sandbox.tenantId, '--name', 'Viewer', '--permission', 'access:users:view');
    expect(role.stdout).toMatch(new RegExp(`createdBy\\s+${escape(named(account))}`));
    const id = /^id\s+(\S+)/m.exec(role.stdout)![1];
    const shown = await ok('roles', 'get', id, '--tenant', s.sandbox.tenantId);
    expect(shown.stdout).toMatch(new RegExp(`createdBy\\s+${escape(named(account))}`));
    expect((await ok('roles', 'get', id, '--tenant', s.sandbox.tenantId, '--json')).json().createdBy).toBe(operatorUserId(account));
  });

  test('risk records and the "Created by" column: the name and the id', async () => {
    const tenant = ['--tenant', s.sandbox.tenantId];
    const list = (
      await ok('risk', 'lists', 'create', ...tenant, '--name', 'Blocked IPs', '--entry-type', 'ip', '--operator', 'alice', '--json')
    ).json();
    const entry = await ok('risk', 'lists', 'add-entry', list.id, '203.0.113.7', ...tenant, '--operator', 'alice');
    expect(entry.stdout).toMatch(new RegExp(`createdBy\\s+${escape(named('alice'))}`));
    const entries = await ok('risk', 'lists', 'entries', list.id, ...tenant);
    expect(entries.stdout).toContain(named('alice'));
    const group = await ok('risk', 'lists', 'get', list.id, ...tenant);
    expect(group.stdout).toMatch(new RegExp(`createdBy\\s+${escape(named('alice'))}`));
    const config = await ok('risk', 'config', 'set', ...tenant, '--challenge-score', '40', '--operator', 'carol');
    expect(config.stdout).toMatch(new RegExp(`updatedBy\\s+${escape(named('carol'))}`));
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
