import fs from 'node:fs';
import { z } from 'zod';
import { ValidationError } from '../../domain/errors';
import type { Sealer } from '../../util/encryption';
import { fixturePath } from '../../util/paths';
import type { PaymentCard } from '../../db/models';

/**
 * Card data as a customer gives it. It lives in memory for the request only: what is kept is the CardSummary
 * (brand, last4, bin, expiry, a keyed fingerprint), never the number or the cvc.
 */
export interface CardInput {
  number: string;
  expMonth: number;
  expYear: number;
  cvc?: string;
  holderName?: string;
}

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'discover' | 'jcb' | 'diners' | 'unionpay' | 'unknown';

export type CardSummary = Omit<PaymentCard, 'brand'> & { brand: CardBrand };

/** The Luhn (mod 10) check of a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** The brand from the number's leading digits (IIN ranges). */
export function cardBrand(number: string): CardBrand {
  const p = (n: number) => Number(number.slice(0, n));
  if (/^4/.test(number)) return 'visa';
  if ((p(2) >= 51 && p(2) <= 55) || (p(4) >= 2221 && p(4) <= 2720)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^(6011|65|64[4-9])/.test(number)) return 'discover';
  if (p(4) >= 3528 && p(4) <= 3589) return 'jcb';
  if (/^(30[0-5]|3095|36|38|39)/.test(number)) return 'diners';
  if (/^62/.test(number)) return 'unionpay';
  return 'unknown';
}

/** Removes the spaces and dashes people type between groups. */
export function normalizeCardNumber(number: string): string {
  return String(number).replace(/[\s-]/g, '');
}

/**
 * Refuses card data that cannot be a card (400 naming the field under `path`): digits only, 12 to 19 of them,
 * Luhn-valid; month 1-12; not expired at `now` (a card is valid through the last day of its expiry month, UTC);
 * cvc of 3 or 4 digits when given; a holder name of at most 200 characters.
 */
export function validateCard(card: CardInput, now: Date, path = 'card'): void {
  const number = typeof card.number === 'string' ? normalizeCardNumber(card.number) : '';
  if (!/^\d{12,19}$/.test(number)) throw ValidationError.field(`${path}.number`, 'must be 12 to 19 digits');
  if (!luhnValid(number)) throw ValidationError.field(`${path}.number`, 'is not a valid card number (check digit)');
  if (!Number.isInteger(card.expMonth) || card.expMonth < 1 || card.expMonth > 12) {
    throw ValidationError.field(`${path}.expMonth`, 'must be an integer from 1 to 12');
  }
  if (!Number.isInteger(card.expYear) || card.expYear < 1000 || card.expYear > 9999) {
    throw ValidationError.field(`${path}.expYear`, 'must be a four-digit year');
  }
  // the first instant after the expiry month
  const end = Date.UTC(card.expYear, card.expMonth, 1);
  if (now.getTime() >= end) throw ValidationError.field(`${path}.expYear`, 'the card has expired');
  if (card.cvc !== undefined && card.cvc !== null && !/^\d{3,4}$/.test(String(card.cvc))) {
    throw ValidationError.field(`${path}.cvc`, 'must be 3 or 4 digits');
  }
  if (card.holderName !== undefined && card.holderName !== null && (typeof card.holderName !== 'string' || card.holderName.length > 200)) {
    throw ValidationError.field(`${path}.holderName`, 'must be a string of at most 200 characters');
  }
}

/** What is kept of a card: never the number. The fingerprint is a keyed hash of the number (same card, same fingerprint). */
export function summarizeCard(ctx: { sealer: Sealer }, card: CardInput): CardSummary {
  const number = normalizeCardNumber(card.number);
  return {
    brand: cardBrand(number),
    last4: number.slice(-4),
    bin: number.slice(0, 6),
    expMonth: card.expMonth,
    expYear: card.expYear,
    fingerprint: ctx.sealer.mac('card-fingerprint', number),
    country: cardCountry(number),
    holderName: card.holderName?.trim() ? card.holderName.trim() : null,
  };
}

// --- issuing country (fixtures/card-bins.json: leading digits -> ISO 3166-1 alpha-2; the longest prefix wins) ---

const binsSchema = z.object({
  bins: z.array(z.object({ prefix: z.string().regex(/^\d{1,11}$/), country: z.string().regex(/^[A-Z]{2}$/), note: z.string().optional() })),
});

let bins: { prefix: string; country: string }[] | undefined;

function loadBins(): { prefix: string; country: string }[] {
  if (!bins) {
    const file = fixturePath('card-bins.json');
    const parsed = binsSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    if (!parsed.success)
      throw new Error(`${file} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
    bins = [...parsed.data.bins].sort((a, b) => b.prefix.length - a.prefix.length);
  }
  return bins;
}

/** The issuing country of a card number when its leading digits are known, else null. */
export function cardCountry(number: string): string | null {
  return loadBins().find((b) => number.startsWith(b.prefix))?.country ?? null;
}
