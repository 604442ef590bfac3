import { runCli } from '../helpers/cli';
import { closest } from '../../src/cli/hooks/command-not-found';

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
