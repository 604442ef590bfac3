import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pageName } from '../../src/cli/man';
import { ROOT } from '../helpers/cli';
import { testWhenPresent } from '../helpers/prerequisite';

// man/ is generated from the command manifest by `npm run man`: every command has its page, and the pages on disk are
// what the commands say today.

const MAN = path.join(ROOT, 'man');
const hasMan = spawnSync('man', ['--version']).status === 0 && spawnSync('groff', ['--version']).status === 0;

describe('man pages', () => {
  let pages: Map<string, string>;
  let ids: string[];
  beforeAll(() => {
    // oclif loads the commands with dynamic imports, which jest's module sandbox refuses: generated in a child process
    const generated = JSON.parse(
      execFileSync(process.execPath, [path.join(ROOT, 'dist/src/cli/man.js'), '--json'], {
        cwd: ROOT,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      }),
    ) as Record<string, string>;
    pages = new Map(Object.entries(generated));
    // the commands as oclif finds them: every file under dist/commands (index files name their folder)
    const walk = (dir: string): string[] =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : []));
    const commands = path.join(ROOT, 'dist/commands');
    ids = walk(commands).map((file) =>
      path
        .relative(commands, file)
        .replace(/\.js$/, '')
        .replace(/\/index$/, '')
        .split(path.sep)
        .join(':'),
    );
  });

  test('every command has a page, and payplane(1) lists them all', () => {
    const onDisk = new Set(fs.readdirSync(MAN));
    const missing = ids.map((id) => `${pageName(id)}.1`).filter((name) => !onDisk.has(name));
    expect(missing).toEqual([]);
    expect(onDisk.has('payplane.1')).toBe(true);
    const index = fs.readFileSync(path.join(MAN, 'payplane.1'), 'utf8');
    for (const id of ids) expect(index).toContain(`.B payplane ${id.split(':').join(' ').replace(/-/g, '\\-')}`);
  });

  test('the pages are current: exactly what `npm run man` writes today', () => {
    const onDisk = fs.readdirSync(MAN).sort();
    expect(onDisk).toEqual([...pages.keys()].sort());
    const stale = [...pages].filter(([name, text]) => fs.readFileSync(path.join(MAN, name), 'utf8') !== text).map(([name]) => name);
    if (stale.length) throw new Error(`stale man pages (run \`npm run man\`): ${stale.join(', ')}`);
  });

  test('every command has examples in --help, and they are on its page', () => {
    const text = pages.get('payplane-keys-create.1')!;
    expect(text).toContain('.SH EXAMPLES');
    for (const [name, page] of pages) if (name !== 'payplane.1') expect([name, page.includes('.SH EXAMPLES')]).toEqual([name, true]);
  });

  testWhenPresent('the man rendering test', hasMan ? null : 'no `man` or `groff` (apt-get install man-db groff-base)')(
    '`man ./man/payplane-keys-create.1` renders synopsis, options, examples, environment and exit codes, and groff warns of nothing',
    () => {
      const out = execFileSync('man', ['./man/payplane-keys-create.1'], {
        cwd: ROOT,
        env: { ...process.env, MANPAGER: 'cat', MANWIDTH: '100' },
        encoding: 'utf8',
      });
      for (const heading of ['NAME', 'SYNOPSIS', 'OPTIONS', 'GLOBAL OPTIONS', 'EXAMPLES', 'ENVIRONMENT', 'EXIT STATUS', 'SEE ALSO'])
        expect(out).toMatch(new RegExp(`^${heading}$`, 'm'));
      expect(out).toMatch(/payplane keys create --tenant value \[flags\]/);
      expect(out).toMatch(/--expires-at value\s+Expiry as an ISO 8601 date-time\./);
      expect(out).toContain('payplane keys create --tenant 6f1c… --name "Backend"');
      expect(out).toMatch(/^\s+4\s+not found$/m);
      const warnings = [...pages.keys()]
        .map((name) => spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', path.join(MAN, name)], { encoding: 'utf8' }).stderr)
        .filter(Boolean);
      expect(warnings).toEqual([]);
    },
  );
});
