import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli';

// `payplane autocomplete` (@oclif/plugin-autocomplete): bash and zsh completion built from the commands themselves.

describe('shell completion', () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-ac-'));
  const env = { XDG_CACHE_HOME: cache, HOME: cache };
  const functions = path.join(cache, 'payplane', 'autocomplete', 'functions');
  afterAll(() => fs.rmSync(cache, { recursive: true, force: true }));

  beforeAll(async () => {
    const res = await runCli(['autocomplete', 'bash'], env);
    expect(res.status).toBe(0);
    expect(res.stdout).toContain('payplane autocomplete script bash');
  });

  test('`payplane autocomplete script bash` is a line for ~/.bashrc that sources the generated setup', async () => {
    const res = await runCli(['autocomplete', 'script', 'bash'], env);
    expect(res.status).toBe(0);
    expect(res.stdout).toContain(path.join(cache, 'payplane', 'autocomplete', 'bash_setup'));
  });

  test('bash completes topics, commands and flags', () => {
    const complete = (...words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `source ${JSON.stringify(path.join(functions, 'bash', 'payplane.bash'))}; COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _payplane_autocomplete; printf '%s\\n' "\${COMPREPLY[@]}" | sort -u`,
        ],
        { encoding: 'utf8' },
      )
        .trim()
        .split('\n');
    expect(complete('payplane', 'doc')).toEqual(['doctor']);
    expect(complete('payplane', 'keys', 'cr')).toEqual(['create']);
    expect(complete('payplane', 'keys', 'create', '--ten')).toEqual(['--tenant']);
    expect(complete('payplane', 'webhooks', 'deliveries', 're')).toEqual(['replay', 'retry']);
  });

  test("zsh gets a completion function with each command's flags and their descriptions", async () => {
    const res = await runCli(['autocomplete', 'script', 'zsh'], env);
    expect(res.status).toBe(0);
    const file = path.join(functions, 'zsh', '_payplane');
    const text = fs.readFileSync(file, 'utf8');
    expect(text.startsWith('#compdef payplane')).toBe(true);
    const keys = text.slice(text.indexOf('_payplane_keys() {'));
    expect(keys).toContain('"create[Issue an API key pair; the secret is shown once.]"');
    expect(keys.slice(keys.indexOf('"create")'))).toContain('--tenant"[Tenant id]');
    if (spawnSync('zsh', ['--version']).status === 0) expect(spawnSync('zsh', ['-n', file]).status).toBe(0);
  });
});
