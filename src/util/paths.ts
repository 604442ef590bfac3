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

/** Writes a file readable by its owner only (secrets, sandbox credentials). */
export function writePrivateFile(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, content, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}
