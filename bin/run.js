#!/usr/bin/env node
// The payplane binary: oclif loads the compiled commands from dist/commands.
const oclif = require('@oclif/core');

oclif.execute({ dir: __dirname }).catch(oclif.Errors.handle);
