import fs from 'node:fs';
import path from 'node:path';
import { formatMinor, minorUnits } from '../../src/domain/money';
import { bigintNumber, sumNumber } from '../../src/db/model-kit';
import { InternalError } from '../../src/domain/errors';

// Issue 21, point 2: money in one place. One Money type and one formatter (src/domain/money.ts), never through
// floating point; BIGINT columns converted once in the model layer (src/db/model-kit.ts).

const ROOT = path.resolve(__dirname, '../..');
const MONEY_FILE = path.join('src', 'domain', 'money.ts');

/** Every .ts file of src/ and commands/, relative to the repository, with its text. */
function sources(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.ts')) out.push({ file: rel, text: fs.readFileSync(path.join(ROOT, rel), 'utf8') });
    }
  };
  walk('src');
  walk('commands');
  return out;
}

/** `file:line: text` of every line of src/ and commands/ matching `pattern`, outside `except`. */
function linesMatching(pattern: RegExp, except: string[] = []): string[] {
  const hits: string[] = [];
  for (const { file, text } of sources()) {
    if (except.includes(file)) continue;
    text.split('\n').forEach((line, i) => {
      if (pattern.test(line)) hits.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  return hits;
}

describe('Money is declared once', () => {
  test('the sources are read (the checks below are not vacuous)', () => {
    const all = sources();
    expect(all.length).toBeGreaterThan(300);
    expect(all.find((s) => s.file === MONEY_FILE)?.text).toMatch(/^export interface Money \{$/m);
  });

  test('no other interface or type alias of money (Money, FeeMoney, CheckoutMoney, ConnectorMoney, …)', () => {
    expect(linesMatching(/^\s*(export\s+)?(declare\s+)?(interface\s+\w*Money\b|type\s+\w*Money\s*(<[^>]*>)?\s*=)/, [MONEY_FILE])).toEqual(
      [],
    );
  });

  test('no inline copy of its shape', () => {
    expect(
      linesMatching(/\{\s*(currency:\s*string;\s*valueMinor:\s*number|valueMinor:\s*number;\s*currency:\s*string);?\s*\}/, [MONEY_FILE]),
    ).toEqual([]);
  });
});

describe('one formatter of money, never through floating point', () => {
  test('no other formatter and no float arithmetic on amounts', () => {
    expect(linesMatching(/\bformatMoney\b/)).toEqual([]);
    expect(linesMatching(/\.toFixed\(|Math\.pow\(|\/\s*10\s*\*\*|\/\s*100\b/)).toEqual([]);
  });

  test('no BIGINT mending at the call sites: minor() and Number(…Minor) are gone', () => {
    expect(linesMatching(/(?<![\w.])minor\(/)).toEqual([]);
    expect(linesMatching(/(?<!\w)Number\([\w.]*(Minor|threshold|total)\)/)).toEqual([]);
  });

  test.each([
    [{ currency: 'EUR', valueMinor: 9835 }, '98.35 EUR'],
    [{ currency: 'EUR', valueMinor: -1234 }, '-12.34 EUR'],
    [{ currency: 'EUR', valueMinor: 5 }, '0.05 EUR'],
    [{ currency: 'EUR', valueMinor: -5 }, '-0.05 EUR'],
    [{ currency: 'JPY', valueMinor: 5000 }, '5000 JPY'],
    [{ currency: 'JPY', valueMinor: -5 }, '-5 JPY'],
    [{ currency: 'BHD', valueMinor: 1234 }, '1.234 BHD'],
    [{ currency: 'BHD', valueMinor: 7 }, '0.007 BHD'],
    [{ currency: 'USD', valueMinor: Number.MAX_SAFE_INTEGER }, '90071992547409.91 USD'],
  ])('plain: %j is %s', (money, text) => {
    expect(formatMinor(money)).toBe(text);
  });

  test('grouping', () => {
    expect(formatMinor({ currency: 'USD', valueMinor: 100000000 }, { grouping: true })).toBe('1,000,000.00 USD');
    expect(formatMinor({ currency: 'JPY', valueMinor: 1500 }, { grouping: true })).toBe('1,500 JPY');
    expect(formatMinor({ currency: 'KWD', valueMinor: -1234567 }, { grouping: true })).toBe('-1,234.567 KWD');
  });

  test.each([
    ['en', { currency: 'EUR', valueMinor: 3480 }, '€34.80'],
    ['de', { currency: 'EUR', valueMinor: 1999 }, '19,99\u00a0€'],
    ['en', { currency: 'JPY', valueMinor: 5000 }, '¥5,000'],
    ['en', { currency: 'BHD', valueMinor: 1234 }, 'BHD\u00a01.234'],
    ['en', { currency: 'EUR', valueMinor: -5 }, '-€0.05'],
    // beyond what a double holds exactly once divided: the digits stay exact
    ['en', { currency: 'USD', valueMinor: Number.MAX_SAFE_INTEGER }, '$90,071,992,547,409.91'],
  ])('for a customer in %s: %j is %s', (locale, money, text) => {
    expect(formatMinor(money, { locale })).toBe(text);
  });

  test('a locale Intl cannot use falls back to the plain form', () => {
    expect(formatMinor({ currency: 'EUR', valueMinor: 1999 }, { locale: 'not a locale!' })).toBe('19.99 EUR');
  });

  test('with a locale, the same text as the float formatter it replaced wherever that one was exact', () => {
    // the removed checkout formatMoney: valueMinor / 10 ** digits handed to Intl as a double
    const viaFloat = (currency: string, valueMinor: number, locale: string) => {
      const digits = minorUnits(currency);
      return new Intl.NumberFormat(locale, {
        style: 'currency',
        currency,
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      }).format(valueMinor / 10 ** digits);
    };
    let seed = 21;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const currency of ['EUR', 'USD', 'JPY', 'BHD', 'KWD', 'CLF']) {
      for (const locale of ['en', 'de', 'fr', 'ja', 'ar']) {
        for (let i = 0; i < 40; i++) {
          const valueMinor = Math.floor((random() - 0.2) * 10 ** (1 + Math.floor(random() * 12)));
          expect(formatMinor({ currency, valueMinor }, { locale })).toBe(viaFloat(currency, valueMinor, locale));
        }
      }
    }
  });

  test('an amount that is not an integer of minor units is refused, not rounded', () => {
    expect(() => formatMinor({ currency: 'EUR', valueMinor: 12.5 })).toThrow(RangeError);
    expect(() => formatMinor({ currency: 'EUR', valueMinor: 2 ** 53 }, { locale: 'en' })).toThrow(RangeError);
  });
});

describe('BIGINT values as numbers (src/db/model-kit.ts)', () => {
  test.each([
    [3_000_000_000, 3_000_000_000],
    ['3000000000', 3_000_000_000],
    ['-2147483649', -2_147_483_649],
    [BigInt(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER],
    ['0', 0],
  ])('%p reads as %p', (value, expected) => {
    expect(bigintNumber(value)).toBe(expected);
  });

  test.each([['9007199254740993'], [2 ** 53], ['12.5'], [''], ['1e3'], ['abc'], [Number.NaN]])('%p is refused', (value) => {
    expect(() => bigintNumber(value)).toThrow(InternalError);
  });

  test('a sum over no rows is 0; any other sum as bigintNumber', () => {
    expect(sumNumber(null)).toBe(0);
    expect(sumNumber(undefined)).toBe(0);
    expect(sumNumber('6000000000')).toBe(6_000_000_000);
    expect(() => sumNumber('18014398509481984')).toThrow(InternalError);
  });
});
