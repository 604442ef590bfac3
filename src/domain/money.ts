/** Money is integer minor units with an upper-case ISO 4217 currency. */
const CURRENCIES = new Set<string>(Intl.supportedValuesOf('currency'));

export function isCurrency(code: string): boolean {
  return CURRENCIES.has(code);
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

/**
 * An amount of minor units in major units with the currency's own decimals, from the digits themselves (no floating
 * point): `-12.34 EUR`, `5000 JPY`, or with `grouping` `1,000,000.00 USD`.
 */
export function formatMinor(money: { currency: string; valueMinor: number }, options: { grouping?: boolean } = {}): string {
  let digits = 2;
  try {
    digits = minorUnits(money.currency);
  } catch {
    // an unknown currency code: two decimals
  }
  const abs = String(Math.abs(money.valueMinor)).padStart(digits + 1, '0');
  let major = abs.slice(0, abs.length - digits);
  if (options.grouping) major = major.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = digits > 0 ? `.${abs.slice(abs.length - digits)}` : '';
  return `${money.valueMinor < 0 ? '-' : ''}${major}${fraction} ${money.currency}`;
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
/** ISO 3166-1 alpha-2 country code known to the runtime's ICU data. */
export function isCountry(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code)) return false;
  const name = regionNames.of(code);
  return name !== undefined && name !== code && name !== 'Unknown Region';
}
