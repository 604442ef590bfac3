import { Flags } from '@oclif/core';
import { isCurrency, minorUnits } from '../domain/money';
import { ValidationError } from '../domain/errors';

// The one rule of every amount a command reads: --<name> in major units of its currency, the way
// it is written (25.00 EUR, 1500 JPY, 1.234 BHD), read as digits and never through a float; --<name>-minor in minor
// units for scripts (2500). Exactly one of the two.

const majorFlag = (description: string) => Flags.string({ description });
const minorFlag = (description: string) => Flags.integer({ description });

/** An amount's two flags as the command declares them. */
export type AmountFlagPair<N extends string> = Record<N, ReturnType<typeof majorFlag>> & Record<`${N}-minor`, ReturnType<typeof minorFlag>>;

/**
 * The flags of one amount: --<name> in major units of `currency` (how the help names it: "--currency", "the
 * payment's currency") and --<name>-minor in minor units. `what` begins each description ("Amount", "One rule:
 * fixed amount").
 */
export function amountFlagPair<N extends string>(name: N, what: string, currency: string): AmountFlagPair<N> {
  return {
    [name]: majorFlag(`${what} in ${currency}, in major units (e.g. 25.00 EUR, 1500 JPY); not with --${name}-minor`),
    [`${name}-minor`]: minorFlag(`${what} in minor units (e.g. 2500 for 25.00 EUR); not with --${name}`),
  } as AmountFlagPair<N>;
}

/** What an amount is read against. */
export interface AmountRule {
  /** the currency of the amount; undefined when none is known (a major-unit amount is then refused) */
  currency: string | undefined;
  /** the flag that gives the currency (named when it is not an ISO 4217 code) */
  currencyFlag: string;
  /** what to give when the currency is missing (default: currencyFlag) */
  missing?: string;
  /** 0 is an amount (a minimum, a fixed part); otherwise it must be positive */
  zero?: boolean;
}

/**
 * The minor units of the amount of --<name> (major units of the rule's currency, at most its decimals) or
 * --<name>-minor; undefined when neither is given. Refused (exit 2) naming the flag: both given, not an amount, more
 * decimals than the currency has, too large, not positive (unless `zero`), a major-unit amount without a currency.
 */
export function minorOf(flags: object, name: string, rule: AmountRule): number | undefined {
  const flag = `--${name}`;
  const given = flags as Record<string, unknown>;
  const major = given[name] as string | undefined;
  const minor = given[`${name}-minor`] as number | undefined;
  if (major !== undefined && minor !== undefined) throw ValidationError.field(flag, `give either ${flag} or ${flag}-minor, not both`);
  if (minor !== undefined) {
    if (minor < (rule.zero ? 0 : 1))
      throw ValidationError.field(`${flag}-minor`, `must be a ${rule.zero ? 'non-negative' : 'positive'} integer of minor units`);
    return minor;
  }
  if (major === undefined) return undefined;
  const { currency } = rule;
  if (currency === undefined) {
    throw ValidationError.field(
      flag,
      `is in major units of a currency: give ${rule.missing ?? rule.currencyFlag} (or ${flag}-minor in minor units)`,
    );
  }
  if (!isCurrency(currency)) throw ValidationError.field(rule.currencyFlag, `"${currency}" is not an ISO 4217 currency code (e.g. EUR)`);
  const digits = minorUnits(currency);
  const match = /^(\d+)(?:\.(\d+))?$/.exec(major.trim());
  if (!match) {
    throw ValidationError.field(
      flag,
      `must be a ${rule.zero ? '' : 'positive '}amount such as ${digits ? `12.${'3'.repeat(digits)}` : '1500'}`,
    );
  }
  const [, whole, fraction = ''] = match;
  if (fraction.length > digits) {
    throw ValidationError.field(flag, digits ? `${currency} has ${digits} decimal places at most` : `${currency} has no decimal places`);
  }
  const value = BigInt(whole) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, '0') || '0');
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw ValidationError.field(flag, 'is too large');
  if (value === 0n && !rule.zero) throw ValidationError.field(flag, 'must be positive');
  return Number(value);
}
