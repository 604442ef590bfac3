import path from 'node:path';
import ts from 'typescript';
import type { Transaction } from 'sequelize';
import { clientSecretContext, elevate, type ContextSources } from '../../src/domain/authority';
import { withTransaction } from '../../src/domain/context';

// Issue 21 item 1: a caller context is made, and its scope changed, in src/domain/authority.ts only (and the
// transaction and request are set through context.ts's setters). The TypeScript compiler reads src/ and commands/ and
// lists every object literal whose own or contextual type is a CallerContext, every spread of a CallerContext into
// a new object and every Object.assign onto one, outside those places.

const root = path.resolve(__dirname, '../..');
const AUTHORITY = 'src/domain/authority.ts';
/** the setters of context.ts that copy a context with its transaction or request details */
const SETTERS: Record<string, ReadonlySet<string>> = { 'src/domain/context.ts': new Set(['withTransaction', 'withRequest']) };

function projectProgram(extraFiles: Record<string, string>): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  const host = ts.createCompilerHost(config.options);
  const extra = new Map(Object.entries(extraFiles).map(([file, text]) => [path.join(root, file), text]));
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (file, language, ...rest) =>
    extra.has(file) ? ts.createSourceFile(file, extra.get(file)!, language) : getSourceFile.call(host, file, language, ...rest);
  host.fileExists = (file) => extra.has(file) || fileExists.call(host, file);
  host.readFile = (file) => extra.get(file) ?? readFile.call(host, file);
  return ts.createProgram([...config.fileNames, ...extra.keys()], config.options, host);
}

/** `file:line: text` of every place outside the authority module that builds or copies a CallerContext. */
function contextConstructionSites(program: ts.Program): string[] {
  const checker = program.getTypeChecker();
  const contextFile = program.getSourceFile(path.join(root, 'src/domain/context.ts'));
  let callerContext: ts.Type | undefined;
  contextFile?.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'CallerContext') {
      callerContext = checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(node.name)!);
    }
  });
  if (!callerContext) throw new Error('CallerContext is not declared in src/domain/context.ts');
  const target = callerContext;
  const isContext = (type: ts.Type | undefined): boolean => {
    if (!type || type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.Never)) return false;
    if (type.isUnion()) return type.types.some(isContext);
    return type.getProperties().length > 0 && checker.isTypeAssignableTo(type, target);
  };
  const sites: string[] = [];
  for (const source of program.getSourceFiles()) {
    const file = path.relative(root, source.fileName).split(path.sep).join('/');
    if (source.isDeclarationFile || file.startsWith('..') || file.startsWith('node_modules/')) continue;
    if (!file.startsWith('src/') && !file.startsWith('commands/')) continue;
    if (file === AUTHORITY) continue;
    const report = (node: ts.Node) => {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      sites.push(`${file}:${line + 1}: ${node.getText(source).replace(/\s+/g, ' ').slice(0, 120)}`);
    };
    const visit = (node: ts.Node, setter: boolean): void => {
      if (ts.isFunctionDeclaration(node) && node.name && SETTERS[file]?.has(node.name.text)) setter = true;
      if (!setter && ts.isObjectLiteralExpression(node)) {
        const contextual = checker.getContextualType(node);
        const spreadsContext = node.properties.some((p) => ts.isSpreadAssignment(p) && isContext(checker.getTypeAtLocation(p.expression)));
        if (
          spreadsContext ||
          isContext(checker.getTypeAtLocation(node)) ||
          (contextual && isContext(checker.getNonNullableType(contextual)))
        )
          report(node);
      }
      if (
        !setter &&
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.getText(source) === 'Object.assign' &&
        node.arguments.some((a) => isContext(checker.getTypeAtLocation(a)))
      ) {
        report(node);
      }
      node.forEachChild((child) => visit(child, setter));
    };
    visit(source, false);
  }
  return sites;
}

