import { createHash } from 'node:crypto';
import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

/**
 * What a command's start repeats on every run, kept between runs (issue 24, item 11): where each `require` leads, and
 * the compiled code of the modules. An admin command spent about a fifth of its time finding its 500 to 600 modules
 * (stat calls and package.json reads) and as much compiling them. bin/run.js installs it before anything else is
 * loaded.
 *
 * Where a `require` of a module in a folder leads is kept while the installation is unchanged: the modification times
 * of package.json, node_modules/.package-lock.json (npm writes it on every install) and oclif.manifest.json (written
 * by every build) are the file's stamp, and a remembered file that no longer exists is looked up again.
 *
 * On Node 22 and later this is Node's own cache (`module.enableCompileCache`). Node 20 has none, so this is the same
 * idea on `vm.Script`'s cached data: each CommonJS module is compiled with the code V8 made for it last time, and at
 * exit the code of what was compiled anew (with the functions the run compiled lazily) is written back. One file per
 * kind of process (`serve` runs with other V8 flags, whose code V8 would refuse), written whole to a temporary file and
 * renamed, so processes starting at once never read half a file; an entry is used only while its source file has the
 * same size and modification time, and V8 itself refuses code made by another V8 or with other flags.
 *
 * As with Node's own: NODE_COMPILE_CACHE names the folder (default: <tmp>/payplane-compile-cache-<uid>), and
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off. A module that uses `import()` or `import.meta` is compiled as Node
 * compiles it (code from cached data would have no dynamic import callback), and so is anything the cache cannot
 * compile (Node's own loader then says why).
 */

interface Entry {
  mtimeMs: number;
  size: number;
  length: number;
  /** V8's code */
  data: Buffer;
  /** the module's source as the loader read it (its file is not read again while its size and time are the same) */
  source: Buffer;
  /** the source is ASCII (read as latin1, which makes its string at once) */
  ascii: boolean;
}

interface InternalModule {
  exports: unknown;
  filename: string;
  require(id: string): unknown;
  _compile(content: string, filename: string): unknown;
}

type CompileFn = (this: InternalModule, content: string, filename: string) => unknown;

const MAGIC = 'payplane-compile-cache-4';

interface InternalLoader {
  prototype: { _compile: CompileFn };
  _resolveFilename(request: string, parent: InternalModule | undefined, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: InternalModule): string[];
  _extensions: Record<string, (module: InternalModule, filename: string) => unknown>;
  _cache: unknown;
}

/**
 * Installs the cache for this process; `kind` names its file (`cli` or `serve`), `root` is the installation's folder
 * (each installation has its own file). Does nothing when turned off.
 */
export function installCompileCache(kind: string, root: string, env: NodeJS.ProcessEnv = process.env): void {
  if (env.NODE_DISABLE_COMPILE_CACHE) return;
  const dir = env.NODE_COMPILE_CACHE || path.join(os.tmpdir(), `payplane-compile-cache-${typeof process.getuid === 'function' ? process.getuid() : 'user'}`);
  const nodeModule = Module as unknown as { enableCompileCache?: (dir?: string) => unknown };
  if (typeof nodeModule.enableCompileCache === 'function') {
    nodeModule.enableCompileCache(dir);
    return;
  }
  if (!ownFolder(dir)) return;
  const installation = createHash('sha1').update(root).digest('hex').slice(0, 12);
  new CompileCache(path.join(dir, `${kind}-${installation}-${process.arch}-${process.versions.v8}.bin`), stampOf(root)).install();
}

/** The installation's stamp: what changes when a build or an install changes where a require leads. */
function stampOf(root: string): string {
  return ['package.json', 'node_modules/.package-lock.json', 'oclif.manifest.json']
    .map((file) => fs.statSync(path.join(root, file), { throwIfNoEntry: false })?.mtimeMs ?? 0)
    .join(':');
}

/**
 * The folder, made if missing, only when it is this user's and nobody else may write to it: cached code is run as it
 * is, so a folder someone else made in a shared /tmp must not be used.
 */
