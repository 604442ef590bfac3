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

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
/** ISO 3166-1 alpha-2 country code known to the runtime's ICU data. */
export function isCountry(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code)) return false;
  const name = regionNames.of(code);
  return name !== undefined && name !== code && name !== 'Unknown Region';
}