/** A file the scan reads along with the project's (it exists only in memory): each of its three sites must be reported. */
const PLANTED = 'src/services/planted-authority-probe.ts';
const PLANTED_TEXT = [
  "import type { CallerContext } from '../domain/context';",
  'export function lifted(ctx: CallerContext): CallerContext {',
  "  return { ...ctx, level: 'platform', tenantId: null };",
  '}',
  'export function literal(ctx: CallerContext) {',
  "  const made: CallerContext = { db: ctx.db, clock: ctx.clock, config: ctx.config, sealer: ctx.sealer, level: 'tenant', tenantId: 't', merchantId: null,",
  "    livemode: false, actor: { type: 'system', id: 'x' }, permissions: new Set(), credential: 'system' };",
  '  return made;',
  '}',
  'export function copied(ctx: CallerContext) {',
  '  return Object.assign({}, ctx);',
  '}',
  '',
].join('\n');

describe('authority', () => {
  let program: ts.Program;
  let sites: string[];

  beforeAll(() => {
    // one program (type-checking the project is the slow part): the project's files and the planted one
    program = projectProgram({ [PLANTED]: PLANTED_TEXT });
    sites = contextConstructionSites(program);
  }, 240_000);

  test('no caller context is built or copied outside src/domain/authority.ts', () => {
    expect(program.getSourceFile(path.join(root, AUTHORITY))).toBeDefined();
    // the whole project is read: every command file too
    expect(
      program.getSourceFiles().filter((f) => path.relative(root, f.fileName).startsWith(`commands${path.sep}`)).length,
    ).toBeGreaterThan(50);
    expect(sites.filter((site) => !site.startsWith(`${PLANTED}:`))).toEqual([]);
  });

  test('a planted literal, a lifting spread and an Object.assign are each reported with file and line', () => {
    expect(sites.filter((site) => site.startsWith(`${PLANTED}:`)).map((site) => site.split(': ')[0])).toEqual([
      `${PLANTED}:3`,
      `${PLANTED}:6`,
      `${PLANTED}:11`,
    ]);
  });
});

describe('elevate', () => {
  // the process's parts are carried along untouched: plain markers stand for them
  const sources = { db: {}, clock: {}, config: {}, sealer: {} } as unknown as ContextSources;
  const merchant = withTransaction(
    clientSecretContext(sources, { id: 'cs-1', tenantId: 'tenant-a', merchantId: 'merchant-a', livemode: true }, 'req-1'),
    {} as Transaction,
  );

  test('lifts to the tenant: merchant and entity scope cleared, actor, permissions, transaction and request kept', () => {
    const lifted = elevate(merchant, 'tenant', 'a test lift');
    expect(lifted).toMatchObject({
      level: 'tenant',
      tenantId: 'tenant-a',
      merchantId: null,
      livemode: true,
      actor: merchant.actor,
      requestId: 'req-1',
    });
    expect(lifted.merchantScope).toBeUndefined();
    expect(lifted.permissions).toBe(merchant.permissions);
    expect(lifted.transaction).toBe(merchant.transaction);
    expect(merchant).toMatchObject({ level: 'merchant', merchantId: 'merchant-a' });
  });

  test('to the platform (no tenant), or pointed at another tenant and mode', () => {
    const platform = elevate(merchant, 'platform', 'a test lift');
    expect(platform).toMatchObject({ level: 'platform', tenantId: null, merchantId: null, livemode: true });
    expect(elevate(platform, 'tenant', 'a test lift', { tenantId: 'tenant-b', livemode: false })).toMatchObject({
      level: 'tenant',
      tenantId: 'tenant-b',
      livemode: false,
    });
  });

  test('a tenant-level context without a tenant is refused', () => {
    const platform = elevate(merchant, 'platform', 'a test lift');
    expect(() => elevate(platform, 'tenant', 'a test lift')).toThrow(/needs a tenant \(a test lift\)/);
  });

  test('the reason is a string literal', () => {
    const computed: string = 'computed';
    // @ts-expect-error a computed string is no reason a reader can find
    expect(elevate(merchant, 'platform', computed).level).toBe('platform');
  });
});
