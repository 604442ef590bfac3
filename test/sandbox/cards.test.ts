import crypto from 'node:crypto';
import { Sealer } from '../../src/util/encryption';
import { cardBrand, cardCountry, luhnValid, summarizeCard, validateCard, type CardInput } from '../../src/services/payments/cards';
import { SANDBOX_CARDS } from '../../src/connectors/sandbox-card';
import { ValidationError } from '../../src/domain/errors';

const key = crypto.randomBytes(32);
const sealer = new Sealer(() => key);
const NOW = new Date('2026-03-15T10:00:00.000Z');
const card = (number: string, extra: Partial<CardInput> = {}): CardInput => ({ number, expMonth: 12, expYear: 2030, cvc: '123', ...extra });

/** The field path and message of the ValidationError fn throws. */
function fieldError(fn: () => void): { path: string; message: string } {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    const e = error as ValidationError;
    expect(e.status).toBe(400);
    return (e as unknown as { errors: { path: string; message: string }[] }).errors[0];
  }
  throw new Error('expected a ValidationError');
}

describe('cards', () => {
  test('Luhn: every sandbox test card passes, a changed digit fails', () => {
    for (const number of Object.keys(SANDBOX_CARDS)) {
      expect(luhnValid(number)).toBe(true);
      const last = Number(number.at(-1));
      expect(luhnValid(number.slice(0, -1) + String((last + 1) % 10))).toBe(false);
    }
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('79927398710')).toBe(false);
  });

  test('brand from the number, including the test cards', () => {
    expect(cardBrand('4242424242424242')).toBe('visa');
    expect(cardBrand('4000002760003184')).toBe('visa');
    expect(cardBrand('5555555555554444')).toBe('mastercard');
    expect(cardBrand('2223003122003222')).toBe('mastercard');
    expect(cardBrand('378282246310005')).toBe('amex');
    expect(cardBrand('6011111111111117')).toBe('discover');
    expect(cardBrand('3530111333300000')).toBe('jcb');
    expect(cardBrand('36227206271667')).toBe('diners');
    expect(cardBrand('6200000000000005')).toBe('unionpay');
    expect(cardBrand('9000000000000000008')).toBe('unknown');
    for (const number of Object.keys(SANDBOX_CARDS)) expect(['visa', 'mastercard']).toContain(cardBrand(number));
  });

  test('validateCard names the field of what is wrong under the given path', () => {
    const path = 'body.paymentMethod.card';
    expect(() => validateCard(card('4242424242424242'), NOW, path)).not.toThrow();
    expect(() => validateCard(card('4242 4242 4242 4242'), NOW, path)).not.toThrow();
    expect(fieldError(() => validateCard(card('4242424242424241'), NOW, path))).toMatchObject({ path: `${path}.number` });
    expect(fieldError(() => validateCard(card('42424242abcd4242'), NOW, path))).toMatchObject({ path: `${path}.number` });
    expect(fieldError(() => validateCard(card('42424242424'), NOW, path))).toMatchObject({ path: `${path}.number` }); // 11 digits
    expect(fieldError(() => validateCard(card('42424242424242424242'), NOW, path))).toMatchObject({ path: `${path}.number` }); // 20 digits
    expect(fieldError(() => validateCard(card('', {}), NOW, path))).toMatchObject({ path: `${path}.number` });
    expect(fieldError(() => validateCard(card('4242424242424242', { expMonth: 0 }), NOW, path))).toMatchObject({
      path: `${path}.expMonth`,
    });
    expect(fieldError(() => validateCard(card('4242424242424242', { expMonth: 13 }), NOW, path))).toMatchObject({
      path: `${path}.expMonth`,
    });
    expect(fieldError(() => validateCard(card('4242424242424242', { expMonth: 1.5 }), NOW, path))).toMatchObject({
      path: `${path}.expMonth`,
    });
    expect(fieldError(() => validateCard(card('4242424242424242', { expYear: 30 }), NOW, path))).toMatchObject({ path: `${path}.expYear` });
    expect(fieldError(() => validateCard(card('4242424242424242', { cvc: '12' }), NOW, path))).toMatchObject({ path: `${path}.cvc` });
    expect(fieldError(() => validateCard(card('4242424242424242', { cvc: '12345' }), NOW, path))).toMatchObject({ path: `${path}.cvc` });
    expect(fieldError(() => validateCard(card('4242424242424242', { cvc: 'abc' }), NOW, path))).toMatchObject({ path: `${path}.cvc` });
    expect(() => validateCard(card('378282246310005', { cvc: '1234' }), NOW, path)).not.toThrow();
    expect(() => validateCard(card('4242424242424242', { cvc: undefined }), NOW, path)).not.toThrow();
    // the default path
    expect(fieldError(() => validateCard(card('1234'), NOW))).toMatchObject({ path: 'card.number' });
  });

  test('expiry: a card is valid through the last instant of its expiry month (UTC)', () => {
    const march = card('4242424242424242', { expMonth: 3, expYear: 2026 });
    expect(() => validateCard(march, new Date('2026-03-31T23:59:59.999Z'))).not.toThrow();
    expect(fieldError(() => validateCard(march, new Date('2026-04-01T00:00:00.000Z')))).toMatchObject({
      path: 'card.expYear',
      message: 'the card has expired',
    });
    const december = card('4242424242424242', { expMonth: 12, expYear: 2026 });
    expect(() => validateCard(december, new Date('2026-12-31T23:59:59.999Z'))).not.toThrow();
    expect(fieldError(() => validateCard(december, new Date('2027-01-01T00:00:00.000Z')))).toMatchObject({ path: 'card.expYear' });
    expect(fieldError(() => validateCard(card('4242424242424242', { expMonth: 2, expYear: 2026 }), NOW))).toMatchObject({
      path: 'card.expYear',
    });
  });

  test('summary: brand, last4, bin, expiry, country, holder; fingerprint keyed, stable per number, never the number', () => {
    const s = summarizeCard({ sealer }, card('4000 0027 6000 3184', { holderName: '  Ada Lovelace ' }));
    expect(s).toEqual({
      brand: 'visa',
      last4: '3184',
      bin: '400000',
      expMonth: 12,
      expYear: 2030,
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      country: 'DE',
      holderName: 'Ada Lovelace',
    });
    expect(summarizeCard({ sealer }, card('4242424242424242')).country).toBe('US');
    expect(summarizeCard({ sealer }, card('4242424242424242')).holderName).toBeNull();
    expect(cardCountry('9000000000000000008')).toBeNull();

    const a1 = summarizeCard({ sealer }, card('4242424242424242'));
    const a2 = summarizeCard({ sealer }, card('4242 4242 4242 4242', { expMonth: 1, expYear: 2031, cvc: '999' }));
    const b = summarizeCard({ sealer }, card('5555555555554444'));
    expect(a1.fingerprint).toBe(a2.fingerprint);
    expect(b.fingerprint).not.toBe(a1.fingerprint);
    // keyed: another master key gives another fingerprint; no plain hash of the number
    const other = new Sealer(() => crypto.randomBytes(32));
    expect(summarizeCard({ sealer: other }, card('4242424242424242')).fingerprint).not.toBe(a1.fingerprint);
    expect(a1.fingerprint).not.toBe(crypto.createHash('sha256').update('4242424242424242').digest('hex'));
    // the summary holds no full number and no cvc anywhere
    for (const summary of [a1, a2, b]) {
      const text = JSON.stringify(summary);
      expect(text).not.toContain('4242424242424242');
      expect(text).not.toContain('5555555555554444');
      expect(text).not.toContain('"999"');
      expect(Object.keys(summary).sort()).toEqual(['bin', 'brand', 'country', 'expMonth', 'expYear', 'fingerprint', 'holderName', 'last4']);
    }
  });

  test('Sealer.mac: HMAC-SHA256 hex under a key derived per purpose', () => {
    const m = sealer.mac('card-fingerprint', 'x');
    expect(m).toMatch(/^[0-9a-f]{64}$/);
    expect(sealer.mac('card-fingerprint', 'x')).toBe(m);
    expect(sealer.mac('another-purpose', 'x')).not.toBe(m);
    expect(sealer.mac('card-fingerprint', 'y')).not.toBe(m);
    // not an HMAC under the master key itself
    expect(crypto.createHmac('sha256', key).update('x').digest('hex')).not.toBe(m);
  });
});
