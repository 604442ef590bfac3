import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, ROOT } from '../helpers/cli';

// Issue 24, item 11: what a command's start repeats (where each require leads, the modules' compiled code) is kept
// between runs (src/cli/compile-cache.ts). What is kept must never change what runs: a changed module is read anew,
// a damaged or foreign cache is ignored, and a module with import() still imports.

const COMPILE_CACHE = path.join(ROOT, 'dist', 'src', 'cli', 'compile-cache.js');
let work: string;

beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-compile-cache-test-'));
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

/** A tiny installation: main.js installs the cache (as bin/run.js does) and prints what its modules say. */
function installation(cacheDir: string) {
  const root = path.join(work, 'app');
  fs.mkdirSync(path.join(root, 'lib'), { recursive: true });
  fs.writeFileSync(path.join(root, 'package.json'), '{"name":"app"}');
  fs.writeFileSync(path.join(root, 'main.js'), `require(${JSON.stringify(COMPILE_CACHE)}).installCompileCache('cli', __dirname);
const said = require('./lib/say');
import('./lib/esm.mjs').then((m) => console.log(said() + ' ' + require('./lib/dynamic')() + ' ' + m.word));
`);
  fs.writeFileSync(path.join(root, 'lib', 'say.js'), 'module.exports = () => "one";\n');
  fs.writeFileSync(path.join(root, 'lib', 'dynamic.js'), 'module.exports = () => typeof import("node:path");\n');
  fs.writeFileSync(path.join(root, 'lib', 'esm.mjs'), 'export const word = "esm";\n');
  const run = () => spawnSync(process.execPath, [path.join(root, 'main.js')], { env: { ...process.env, NODE_COMPILE_CACHE: cacheDir }, encoding: 'utf8' });
  return { root, run };
}

describe('the compile cache', () => {
  test('a second run uses what the first kept; a changed module is read anew, even at the same size', () => {
    const cacheDir = path.join(work, 'cache');
    const app = installation(cacheDir);
    const first = app.run();
    expect(first.stderr).toBe('');
    expect(first.stdout.trim()).toBe('one object esm');
    const [file] = fs.readdirSync(cacheDir);
    expect(file).toMatch(/^cli-[0-9a-f]{12}-/);
    expect(fs.statSync(cacheDir).mode & 0o777).toBe(0o700);
    const kept = fs.readFileSync(path.join(cacheDir, file));
    expect(kept.includes(Buffer.from(path.join(app.root, 'lib', 'say.js')))).toBe(true);
    // nothing new to keep: the file is left as it is
    expect(app.run().stdout.trim()).toBe('one object esm');
    expect(fs.readFileSync(path.join(cacheDir, file)).equals(kept)).toBe(true);

    const say = path.join(app.root, 'lib', 'say.js');
    fs.writeFileSync(say, 'module.exports = () => "two";\n');
    fs.utimesSync(say, new Date(), new Date(Date.now() + 5_000));
    expect(app.run().stdout.trim()).toBe('two object esm');
    expect(app.run().stdout.trim()).toBe('two object esm');
  });

  test('a module moved away is looked up again; a damaged cache file is ignored and written anew', () => {
    const cacheDir = path.join(work, 'cache');
    const app = installation(cacheDir);
    expect(app.run().stdout.trim()).toBe('one object esm');
    fs.rmSync(path.join(app.root, 'lib', 'say.js'));
    fs.mkdirSync(path.join(app.root, 'lib', 'say'));
    fs.writeFileSync(path.join(app.root, 'lib', 'say', 'index.js'), 'module.exports = () => "moved";\n');
    expect(app.run().stdout.trim()).toBe('moved object esm');

    const [file] = fs.readdirSync(cacheDir);
    fs.writeFileSync(path.join(cacheDir, file), Buffer.concat([fs.readFileSync(path.join(cacheDir, file)).subarray(0, 300), Buffer.from('garbage')]));
    const damaged = app.run();
    expect(damaged.stderr).toBe('');
    expect(damaged.stdout.trim()).toBe('moved object esm');
    expect(fs.readFileSync(path.join(cacheDir, file)).includes(Buffer.from('garbage'))).toBe(false);
  });

  test('a folder others may write to is not used; NODE_DISABLE_COMPILE_CACHE turns it off', () => {
    const shared = path.join(work, 'shared');
    fs.mkdirSync(shared, { mode: 0o777 });
    fs.chmodSync(shared, 0o777);
    const app = installation(shared);
    expect(app.run().stdout.trim()).toBe('one object esm');
    expect(fs.readdirSync(shared)).toEqual([]);

    const off = path.join(work, 'off');
    const result = spawnSync(process.execPath, [path.join(app.root, 'main.js')], { env: { ...process.env, NODE_COMPILE_CACHE: off, NODE_DISABLE_COMPILE_CACHE: '1' }, encoding: 'utf8' });
    expect(result.stdout.trim()).toBe('one object esm');
    expect(fs.existsSync(off)).toBe(false);
  });

  test('the binary keeps its own cache: a command runs the same from it', () => {
    const cacheDir = path.join(work, 'bin-cache');
    const env = { ...process.env, NODE_COMPILE_CACHE: cacheDir };
    const first = spawnSync(process.execPath, [BIN, '--version'], { env, encoding: 'utf8' });
    const second = spawnSync(process.execPath, [BIN, '--version'], { env, encoding: 'utf8' });
    expect(first.status).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(fs.readdirSync(cacheDir).some((f) => f.startsWith('cli-'))).toBe(true);
  });
});
