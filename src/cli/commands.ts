import path from 'node:path';
import { requireWithCodeCache } from './compile-cache';

/**
 * Every command by id, for oclif's explicit command strategy (package.json oclif.commands): from the bundle
 * dist/cli.js (bin/bundle.js writes it in `npm run build`), run with V8's code cache (src/cli/compile-cache.ts).
 */
const words = process.argv.slice(2);
/** the command's words (before its first flag): what this run adds to the kept code */
const firstFlag = words.findIndex((w) => w.startsWith('-'));
const use = (firstFlag === -1 ? words : words.slice(0, firstFlag)).join(' ');
const bundle = requireWithCodeCache(path.join(__dirname, '..', '..', 'cli.js'), words[0] === 'serve' ? 'serve' : 'cli', use);
export const COMMANDS = (bundle as { COMMANDS: Record<string, unknown> }).COMMANDS;
