import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// Issue 32 item 5: a message about money names the amount formatted with its currency (20.00 EUR, as the flags take
// it), never bare minor units ("Refund of 100000 exceeds what remains refundable (2000, …)"). The TypeScript parser
// reads src/ and commands/ and lists every error a caller sees (a PayplaneError: new XxxError(…), XxxError.field(…))
// whose message interpolates an amount-like value (…Minor, amount, fee, available, remaining, …) without formatting
// it through formatMinor (src/domain/money.ts) or a local money() helper made of it; a number the message itself
// calls minor units (beside the formatted amount, for a valueMinor field) is allowed.

const root = path.resolve(__dirname, '../..');
/** errors a caller never sees, or whose number is the point (an amount that is not an integer) */
const NOT_SHOWN = new Set(['Error', 'TypeError', 'RangeError', 'InternalError', 'URIError']);
/** an interpolated expression that holds an amount of money in minor units */
const AMOUNT =
  /(Minor\b|\b(amount|fee|fees|available|remaining|authorized|captured|refunded|disputed|total|minimum|maximum|threshold|balance|net|gross|reserve)\b)/i;
const FORMATTED = /\bformatMinor\(|\bmoney\(|\bformatAmount\(/;

function files(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return files(rel);
    return rel.endsWith('.ts') && !rel.endsWith('.d.ts') ? [rel] : [];
  });
}

/** The name of the error class a `new X(…)` or `X.field(…)` makes, else undefined. */
function errorClassOf(node: ts.Node): string | undefined {
  if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text.endsWith('Error')) return node.expression.text;
  if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ts.isIdentifier(node.expression.expression)) {
    const owner = node.expression.expression.text;
    if (owner.endsWith('Error')) return owner;
  }
  return undefined;
}

/** `file:line: expression` of each bare amount interpolated into a shown error's message. */
export function bareAmountsInErrors(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const inspect = (args: readonly ts.Expression[]) => {
    const visit = (node: ts.Node) => {
      if (ts.isTemplateExpression(node)) {
        for (const span of node.templateSpans) {
          const expression = span.expression.getText(source);
          // a number said to be minor units beside the formatted amount (a valueMinor field's own unit) is no bare amount
          const labelled = span.literal.text.startsWith(' minor unit');
          if (AMOUNT.test(expression) && !FORMATTED.test(expression) && !labelled) {
            const { line } = source.getLineAndCharacterOfPosition(span.expression.getStart(source));
            found.push(`${file}:${line + 1}: \${${expression}}`);
          }
        }
      }
      // a function inside the arguments builds something else (a hint's list, a mapped path)
      if (!ts.isArrowFunction(node) && !ts.isFunctionExpression(node)) ts.forEachChild(node, visit);
    };
    args.forEach(visit);
  };
  const walk = (node: ts.Node) => {
    const cls = errorClassOf(node);
    if (cls && !NOT_SHOWN.has(cls)) inspect((node as ts.NewExpression | ts.CallExpression).arguments ?? []);
    ts.forEachChild(node, walk);
  };
  walk(source);
  return found;
}

describe('money in error messages', () => {
  test('every error a caller sees names amounts formatted with their currency, never bare minor units', () => {
    const sites = [...files('src'), ...files('commands')].flatMap((file) =>
      bareAmountsInErrors(file, fs.readFileSync(path.join(root, file), 'utf8')),
    );
    expect(sites).toEqual([]);
  });

  test('the check finds a bare amount (the message of issue 32 as it was) and passes a formatted one', () => {
    const bare =
      "throw new BusinessRuleError('REFUND_EXCEEDS_REFUNDABLE', `Refund of ${amount} exceeds what remains refundable (${Math.max(remaining, 0)}).`);";
    expect(bareAmountsInErrors('x.ts', bare)).toEqual(['x.ts:1: ${amount}', 'x.ts:1: ${Math.max(remaining, 0)}']);
    expect(bareAmountsInErrors('x.ts', "throw ValidationError.field('amount', `at most ${payment.capturedMinor}`);")).toEqual([
      'x.ts:1: ${payment.capturedMinor}',
    ]);
    const formatted =
      "throw new BusinessRuleError('X', `Refund of ${money(amount)} exceeds ${formatMinor({ currency, valueMinor: remaining })}.`);";
    expect(bareAmountsInErrors('x.ts', formatted)).toEqual([]);
    expect(bareAmountsInErrors('x.ts', 'throw new InternalError(`ledger amount ${line.amountMinor} is not an integer`);')).toEqual([]);
    expect(
      bareAmountsInErrors(
        'x.ts',
        "throw ValidationError.field('amount.valueMinor', `must be ${formatMinor(total)} (${totalMinor} minor units)`);",
      ),
    ).toEqual([]);
  });
});
