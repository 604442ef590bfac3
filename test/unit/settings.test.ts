import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { SETTINGS } from '../../src/settings';

// Every setting is declared once in src/settings.ts (so payplane.config.json and `payplane config show` cover it), and
// the README's Configuration table documents exactly those.

const ROOT = path.resolve(__dirname, '../..');
/** variables that are no settings of the product: the test suite's own switches, and the file's own pointer */
const NOT_SETTINGS: Record<string, string> = {
  PAYPLANE_VALIDATE_RESPONSES: 'tests check every answer against the OpenAPI document',
  PAYPLANE_SECRET_SCAN_DIR: 'CI archives databases and logs for the secret scan',
  PAYPLANE_CONNECTION_GUARD_REPORT: 'the tests turn the connection guard on in the processes they start (test/setup-env.ts)',
  PAYPLANE_CONFIG: 'names the configuration file itself',
  NODE_COMPILE_CACHE: 'read by bin/run.js before any configuration (src/cli/compile-cache.ts), as Node 22 reads it',
  NODE_DISABLE_COMPILE_CACHE: 'the same',
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

describe('settings', () => {
  const declared = new Set(SETTINGS.map((s) => s.env));

  test('keys and variables are unique', () => {
    expect(new Set(SETTINGS.map((s) => s.key)).size).toBe(SETTINGS.length);
    expect(declared.size).toBe(SETTINGS.length);
  });

  test('every PAYPLANE_ variable the code reads is a declared setting', () => {
    const read = new Set<string>();
    for (const file of [...sourceFiles(path.join(ROOT, 'src')), ...sourceFiles(path.join(ROOT, 'commands'))]) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/\b(PAYPLANE_[A-Z_]+)\b/g)) read.add(m[1]);
    }
    const undeclared = [...read].filter((name) => !declared.has(name) && !(name in NOT_SETTINGS)).sort();
    expect(undeclared).toEqual([]);
  });

  test('the defaults config show prints are the ones the configuration takes (for the settings loadConfig reads)', () => {
    const defaults = loadConfig({}) as unknown as Record<string, unknown>;
    const numeric = SETTINGS.filter((setting) => setting.kind === 'int' && setting.key in defaults);
    expect(numeric.length).toBeGreaterThan(3);
    for (const setting of numeric) expect([setting.key, setting.default]).toEqual([setting.key, String(defaults[setting.key])]);
  });

  test("the README's Configuration table documents exactly the declared settings", () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 5));
    const rows = section.split('\n').filter((line) => line.startsWith('| `'));
    const documented = new Set(rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([A-Z_]+)`/g)].map((m) => m[1])));
    expect([...declared].filter((name) => !documented.has(name)).sort()).toEqual([]);
    const extra = [...documented].filter((name) => !declared.has(name) && name !== 'CHROMIUM_PATH' && !(name in NOT_SETTINGS));
    expect(extra).toEqual([]);
  });
});
