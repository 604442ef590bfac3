import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli';

// One way for a command to find where it acts: it declares it (a record argument whose owner decides, a scope flag
// such as --tenant, or the class's `scopeOf`, src/cli/context.ts) and asks BaseCommand.scope() for the context.
// A command that makes a caller context itself, or reaches for one of context.ts's makers, fails here with file:line.

/** The makers of caller contexts: src/cli/context.ts's (the scope functions call them) and src/domain/authority.ts's. */
const MAKERS = [
  'platformContext',
  'operatorOfTenant',
  'actContext',
  'readContext',
  'locate',
  'tenantContext',
  'merchantContext',
  'recordContext',
  'accessContext',
  'endpointScopeContext',
  'tenantOrPlatformContext',
  'contextAsUser',
  'operatorContext',
  'userContext',
  'apiKeyContext',
  'clientSecretContext',
  'elevate',
];

function commandFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return commandFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The commands that act nowhere a caller context says: the database, the configuration, serve, the runtime's jobs. */
const ACTS_NOWHERE = new Set([
  'config:show',
  'db:create',
  'db:migrate',
  'doctor',
  'jobs:run',
  'sandbox:env',
  'sandbox:init',
  'serve',
  'tokens:issue',
  'users:accept-invitation',
  'webhooks:dispatch',
  'withdrawal-methods:types',
]);

const DUMP = `
const { Config } = require('@oclif/core');
const hasScope = (definitions) => Object.values(definitions ?? {}).some((d) => typeof d.scope === 'function');
Config.load({ root: process.cwd() }).then(async (config) => {
  const out = [];
  for (const c of config.commands.filter((c) => c.pluginName === config.pjson.name)) {
    const command = await c.load();
    const source = command.toString();
    out.push({
      id: c.id,
      declares: hasScope(command.args) || hasScope(command.flags) || typeof command.scopeOf === 'function',
      asks: /this\\.scope\\(/.test(source) || Object.getPrototypeOf(command).toString().includes('this.scope('),
    });
  }
  process.stdout.write(JSON.stringify(out));
});
`;

describe('how a command finds its scope', () => {
  it('no command makes a caller context itself: each asks scope() for the one its declaration says', () => {
    const found: string[] = [];
    const pattern = new RegExp(`\\b(${MAKERS.join('|')})\\b`);
    for (const file of commandFiles(path.join(ROOT, 'commands'))) {
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (pattern.test(line)) found.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('every command that acts somewhere declares where (a record argument, a scope flag or scopeOf) and asks scope()', () => {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'commands'))) throw new Error('dist/ is missing: run `npm run build`');
    // oclif loads the built commands in a child process: its dynamic imports do not work inside jest's module sandbox
    const commands = JSON.parse(execFileSync(process.execPath, ['-e', DUMP], { cwd: ROOT, encoding: 'utf8' })) as {
      id: string;
      declares: boolean;
      asks: boolean;
    }[];
    expect(commands.length).toBe(commandFiles(path.join(ROOT, 'commands')).length);
    const undeclared = commands.filter((c) => !ACTS_NOWHERE.has(c.id) && !(c.declares && c.asks)).map((c) => c.id);
    expect(undeclared).toEqual([]);
    // and a command said to act nowhere does not ask
    expect(commands.filter((c) => ACTS_NOWHERE.has(c.id) && c.asks).map((c) => c.id)).toEqual([]);
  });
});
