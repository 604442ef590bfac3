import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, ROOT } from '../helpers/cli';

// The CLI's bundle runs with the code V8 compiled for it on an earlier run (src/cli/compile-cache.ts). What is kept
// must never change what runs: a changed bundle is compiled anew, a damaged cache is ignored, and a folder others may
// write to is not used.

const COMPILE_CACHE = path.join(ROOT, 'dist', 'src', 'cli', 'compile-cache.js');
let work: string;

beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-compile-cache-test-'));
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

/** A tiny installation: main.js runs lib/bundle.js through the cache (as src/cli/commands.ts does) and prints what it says. */
function installation(cacheDir: string) {
  const root = path.join(work, 'app');
  fs.mkdirSync(path.join(root, 'lib'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'main.js'),
    `const bundle = require(${JSON.stringify(COMPILE_CACHE)}).requireWithCodeCache(require('node:path').join(__dirname, 'lib', 'bundle.js'), 'cli', process.argv[2] ?? 'main');
bundle.word().then((word) => console.log(word));
`,
  );
  const bundle = path.join(root, 'lib', 'bundle.js');
  const write = (word: string) =>
    fs.writeFileSync(bundle, `exports.word = async () => ${JSON.stringify(word)} + ' ' + typeof require('node:path').join;\n`);
  write('one');
  const run = (env: NodeJS.ProcessEnv = {}, use?: string) =>
    spawnSync(process.execPath, [path.join(root, 'main.js'), ...(use ? [use] : [])], {
      env: { ...process.env, NODE_COMPILE_CACHE: cacheDir, ...env },
      encoding: 'utf8',
    });
  return { root, bundle, write, run };
}

describe('the code cache of the bundle', () => {
  test('a second run uses what the first kept; a changed bundle is compiled anew, even at the same size', () => {
    const cacheDir = path.join(work, 'cache');
    const app = installation(cacheDir);
    const first = app.run();
    expect(first.stderr).toBe('');
    expect(first.stdout.trim()).toBe('one function');
    const [file] = fs.readdirSync(cacheDir);
    expect(file).toMatch(/^cli-[0-9a-f]{12}-/);
    expect(fs.statSync(cacheDir).mode & 0o777).toBe(0o700);
    const kept = fs.readFileSync(path.join(cacheDir, file));
    // nothing new to keep: the file is left as it is
    expect(app.run().stdout.trim()).toBe('one function');
    expect(fs.readFileSync(path.join(cacheDir, file)).equals(kept)).toBe(true);
    // another command adds what it compiled, once
    expect(app.run({}, 'other').stdout.trim()).toBe('one function');
    const both = fs.readFileSync(path.join(cacheDir, file));
    expect(both.equals(kept)).toBe(false);
    expect(app.run({}, 'other').stdout.trim()).toBe('one function');
    expect(fs.readFileSync(path.join(cacheDir, file)).equals(both)).toBe(true);

    app.write('two');
    fs.utimesSync(app.bundle, new Date(), new Date(Date.now() + 5_000));
    expect(app.run().stdout.trim()).toBe('two function');
    expect(app.run().stdout.trim()).toBe('two function');
  });

  test('a damaged cache file is ignored and written anew', () => {
    const cacheDir = path.join(work, 'cache');
    const app = installation(cacheDir);
    expect(app.run().stdout.trim()).toBe('one function');
    const [file] = fs.readdirSync(cacheDir);
    const kept = fs.readFileSync(path.join(cacheDir, file));
    fs.writeFileSync(path.join(cacheDir, file), Buffer.concat([kept.subarray(0, kept.indexOf(10) + 20), Buffer.from('garbage')]));
    const damaged = app.run();
    expect(damaged.stderr).toBe('');
    expect(damaged.stdout.trim()).toBe('one function');
    expect(fs.readFileSync(path.join(cacheDir, file)).includes(Buffer.from('garbage'))).toBe(false);
  });

  test('a folder others may write to is not used; NODE_DISABLE_COMPILE_CACHE turns it off', () => {
    const shared = path.join(work, 'shared');
    fs.mkdirSync(shared, { mode: 0o777 });
    fs.chmodSync(shared, 0o777);
    const app = installation(shared);
    expect(app.run().stdout.trim()).toBe('one function');
    expect(fs.readdirSync(shared)).toEqual([]);

    const off = path.join(work, 'off');
    const result = app.run({ NODE_COMPILE_CACHE: off, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(result.stdout.trim()).toBe('one function');
    expect(fs.existsSync(off)).toBe(false);
  });

  test('the binary keeps its own cache: a command runs the same from it', () => {
    const cacheDir = path.join(work, 'bin-cache');
    const env = { ...process.env, NODE_COMPILE_CACHE: cacheDir, PAYPLANE_HOME: work, NO_COLOR: '1' };
    const first = spawnSync(process.execPath, [BIN, 'config', 'show', '--json'], { env, encoding: 'utf8' });
    const second = spawnSync(process.execPath, [BIN, 'config', 'show', '--json'], { env, encoding: 'utf8' });
    expect(first.status).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(fs.readdirSync(cacheDir).some((f) => f.startsWith('cli-'))).toBe(true);
  });
});
