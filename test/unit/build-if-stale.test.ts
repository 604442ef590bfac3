import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/cli';

// Issue 24, item 11: `npm start` compiles once on a fresh clone (npm ci's prepare builds) and not again while dist/ is
// current: its prestart is bin/build-if-stale.js, which builds only when a source is newer than its output.
const { staleSource } = require(path.join(ROOT, 'bin', 'build-if-stale.js')) as { staleSource(root: string): string | null };

describe('build-if-stale', () => {
  let root: string;
  const write = (file: string, at: number) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), '');
    fs.utimesSync(path.join(root, file), at, at);
  };
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-stale-'));
    write('tsconfig.json', 1_000);
    write('src/a.ts', 2_000);
    write('commands/b.ts', 2_000);
    write('dist/src/a.js', 3_000);
    write('dist/commands/b.js', 3_000);
    write('oclif.manifest.json', 3_000);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  test('current: nothing to build', () => {
    expect(staleSource(root)).toBeNull();
  });

  test('a source newer than its output, a source without output, a newer tsconfig or no manifest: build', () => {
    write('commands/b.ts', 4_000);
    expect(staleSource(root)).toBe(path.join('commands', 'b.ts'));
    write('commands/b.ts', 2_000);
    write('src/new.ts', 2_000);
    expect(staleSource(root)).toBe(path.join('src', 'new.ts'));
    fs.rmSync(path.join(root, 'src', 'new.ts'));
    write('tsconfig.json', 5_000);
    expect(staleSource(root)).not.toBeNull();
    write('tsconfig.json', 1_000);
    fs.rmSync(path.join(root, 'oclif.manifest.json'));
    expect(staleSource(root)).toMatch(/oclif\.manifest\.json/);
  });

  test('npm start builds through it; npm ci builds once (prepare)', () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;
    expect(scripts.prestart).toBe('node bin/build-if-stale.js');
    expect(scripts.prepare).toBe('npm run build');
    expect(staleSource(ROOT)).toBeNull(); // npm test has just built this checkout
  });
});
