import path from 'node:path';
import ts from 'typescript';

// Every status of every record moves through one declared machine (`statusMachine`) and `transition()` or the other
// moves of src/services/status.ts. The TypeScript compiler reads src/ and lists every write that names a status
// itself: an object literal with a `status` key (or the field a machine declares, e.g. liveStatus) given as the
// changes of an update (update, updateIf, updateRows, updateEach, auditedUpdate, auditedUpdateIf, updateRecord, a
// model's update), and an UPDATE statement in SQL text that sets one. Creating a record in a status written out (a
// literal, or a choice between literals: where its machine starts) is allowed, and so is one its creator chooses
// through startIn (checked against the machine); a creation whose status is computed otherwise is not. The in-process
// sandbox acquirer and payout provider (src/connectors/) stand for systems outside the platform: their own queue's
// statuses are not the platform's records. A write whose changes are computed elsewhere escapes this scan: status.ts's
// moves are the one way.

const root = path.resolve(__dirname, '../..');

/** The machinery itself: status.ts writes the moves, audit/changes.ts the audited updates it calls. */
const MACHINERY = new Set(['src/services/status.ts', 'src/services/audit/changes.ts']);

/** Updates: the index of an argument that is a compare-and-set's expectation (it names the status read, writes none). */
const UPDATES: Record<string, number | null> = {
  update: null,
  updateIf: 1,
  updateRows: 3,
  updateEach: null,
  auditedUpdate: null,
  auditedUpdateIf: 3,
  updateRecord: null,
};
const CREATES = new Set([
  'create',
  'createLater',
  'createMany',
  'createManyLater',
  'ensureLater',
  'insertRows',
  'insertLater',
  'bulkCreate',
  'upsert',
]);

function projectProgram(): ts.Program {
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
  return ts.createProgram(
    config.fileNames.filter((f) => f.startsWith(path.join(root, 'src') + path.sep)),
    config.options,
  );
}

/** A program of one file's text (the scan's own check). */
function fixtureProgram(file: string, text: string): ts.Program {
  const full = path.join(root, file);
  const options: ts.CompilerOptions = { noLib: true, noResolve: true, types: [] };
  const host = ts.createCompilerHost(options);
  host.getSourceFile = (name, language) => (name === full ? ts.createSourceFile(name, text, language, true) : undefined);
  host.fileExists = (name) => name === full;
  host.readFile = (name) => (name === full ? text : undefined);
  return ts.createProgram([full], options, host);
}

const nameOf = (node: ts.PropertyName | undefined): string =>
  node && (ts.isIdentifier(node) || ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : '';

/** The fields machines declare as their status (`field:` of a statusMachine declaration), besides `status`. */
function statusFields(program: ts.Program): Set<string> {
  const fields = new Set(['status']);
  for (const source of program.getSourceFiles()) {
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'statusMachine') {
        const [declaration] = node.arguments;
        if (declaration && ts.isObjectLiteralExpression(declaration)) {
          for (const p of declaration.properties) {
            if (ts.isPropertyAssignment(p) && nameOf(p.name) === 'field' && ts.isStringLiteralLike(p.initializer)) {
              fields.add(p.initializer.text);
            }
          }
        }
      }
      node.forEachChild(visit);
    };
    visit(source);
  }
  return fields;
}

/** A status written out: a string literal or null, or a choice between such (`as const` and parentheses looked through). */
function isWrittenOut(e: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)) return isWrittenOut(e.expression);
  if (ts.isStringLiteralLike(e) || e.kind === ts.SyntaxKind.NullKeyword) return true;
  if (ts.isConditionalExpression(e)) return isWrittenOut(e.whenTrue) && isWrittenOut(e.whenFalse);
  return ts.isCallExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === 'startIn';
}

/** The SET list of an UPDATE statement sets a status column. */
function sqlSetsStatus(text: string, fields: Set<string>): boolean {
  const match = /\bUPDATE\b[\s\S]*?\bSET\b([\s\S]*?)(?:\bWHERE\b|\bFROM\b|\bRETURNING\b|$)/i.exec(text);
  if (!match) return false;
  return [...fields].some((field) => new RegExp(`(^|[\\s,"])${field}"?\\s*=`).test(match[1]));
}

