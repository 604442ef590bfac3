import crypto from 'node:crypto';
import { ibanValid, luhnValid } from './scan-secrets';

/** A random Luhn-valid card number of `length` digits starting with `prefix` (none of the sandbox's test cards, in practice). */
export function randomPan(prefix: string, length = 16): string {
  for (;;) {
    let digits = prefix;
    while (digits.length < length) digits += String(crypto.randomInt(10));
    if (luhnValid(digits)) return digits;
  }
}

/** A valid German IBAN with random account digits. */
export function randomIban(): string {
  const bban = Array.from({ length: 18 }, () => crypto.randomInt(10)).join('');
  for (let check = 2; check < 100; check++) {
    const iban = `DE${String(check).padStart(2, '0')}${bban}`;
    if (ibanValid(iban)) return iban;
  }
  throw new Error('unreachable');
}
