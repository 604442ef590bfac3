#!/usr/bin/env node
// The payplane binary: oclif reads oclif.manifest.json (written by `npm run build`) to list and describe the commands
// without loading them, and loads the compiled command it runs from dist/commands.

// serve stays up: its young generation is held at its initial size while it starts, before anything is loaded, and
// released once it listens (src/cli/heap.ts)
if (process.argv[2] === 'serve') require('../dist/src/cli/heap').holdYoungGeneration();

const oclif = require('@oclif/core');

oclif.execute({ dir: __dirname }).catch(oclif.Errors.handle);
