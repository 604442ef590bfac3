import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

/**
 * Runs a CommonJS file (the CLI's bundle, dist/cli.js, written by bin/bundle.js) with the code V8 compiled for it on an
 * earlier run, and returns its exports. Compiling the bundle's modules again on every start would take about as long
 * as running them; Node 20 has no compile cache of its own (`module.enableCompileCache` came with Node 22, and does
 * not apply to `vm.Script`). This uses only public interfaces: `vm.Script`'s cached data, kept in one file per kind of
 * process (`serve` runs with other V8 flags, whose code V8 would refuse).
 *
 * The kept code is used only for the same file at the same size and modification time (V8 itself only compares the
 * source's length), and V8 refuses code made by another V8 or with other flags. It is written at the exit of a run that
 * had none (or whose code V8 refused), or whose `use` (the command) has not run since it was written, with what was
 * kept and the functions that run compiled; whole to a temporary file, renamed, so that processes starting at once
 * never read half of it. The file must not use `import()`: code V8 made
 * from cached data has no dynamic import callback on Node 20 (bin/bundle.js writes each `import()` as a `require`).
 *
 * As with Node's own: NODE_COMPILE_CACHE names the folder (default: <tmp>/payplane-compile-cache-<uid>), used only
 * while it is this user's and nobody else may write to it (kept code is run as it is), and NODE_DISABLE_COMPILE_CACHE=1
 * turns it off.
 */
export function requireWithCodeCache(file: string, kind: string, use: string, env: NodeJS.ProcessEnv = process.env): unknown {
  // latin1: esbuild writes ASCII, and V8 then keeps the source as one byte a character
  const source = fs.readFileSync(file, 'latin1');
  const cacheFile = cacheFileOf(file, kind, env);
  const stat = fs.statSync(file);
  const stamp = `${MAGIC} ${stat.size} ${stat.mtimeMs}`;
  const kept = cacheFile === undefined ? undefined : readKept(cacheFile, stamp);
  const cachedData = kept?.data;
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const module = { exports: {} as unknown };
  type Wrapper = (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  const run = script.runInThisContext() as Wrapper;
  run.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  if (cacheFile !== undefined && (kept === undefined || script.cachedDataRejected || !kept.uses.includes(use))) {
    const uses = kept && !script.cachedDataRejected ? [...kept.uses, use].slice(-MAX_USES) : [use];
    process.once('exit', () => writeKept(cacheFile, stamp, uses, script.createCachedData()));
  }
  return module.exports;
}

const MAGIC = 'payplane-code-cache-1';
/** the commands remembered as kept: past this, the oldest is forgotten (and kept again when it runs) */
const MAX_USES = 40;

/** The file of kept code for `file` and `kind`, or undefined when turned off or when the folder is not safe to use. */
function cacheFileOf(file: string, kind: string, env: NodeJS.ProcessEnv): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const dir = env.NODE_COMPILE_CACHE || path.join(os.tmpdir(), `payplane-compile-cache-${uid ?? 'user'}`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = fs.statSync(dir);
    if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0) return undefined;
  } catch {
    return undefined;
  }
  const installation = createHash('sha1').update(file).digest('hex').slice(0, 12);
  return path.join(dir, `${kind}-${installation}-${process.arch}-${process.versions.v8}.bin`);
}

/** The kept code: a line of the stamp and the uses it holds, then V8's data; undefined when none is for this file as it is. */
function readKept(cacheFile: string, stamp: string): { uses: string[]; data: Buffer } | undefined {
  try {
    const raw = fs.readFileSync(cacheFile);
    const line = raw.indexOf(10);
    const [head, uses] = raw.toString('utf8', 0, Math.max(line, 0)).split('\t');
    return line > 0 && head === stamp ? { uses: JSON.parse(uses) as string[], data: raw.subarray(line + 1) } : undefined;
  } catch {
    return undefined;
  }
}

function writeKept(cacheFile: string, stamp: string, uses: string[], data: Buffer): void {
  try {
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, Buffer.concat([Buffer.from(`${stamp}\t${JSON.stringify(uses)}\n`), data]), { mode: 0o600 });
    fs.renameSync(temporary, cacheFile);
  } catch {
    // a cache that cannot be written (a read-only or full disk) only makes the next start slower
  }
}
