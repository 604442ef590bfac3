/** Money is integer minor units with an upper-case ISO 4217 currency. */
// ICU's tables are read on first use, not when the module loads (an admin command's start)
let currencies: Set<string> | undefined;

export function isCurrency(code: string): boolean {
  return (currencies ??= new Set<string>(Intl.supportedValuesOf('currency'))).has(code);
}

const minorUnitCache = new Map<string, number>();
/** Number of decimal places of the currency's minor unit (EUR 2, JPY 0, BHD 3). */
export function minorUnits(currency: string): number {
  let digits = minorUnitCache.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    minorUnitCache.set(currency, digits);
  }
  return digits;
}

/** An amount: integer minor units of an upper-case ISO 4217 currency (the one declaration of money in the code). */
export interface Money {
  currency: string;
  valueMinor: number;
}

/** The currency's number of decimals, two for a code the runtime does not know. */
function digitsOf(currency: string): number {
  try {
    return minorUnits(currency);
  } catch {
    return 2;
  }
}

/** `valueMinor` as an exact decimal string in major units (`-12.34`, `5000`, `1.234`), from its digits. */
function majorDigits(money: Money, digits: number, grouping: boolean): string {
  if (!Number.isSafeInteger(money.valueMinor)) throw new RangeError(`not an integer amount of minor units: ${money.valueMinor}`);
  const abs = String(Math.abs(money.valueMinor)).padStart(digits + 1, '0');
  let major = abs.slice(0, abs.length - digits);
  if (grouping) major = major.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = digits > 0 ? `.${abs.slice(abs.length - digits)}` : '';
  return `${money.valueMinor < 0 ? '-' : ''}${major}${fraction}`;
}

/** `valueMinor` as a plain decimal in major units, without the currency (`-12.34`, `5000`, `1.234`): CSV amounts. */
export function majorDecimal(money: Money): string {
  return majorDigits(money, digitsOf(money.currency), false);
}

/** Intl formatters by locale and currency: building one costs far more than formatting with it. */
const currencyFormats = new Map<string, Intl.NumberFormat>();
const CURRENCY_FORMATS_KEPT = 500;

function currencyFormat(locale: string, currency: string, digits: number): Intl.NumberFormat {
  const key = `${locale}\u0000${currency}`;
  let format = currencyFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
    // locales come from requests: the kept formatters are bounded (the oldest goes first)
    if (currencyFormats.size >= CURRENCY_FORMATS_KEPT) currencyFormats.delete(currencyFormats.keys().next().value as string);
    currencyFormats.set(key, format);
  }
  return format;
}

/**
 * The one formatter of money: minor units in major units with the currency's own decimals, from the digits
 * themselves (never through floating point). Plain: `-12.34 EUR`, `5000 JPY`, `1.234 BHD`, or with `grouping`
 * `1,000,000.00 USD`. With a `locale`, as a customer reads it in that locale (`€12.34`, `19,99 €`, `¥5,000`): the
 * exact decimal string is handed to Intl.NumberFormat (which formats a numeric string without converting it to a
 * float); a locale or currency Intl cannot format falls back to the plain form.
 */
export function formatMinor(money: Money, options: { grouping?: boolean; locale?: string } = {}): string {
  const digits = digitsOf(money.currency);
  if (options.locale !== undefined) {
    const decimal = majorDigits(money, digits, false);
    try {
      // an exact decimal string (ES2023 Intl.NumberFormat v3), typed as a number by the ES2022 library
      return currencyFormat(options.locale, money.currency, digits).format(decimal as unknown as number);
    } catch {
      return `${decimal} ${money.currency}`;
    }
  }
  return `${majorDigits(money, digits, options.grouping ?? false)} ${money.currency}`;
}

let regionNames: Intl.DisplayNames | undefined;
/** ISO 3166-1 alpha-2 country code known to the runtime's ICU data. */
export function isCountry(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code)) return false;
  const name = (regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' })).of(code);
  return name !== undefined && name !== code && name !== 'Unknown Region';
}
