#!/usr/bin/env node
// `npm run build`, after tsc and before the manifest: writes dist/cli.js, every command of dist/commands with what it
// loads from src/ and from the dependencies, in one file. oclif finds the commands in it by id (package.json
// oclif.commands, the explicit strategy, through dist/src/cli/commands.js), so a command's start reads one file instead
// of finding and reading 500 to 600 modules. A command's module is run only when the command is (esbuild wraps each
// module in a function run at its first require).
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

// Left to node's own require: oclif (bin/run.js and the bundle must share one copy of it), the database drivers
// (native code; Sequelize requires them by a computed name), the logger (its transports run files in workers), and the
// acquirers' libraries (loaded on a real acquirer's first call only, src/connectors/lazy.ts: in the bundle they would
// be read and compiled by every command and every serve start, 6 MB that most never use).
const EXTERNAL = ['@oclif/core', 'sqlite3', 'pg', 'pg-native', 'pg-hstore', 'pino', 'stripe', '@adyen/api-library'];

/** Each command's id (as oclif names it: the path under commands/ with `:` for `/`, an index file names its folder) and file. */
function commandFiles(dir, prefix = []) {
  const found = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...commandFiles(file, [...prefix, entry.name]));
    else if (entry.name.endsWith('.js')) {
      const name = entry.name.slice(0, -'.js'.length);
      found.push({ id: (name === 'index' ? prefix : [...prefix, name]).join(':'), file });
    }
  }
  return found;
}

/** The bundle's entry: COMMANDS, one getter a command, each requiring its module only when oclif asks for it. */
function entrySource(root) {
  const lines = ['const commands = {};'];
  for (const { id, file } of commandFiles(path.join(root, 'dist', 'commands'))) {
    const relative = `./${path.relative(path.join(root, 'dist'), file).split(path.sep).join('/')}`;
    lines.push(
      `Object.defineProperty(commands, ${JSON.stringify(id)}, { enumerable: true, get: () => require(${JSON.stringify(relative)}).default });`,
    );
  }
  lines.push('exports.COMMANDS = commands;');
  return lines.join('\n');
}

function bundle(root = ROOT) {
  require('esbuild').buildSync({
    stdin: { contents: entrySource(root), resolveDir: path.join(root, 'dist'), sourcefile: 'commands-entry.js', loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node.split('.')[0]}`,
    external: EXTERNAL,
    // import() written as a require (Node 20 loads ES modules with require): code V8 made from its cache has no
    // dynamic import callback on Node 20 (src/cli/compile-cache.ts)
    supported: { 'dynamic-import': false },
    outfile: path.join(root, 'dist', 'cli.js'),
    sourcemap: true,
    logLevel: 'error',
  });
}

module.exports = { bundle, commandFiles };

if (require.main === module) bundle();
