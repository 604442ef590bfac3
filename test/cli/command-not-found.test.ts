import { runCli } from '../helpers/cli';
import { closest } from '../../src/cli/hooks/command-not-found';
import { closestFlags } from '../../src/cli/hooks/flag-not-found';

// Issue 24, item 10: a mistyped command is answered with the command it is closest to, exit 2, in JSON under --json.

describe('a mistyped command', () => {
  test('tenant list --json: "did you mean tenants list" as the JSON error, exit 2', async () => {
    const res = await runCli(['tenant', 'list', '--json']);
    expect(res.status).toBe(2);
    const { error } = res.json();
    expect(error).toMatchObject({ code: 'COMMAND_NOT_FOUND', exitCode: 2, suggestions: ['payplane tenants list'] });
    expect(error.message).toContain('Did you mean `payplane tenants list`?');
    expect(error.message).not.toContain('tenant:list');
  });

  test('as text on stderr, with the names spelled as typed (spaces, not colons)', async () => {
    const res = await runCli(['webhook', 'deliveries', 'list']);
    expect(res.status).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('"payplane webhook deliveries list" is not a command. Did you mean `payplane webhooks deliveries list`?');
    expect(res.stderr).not.toMatch(/webhook:deliveries/);
    const sub = await runCli(['tenants', 'lst']);
    expect(sub.status).toBe(2);
    expect(sub.stderr).toContain('Did you mean `payplane tenants list`?');
  });

  test('nothing close: no suggestion, the hint names help, exit 2', async () => {
    const res = await runCli(['frobnicate', '--json']);
    expect(res.status).toBe(2);
    expect(res.json().error).toMatchObject({ code: 'COMMAND_NOT_FOUND', suggestions: [], hint: expect.stringContaining('payplane help') });
  });
});

describe('closest', () => {
  const names = ['tenants list', 'tenants get', 'tenants', 'keys list', 'webhooks deliveries list', 'payments capture'];
  test('by the whole name and word by word, best first, within a third of the length', () => {
    expect(closest('tenant list', names)[0]).toBe('tenants list');
    expect(closest('tenants lst', names)[0]).toBe('tenants list');
    expect(closest('key list', names)).toEqual(['keys list']);
    expect(closest('paymnts captur', names)).toEqual(['payments capture']);
    expect(closest('zzz', names)).toEqual([]);
  });
});

// Issue 32, item 6: a mistyped flag gets the same: the nearest flag and a short usage line (not oclif's "Nonexistent
// flag" and the whole help), exit 2, in JSON under --json (src/cli/hooks/flag-not-found.ts, applied by BaseCommand).
describe('a mistyped flag', () => {
  test('as text: the nearest flag and one usage line, exit 2, not the whole help', async () => {
    const res = await runCli(['tenants', 'list', '--colums', 'id']);
    expect(res.status).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('Unknown flag --colums for `payplane tenants list`. Did you mean --columns?');
    expect(res.stderr).toContain('Usage: payplane tenants list [FLAGS]');
    expect(res.stderr).not.toMatch(/Nonexistent flag|USAGE|FLAGS\n|GLOBAL FLAGS|See more help/);
    expect(res.stderr.trim().split('\n').length).toBeLessThanOrEqual(4);
  });

  test('under --json: UNKNOWN_FLAG with the suggestions and the usage as hint, exit 2', async () => {
    const res = await runCli(['refunds', 'create', '00000000-0000-4000-8000-000000000000', '--ammount=10', '--json']);
    expect(res.status).toBe(2);
    const { error } = res.json();
    expect(error).toMatchObject({ code: 'UNKNOWN_FLAG', exitCode: 2, suggestions: ['--amount'] });
    expect(error.message).toBe('Unknown flag --ammount for `payplane refunds create`. Did you mean --amount?');
    expect(error.hint).toMatch(/^Usage: payplane refunds create PAYMENTID \[FLAGS\]/);
  });

  test('every kind of flag is found: a negation, a global flag, a table flag; nothing close gives the usage alone', async () => {
    const truncate = await runCli(['payments', 'list', '--tenant', '00000000-0000-4000-8000-000000000000', '--no-truncat', '--json']);
    expect(truncate.json().error.suggestions[0]).toBe('--no-truncate');
    const database = await runCli(['tenants', 'list', '--databse-url', 'sqlite::memory:', '--json']);
    expect(database.json().error.suggestions[0]).toBe('--database-url');
    const dispatch = await runCli(['serve', '--no-dispach', '--json']);
    expect(dispatch.json().error.suggestions[0]).toBe('--no-dispatch');
    const none = await runCli(['tenants', 'list', '--frobnicate', '--json']);
    expect(none.status).toBe(2);
    expect(none.json().error).toMatchObject({
      code: 'UNKNOWN_FLAG',
      suggestions: [],
      hint: expect.stringContaining('payplane tenants list --help'),
    });
    expect(none.json().error.message).not.toContain('Did you mean');
  });

  test("a missing or unexpected argument: oclif's message and the short usage, not the whole help", async () => {
    const missing = await runCli(['withdrawals', 'approve']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('Usage: payplane withdrawals approve ID [FLAGS]');
    expect(missing.stderr).not.toMatch(/USAGE|GLOBAL FLAGS/);
    const extra = await runCli(['keys', 'get', '00000000-0000-4000-8000-000000000000', 'surplus', '--json']);
    expect(extra.status).toBe(2);
    expect(extra.json().error).toMatchObject({ code: 'UNEXPECTED_ARGUMENT', exitCode: 2 });
  });
});

describe('closestFlags', () => {
  const flags = ['--columns', '--csv', '--no-truncate', '--limit', '--cursor', '--all', '--json', '--database-url'];
  test('by edit distance, else the flags it begins or that hold it', () => {
    expect(closestFlags('--colums', flags)[0]).toBe('--columns');
    expect(closestFlags('--truncate', flags)).toEqual(['--no-truncate']);
    expect(closestFlags('--databa', flags)).toEqual(['--database-url']);
    expect(closestFlags('--zzzzzz', flags)).toEqual([]);
  });
});
