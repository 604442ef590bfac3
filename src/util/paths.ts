import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

let root: string | undefined;
/** The project root (where package.json and fixtures/ live), from src/ under tests or dist/src/ when built. */
export function projectRoot(): string {
  if (root) return root;
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'fixtures')) || !fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('payplane: cannot find the project root (fixtures/ next to package.json)');
    dir = parent;
  }
  root = dir;
  return dir;
}

export function fixturePath(name: string): string {
  return path.join(projectRoot(), 'fixtures', name);
}

/**
 * Writes a file readable by its owner only (secrets, sandbox credentials), whole or not at all: a temporary file
 * renamed over it, so that a reader (another process) never sees half of it, nor a mix of two writers.
 */
export function writePrivateFile(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(temporary, content, { mode: 0o600 });
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, file);
}

/**
 * Reads a generated secret file, creating it with `generate()` when absent. Exclusive creation: when several
 * processes start at once, all of them end up with the one value that was written first.
 */
export function readOrCreateSecretFile(file: string, generate: () => string): string {
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, generate(), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  let value = fs.readFileSync(file, 'utf8').trim();
  for (let i = 0; !value && i < 50; i++) {
    // another process created it an instant ago and is still writing
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    value = fs.readFileSync(file, 'utf8').trim();
  }
  return value;
}