function ownFolder(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = fs.statSync(dir);
    return stat.isDirectory() && (typeof process.getuid !== 'function' || stat.uid === process.getuid()) && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

class CompileCache {
  private readonly entries = new Map<string, Entry>();
  /** `<folder of the requiring module>\0<request>` to the file it led to, while the stamp is the same */
  private resolved = new Map<string, string>();
  private resolvedChanged = false;
  /** the files this process found (resolved or compiled): their stat */
  private readonly stats = new Map<string, fs.Stats | undefined>();
  /** scripts compiled without usable cached data: their code is written at exit */
  private readonly fresh: Array<{ filename: string; mtimeMs: number; size: number; content: string; script: vm.Script }> = [];

  constructor(private readonly file: string, private readonly stamp: string) {
    this.read();
  }

  private stat(filename: string): fs.Stats | undefined {
    if (!this.stats.has(filename)) this.stats.set(filename, fs.statSync(filename, { throwIfNoEntry: false }));
    return this.stats.get(filename);
  }

  install(): void {
    const internal = Module as unknown as InternalLoader;
    const cache = this;
    const resolve = internal._resolveFilename;
    internal._resolveFilename = function resolveFilename(request, parent, isMain, options) {
      // a require of a module (not require.resolve with paths, not the main script, not a node: module)
      if (options !== undefined || isMain || !parent?.filename || request.startsWith('node:')) return resolve.call(this, request, parent, isMain, options);
      const key = `${path.dirname(parent.filename)}\0${request}`;
      const known = cache.resolved.get(key);
      if (known !== undefined && (known === request || cache.stat(known)?.isFile())) return known;
      const filename = resolve.call(this, request, parent, isMain, options);
      cache.resolved.set(key, filename);
      cache.resolvedChanged = true;
      return filename;
    };
    // a module kept with its source is not read again (nor its package.json asked whether it is an ES module: it was
    // compiled as CommonJS, and a changed package.json changes the stamp)
    const loadJs = internal._extensions['.js'];
    internal._extensions['.js'] = function loadKept(module, filename) {
      const source = cache.sourceOf(filename);
      if (source === undefined) return loadJs.call(this, module, filename);
      return module._compile(source, filename);
    };
    const original = internal.prototype._compile;
    internal.prototype._compile = function compile(this: InternalModule, content: string, filename: string) {
      if (content.includes('import(') || content.includes('import.meta')) return original.call(this, content, filename);
      let compiled: Function;
      try {
        compiled = cache.compile(content, filename);
      } catch {
        return original.call(this, content, filename);
      }
      const module = this;
      const requireOf = Object.assign((id: string) => module.require(id), {
        resolve: Object.assign((request: string, options?: unknown) => internal._resolveFilename(request, module, false, options), {
          paths: (request: string) => internal._resolveLookupPaths(request, module),
        }),
        main: process.mainModule,
        extensions: internal._extensions,
        cache: internal._cache,
      });
      return compiled.call(module.exports, module.exports, requireOf, module, filename, path.dirname(filename));
    };
    process.once('exit', () => this.write());
  }

  /** The kept entry of a file whose size and modification time are unchanged. */
  private current(filename: string): Entry | undefined {
    const entry = this.entries.get(filename);
    if (!entry) return undefined;
    const stat = this.stat(filename);
    return stat && entry.mtimeMs === stat.mtimeMs && entry.size === stat.size ? entry : undefined;
  }

  sourceOf(filename: string): string | undefined {
    const entry = this.current(filename);
    return entry?.source.toString(entry.ascii ? 'latin1' : 'utf8');
  }

  private compile(content: string, filename: string): Function {
    const wrapper = Module.wrap(content.startsWith('#!') ? `//${content}` : content);
    const entry = this.current(filename);
    const usable = entry && entry.length === content.length ? entry.data : undefined;
    const script = new vm.Script(wrapper, { filename, cachedData: usable });
    if (!usable || script.cachedDataRejected) {
      const stat = this.stat(filename);
      if (stat) this.fresh.push({ filename, mtimeMs: stat.mtimeMs, size: stat.size, content, script });
    }
    return script.runInThisContext({ displayErrors: true }) as Function;
  }

  /**
   * The file: MAGIC, one JSON line ({stamp, resolved, modules: [{filename, mtimeMs, size, length, ascii, sourceBytes,
   * bytes}]}), then each module's source and code bytes, in that order.
   */
  private read(): void {
    let raw: Buffer;
    try {
      raw = fs.readFileSync(this.file);
    } catch {
      return;
    }
    try {
      const first = raw.indexOf(10);
      if (raw.toString('latin1', 0, first) !== MAGIC) return;
      const line = raw.indexOf(10, first + 1);
      const head = JSON.parse(raw.toString('utf8', first + 1, line)) as { stamp: string; resolved: Record<string, string>; modules: Array<Omit<Entry, 'data' | 'source'> & { filename: string; sourceBytes: number; bytes: number }> };
      let at = line + 1;
      const entries = new Map<string, Entry>();
      for (const { filename, mtimeMs, size, length, ascii, sourceBytes, bytes } of head.modules) {
        const source = raw.subarray(at, at + sourceBytes);
        const data = raw.subarray(at + sourceBytes, at + sourceBytes + bytes);
        if (source.length !== sourceBytes || data.length !== bytes) return;
        entries.set(filename, { mtimeMs, size, length, ascii, source, data });
        at += sourceBytes + bytes;
      }
      for (const [filename, entry] of entries) this.entries.set(filename, entry);
      if (head.stamp === this.stamp) this.resolved = new Map(Object.entries(head.resolved));
    } catch {
      // a damaged file is as good as none: what it held is compiled again and written anew
    }
  }

  private write(): void {
    if (this.fresh.length === 0 && !this.resolvedChanged) return;
    try {
      for (const { filename, mtimeMs, size, content, script } of this.fresh) {
        const source = Buffer.from(content, 'utf8');
        this.entries.set(filename, { mtimeMs, size, length: content.length, ascii: source.length === content.length, source, data: script.createCachedData() });
      }
      const modules: Array<Record<string, unknown>> = [];
      const blobs: Buffer[] = [];
      for (const [filename, { mtimeMs, size, length, ascii, source, data }] of this.entries) {
        if (!this.stat(filename)) continue;
        modules.push({ filename, mtimeMs, size, length, ascii, sourceBytes: source.length, bytes: data.length });
        blobs.push(source, data);
      }
      const head = JSON.stringify({ stamp: this.stamp, resolved: Object.fromEntries(this.resolved), modules });
      const parts = [Buffer.from(`${MAGIC}\n${head}\n`), ...blobs];
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      const temporary = `${this.file}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, Buffer.concat(parts), { mode: 0o600 });
      fs.renameSync(temporary, this.file);
    } catch {
      // a cache that cannot be written (a read-only or full disk) only makes the next start slower
    }
  }
}