/** `file:line: text` of every status written outside the machinery. */
function statusWrites(program: ts.Program): string[] {
  const checker = program.getTypeChecker();
  const fields = statusFields(program);
  const sites: string[] = [];
  for (const source of program.getSourceFiles()) {
    const file = path.relative(root, source.fileName).split(path.sep).join('/');
    if (source.isDeclarationFile || !file.startsWith('src/') || file.startsWith('src/connectors/')) continue;
    if (MACHINERY.has(file)) continue;
    const report = (node: ts.Node, what: string) => {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      sites.push(`${file}:${line + 1}: ${what}: ${node.getText(source).replace(/\s+/g, ' ').slice(0, 100)}`);
    };
    /** The object literals an argument stands for: itself, its elements, a local constant's value, a function's results. */
    const literals = (e: ts.Node, depth = 0): ts.ObjectLiteralExpression[] => {
      if (depth > 4) return [];
      if (ts.isObjectLiteralExpression(e)) return [e];
      if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isAwaitExpression(e)) {
        return literals(e.expression, depth + 1);
      }
      if (ts.isArrayLiteralExpression(e)) return e.elements.flatMap((x) => literals(x, depth + 1));
      if (ts.isConditionalExpression(e)) return [...literals(e.whenTrue, depth + 1), ...literals(e.whenFalse, depth + 1)];
      if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) {
        if (!ts.isBlock(e.body)) return literals(e.body, depth + 1);
        const results: ts.ObjectLiteralExpression[] = [];
        const returns = (n: ts.Node): void => {
          if (ts.isReturnStatement(n) && n.expression) results.push(...literals(n.expression, depth + 1));
          else if (!ts.isFunctionLike(n)) n.forEachChild(returns);
        };
        e.body.forEachChild(returns);
        return results;
      }
      if (ts.isIdentifier(e)) {
        const declaration = checker.getSymbolAtLocation(e)?.valueDeclaration;
        if (declaration && ts.isVariableDeclaration(declaration) && declaration.initializer) {
          return literals(declaration.initializer, depth + 1);
        }
      }
      if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === 'map') {
        return e.arguments.flatMap((a) => literals(a, depth + 1));
      }
      return [];
    };
    const statusKeys = (lit: ts.ObjectLiteralExpression) =>
      lit.properties.filter(
        (p): p is ts.PropertyAssignment | ts.ShorthandPropertyAssignment =>
          (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && fields.has(nameOf(p.name)),
      );
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node)) {
        const callee = node.expression;
        const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : '';
        if (name in UPDATES) {
          node.arguments.forEach((arg, index) => {
            if (index === UPDATES[name]) return;
            for (const lit of literals(arg)) {
              // updateEach's rows: each row's `set`
              const sets =
                name === 'updateEach'
                  ? lit.properties.flatMap((p) => (ts.isPropertyAssignment(p) && nameOf(p.name) === 'set' ? literals(p.initializer) : []))
                  : [lit];
              for (const set of sets) for (const key of statusKeys(set)) report(key, `${name} writes a status`);
            }
          });
        } else if (CREATES.has(name)) {
          for (const arg of node.arguments) {
            for (const lit of literals(arg)) {
              for (const key of statusKeys(lit)) {
                const computed = ts.isShorthandPropertyAssignment(key) || !isWrittenOut(key.initializer);
                if (computed) report(key, `${name} creates in a computed status`);
              }
            }
          }
        }
      }
      const text = ts.isNoSubstitutionTemplateLiteral(node) || ts.isStringLiteral(node) || ts.isTemplateExpression(node);
      if (text && sqlSetsStatus(node.getText(source), fields)) report(node, 'SQL sets a status');
      node.forEachChild(visit);
    };
    visit(source);
  }
  return sites;
}

describe('status writes', () => {
  it('every status of src/ is written through the machines of src/services/status.ts', () => {
    expect(statusWrites(projectProgram())).toEqual([]);
  }, 120_000);

  it('the scan finds a status written by hand, and lets a creation in a written-out status pass', () => {
    const fixture = `
      declare const access: any, db: any, ctx: any, row: any, input: any, record: any;
      const machine = statusMachine({ field: 'liveStatus' });
      async function f() {
        await access.create({ id: 'a', status: 'pending' });
        await access.create({ id: 'b', status: input.ok ? 'enabled' : 'disabled' });
        await access.updateIf(row, { status: 'pending' }, { note: 'only the expectation names it' });
        await access.update(row, { status: 'succeeded' });
        const changes = { status: 'failed', reason: 'x' };
        await auditedUpdate(ctx, record, row, changes, { action: 'x.failed' });
        await access.create({ id: 'c', status: input.status ?? 'enabled' });
        await access.create({ id: 'd', liveStatus: startIn(machine, input.liveStatus) });
        await access.update(row, { liveStatus: 'live' });
        await updateRows(db, record, { lastError: null }, { status: 'pending' });
        await db.run('UPDATE things SET "status" = ? WHERE id = ?');
        await db.run('UPDATE things SET "lockedBy" = ? WHERE status = ?');
      }
    `;
    const sites = statusWrites(fixtureProgram('src/services/fixture.ts', fixture)).map((site) => site.split(': ').slice(0, 2).join(': '));
    expect(sites).toEqual([
      'src/services/fixture.ts:8: update writes a status',
      'src/services/fixture.ts:9: auditedUpdate writes a status',
      'src/services/fixture.ts:11: create creates in a computed status',
      'src/services/fixture.ts:13: update writes a status',
      'src/services/fixture.ts:15: SQL sets a status',
    ]);
  });
});
