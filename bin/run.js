#!/usr/bin/env node
// The payplane binary: oclif reads oclif.manifest.json (written by `npm run build`) to list and describe the commands
// without loading them, and takes the command it runs from the bundle dist/cli.js (src/cli/commands.ts).

// serve stays up: its young generation is held at its initial size while it starts, before anything is loaded, and
// released once it listens (src/cli/heap.ts)
if (process.argv[2] === 'serve') require('../dist/src/cli/heap').holdYoungGeneration();

// oclif checks node's version against its own engines with semver (47 modules) on every start; ours is checked by
// npm at install (package.json engines)
process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1';
const oclif = require('@oclif/core');
// an error is one line for a script or a log (oclif wraps it at 80 columns when stderr is not a terminal)
// (its lib/screen.js, by path: the package does not export it)
if (!process.stderr.isTTY) require(require('node:path').join(require.resolve('@oclif/core'), '..', 'screen.js')).errtermwidth = 100_000;

oclif.execute({ dir: __dirname }).catch(oclif.Errors.handle);
