#!/usr/bin/env node
// `npm start` (its prestart) and the benchmarks: builds the project (`npm run build`: tsc, the bundle, the manifest) only
// when dist/ is missing or older than a source: a fresh clone is built once (by npm ci's prepare), and later starts
// with dist/ current do not compile again.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** The first source of the project (src/ and commands/ .ts files, tsconfig.json) newer than its dist/ output, or null. */
function staleSource(root = ROOT) {
  const dist = path.join(root, 'dist');
  if (!fs.existsSync(path.join(root, 'src'))) return null; // an installed package: dist/ is all there is
  if (!fs.existsSync(path.join(root, 'oclif.manifest.json'))) return 'oclif.manifest.json (missing)';
  const tsconfig = fs.statSync(path.join(root, 'tsconfig.json')).mtimeMs;
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        const found = walk(file);
        if (found) return found;
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        const out = path.join(dist, path.relative(root, file)).replace(/\.ts$/, '.js');
        const built = fs.existsSync(out) ? fs.statSync(out).mtimeMs : 0;
        if (built < Math.max(fs.statSync(file).mtimeMs, tsconfig)) return path.relative(root, file);
      }
    }
    return null;
  };
  return walk(path.join(root, 'src')) ?? walk(path.join(root, 'commands'));
}

/** Builds when a source is newer than dist/ (or the manifest is missing); returns what was stale, or null. */
function buildIfStale(root = ROOT, log = (line) => process.stderr.write(`${line}\n`)) {
  const stale = staleSource(root);
  if (!stale) return null;
  log(`dist/ is older than ${stale}: building (tsc -p tsconfig.json, the bundle, then the oclif manifest)…`);
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc', { paths: [root] }), '-p', path.join(root, 'tsconfig.json')], {
    cwd: root,
    stdio: 'inherit',
  });
  execFileSync(process.execPath, [path.join(root, 'bin', 'bundle.js')], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [path.join(root, 'dist', 'src', 'cli', 'manifest.js')], { cwd: root, stdio: 'inherit' });
  return stale;
}

module.exports = { staleSource, buildIfStale };

if (require.main === module) buildIfStale();
