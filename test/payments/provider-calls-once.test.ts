import path from 'node:path';
import ts from 'typescript';
import { useMoneyHarness, payWithCard } from '../helpers/money';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { withTransaction, type CallerContext } from '../../src/domain/context';
import { connectorFor, registerConnector, type Connector } from '../../src/connectors';
import { cancelPayment, capturePayment } from '../../src/services/payments/payments';
import { createRefund, sendRefund } from '../../src/services/payments/refunds';
import { runAttempts } from '../../src/services/payments/engine';
import { processingContext } from '../../src/domain/authority';
import { executeViaProvider } from '../../src/services/withdrawals';
import { newId } from '../../src/util/ids';

/**
 * Every provider call goes through throughProvider (src/services/provider-call.ts): the intent recorded in a
 * transaction of its own, the provider called with none open, the answer applied in a new one. Two guards hold it:
 * the source (no module but provider-call.ts reaches a connector's methods or picks a connector), and the helper
 * itself (asked with a transaction open, it refuses before anything is read or sent).
 */

const ROOT = path.resolve(__dirname, '../..');
const HOME = 'src/services/provider-call.ts';

interface Site {
  file: string;
  line: number;
  text: string;
}

/** Where src/ and commands/ reach a connector's methods, or connectorFor (type-checked: whatever a variable is called). */
function connectorSites(): { methods: Site[]; lookups: Site[]; methodNames: string[] } {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!;
  const program = ts.createProgram({ rootNames: config.fileNames, options: { ...config.options, noEmit: true } });
  const checker = program.getTypeChecker();
  const typesFile = program.getSourceFile(path.join(ROOT, 'src/connectors/types.ts'))!;
  const connector = typesFile.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'Connector',
  )!;
  const connectorType = checker.getTypeAtLocation(connector);
  const methodNames = connector.members.filter(ts.isMethodSignature).map((m) => m.name.getText(typesFile));
  const registry = program.getSourceFile(path.join(ROOT, 'src/connectors/registry.ts'))!;
  const connectorForDeclaration = registry.statements.find((s) => ts.isFunctionDeclaration(s) && s.name?.text === 'connectorFor')!;

  const isConnector = (node: ts.Node) => {
    const type = checker.getTypeAtLocation(node);
    return !(type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) && checker.isTypeAssignableTo(type, connectorType);
  };
  const resolves = (id: ts.Identifier, declaration: ts.Node) => {
    let symbol = checker.getSymbolAtLocation(id);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    return Boolean(symbol?.declarations?.includes(declaration as ts.Declaration));
  };

  const methods: Site[] = [];
  const lookups: Site[] = [];
  for (const file of program.getSourceFiles()) {
    const relative = path.relative(ROOT, file.fileName);
    if (file.isDeclarationFile || relative.startsWith('node_modules') || relative.startsWith('src/connectors/')) continue;
    const site = (node: ts.Node): Site => ({
      file: relative,
      line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1,
      text: node.getText(file),
    });
    const visit = (node: ts.Node): void => {
      // connector.refund(…), connector['refund'], const { refund } = connector
      if (ts.isPropertyAccessExpression(node) && methodNames.includes(node.name.text) && isConnector(node.expression))
        methods.push(site(node));
      if (
        ts.isElementAccessExpression(node) &&
        ts.isStringLiteralLike(node.argumentExpression) &&
        methodNames.includes(node.argumentExpression.text) &&
        isConnector(node.expression)
      ) {
        methods.push(site(node));
      }
      if (
        ts.isObjectBindingPattern(node) &&
        ts.isVariableDeclaration(node.parent) &&
        node.parent.initializer &&
        isConnector(node.parent.initializer)
      ) {
        for (const element of node.elements) {
          const name = (element.propertyName ?? element.name).getText(file);
          if (methodNames.includes(name)) methods.push(site(element));
        }
      }
      if (ts.isIdentifier(node) && node.text === 'connectorFor' && resolves(node, connectorForDeclaration)) lookups.push(site(node));
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return { methods, lookups, methodNames };
}

describe('provider calls in one place (the source)', () => {
  test("only provider-call.ts reaches a connector's methods, each of them, and only it picks a connector", () => {
    const { methods, lookups, methodNames } = connectorSites();
    expect(methodNames.sort()).toEqual([
      'authorize',
      'capture',
      'checkCredentials',
      'completeAction',
      'disputeAccept',
      'disputeEvidence',
      'lookup',
      'parseNotification',
      'payout',
      'refund',
      'void',
    ]);
    const elsewhere = [...methods, ...lookups].filter((s) => s.file !== HOME);
    expect(elsewhere).toEqual([]);
    // the scan sees the calls it guards (a scan that found nothing would pass for the wrong reason)
    // (an optional method is also read to know whether the connector has it: each name counted once)
    expect([...new Set(methods.map((s) => s.text.replace(/^.*\./, '')))].sort()).toEqual(methodNames);
    expect(lookups.length).toBeGreaterThanOrEqual(1);
  }, 180_000); // type-checks src and commands: tens of seconds on a loaded machine
});

describe(`provider calls in one place (the helper refuses an open transaction, ${dialectName})`, () => {
  const m = useMoneyHarness();
  const sandboxCard = connectorFor('sandbox-card');
  const called: string[] = [];
  beforeAll(async () => {
    const counting = Object.create(sandboxCard) as Connector;
    for (const name of ['authorize', 'capture', 'void', 'refund', 'payout'] as const) {
      counting[name] = (async (...args: Parameters<Connector[typeof name]>) => {
        called.push(name);
        return (sandboxCard[name] as (...a: unknown[]) => Promise<unknown>).apply(sandboxCard, args);
      }) as never;
    }
    registerConnector('sandbox-card', counting);
  });
  afterAll(async () => {
    registerConnector('sandbox-card', sandboxCard);
  });

  const merchant = () =>
    operatorContext(m.rt, { level: 'merchant', tenantId: m.sandbox.tenantId, merchantId: m.sandbox.merchantId, livemode: false });
  const inOpenTransaction = (ctx: CallerContext, send: (tx: CallerContext) => Promise<unknown>) =>
    m.rt.db.transaction((transaction) => send(withTransaction(ctx, transaction)));

  test('authorize, capture, void, refund and payout: refused with PROVIDER_CALL_IN_TRANSACTION, the provider never asked', async () => {
    const manual = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    const captured = await payWithCard(m, '4242424242424242');
    const refund = await createRefund(merchant(), captured.paymentId, { amount: { currency: 'EUR', valueMinor: 100 } });
    await m.settle();
    const payment = (await m.rt.db.models.Payment.findByPk(manual.paymentId))!.get({ plain: true }) as { currentAttemptId: string };
    const pctx = processingContext(m.rt, m.sandbox.tenantId, false);
    called.length = 0;

    const refused = { code: 'PROVIDER_CALL_IN_TRANSACTION' };
    await expect(
      inOpenTransaction(pctx, (tx) => runAttempts(tx, { paymentId: manual.paymentId, attemptId: payment.currentAttemptId })),
    ).rejects.toMatchObject(refused);
    await expect(inOpenTransaction(merchant(), (tx) => capturePayment(tx, manual.paymentId, {}))).rejects.toMatchObject(refused);
    await expect(inOpenTransaction(merchant(), (tx) => cancelPayment(tx, manual.paymentId))).rejects.toMatchObject(refused);
    await expect(
      inOpenTransaction(merchant(), (tx) => createRefund(tx, captured.paymentId, { amount: { currency: 'EUR', valueMinor: 100 } })),
    ).rejects.toMatchObject(refused);
    await expect(inOpenTransaction(pctx, (tx) => sendRefund(tx, refund.id))).rejects.toMatchObject(refused);
    const operator = operatorContext(m.rt, { level: 'tenant', tenantId: m.sandbox.tenantId, livemode: false });
    await expect(inOpenTransaction(operator, (tx) => executeViaProvider(tx, newId()))).rejects.toMatchObject(refused);
    expect(called).toEqual([]);

    // outside a transaction the same calls reach the provider
    await capturePayment(merchant(), manual.paymentId, {});
    await createRefund(merchant(), captured.paymentId, { amount: { currency: 'EUR', valueMinor: 100 } });
    expect(called).toEqual(['capture', 'refund']);
  });
});
