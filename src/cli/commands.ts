import path from 'node:path';
import { requireWithCodeCache } from './compile-cache';

/**
 * Every command by id, for oclif's explicit command strategy (package.json oclif.commands): from the bundle
 * dist/cli.js (bin/bundle.js writes it in `npm run build`), run with V8's code cache (src/cli/compile-cache.ts).
 */
export const COMMANDS = (requireWithCodeCache(path.join(__dirname, '..', '..', 'cli.js'), process.argv[2] === 'serve' ? 'serve' : 'cli') as { COMMANDS: Record<string, unknown> }).COMMANDS;
