#!/usr/bin/env node
// The payplane binary: oclif reads oclif.manifest.json (written by `npm run build`) to list and describe the commands
// without loading them, and loads the compiled command it runs from dist/commands.
const oclif = require('@oclif/core');

oclif.execute({ dir: __dirname }).catch(oclif.Errors.handle);
