import { Webhook } from 'standardwebhooks';
import { sign, signatureHeader, generateWebhookSecret } from '../../src/services/webhooks/signature';
import { matchesPattern } from '../../src/services/webhooks/catalog';
import { addressAllowed } from '../../src/services/webhooks/transport';
import { renderEventData } from '../../src/services/webhooks/events';
import { RETRY_DELAYS_MS } from '../../src/services/webhooks/dispatcher';

describe('webhook signatures', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const timestamp = 1614265330;
  const payload = '{"test": 2432232314}';
  const expected = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

  test('the Standard Webhooks published test vector, by us and by the library', () => {
    expect(sign(secret, id, timestamp, payload)).toBe(expected);
    expect(new Webhook(secret).sign(id, new Date(timestamp * 1000), payload)).toBe(expected);
  });

  test('several secrets give several space-separated signatures', () => {
    const other = generateWebhookSecret();
    expect(other).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(other.slice(6), 'base64')).toHaveLength(32);
    expect(signatureHeader([secret, other], id, timestamp, payload)).toBe(`${expected} ${sign(other, id, timestamp, payload)}`);
  });
});

describe('webhook rules', () => {
  test('subscription patterns', () => {
    expect(matchesPattern('*', 'payment.created')).toBe(true);
    expect(matchesPattern('payment.*', 'payment.created')).toBe(true);
    expect(matchesPattern('payment.*', 'payout.created')).toBe(false);
    expect(matchesPattern('checkout.*', 'checkout.session.completed')).toBe(true);
    expect(matchesPattern('checkout.session.*', 'checkout.session.completed')).toBe(true);
    expect(matchesPattern('refund.created', 'refund.created')).toBe(true);
    expect(matchesPattern('refund.created', 'refund.failed')).toBe(false);
  });

  test('addresses: public unicast only, unless allowed', () => {
    expect(addressAllowed('93.184.216.34', [])).toBe(true);
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fe80::1',
      'fc00::1',
      '0.0.0.0',
      '100.64.0.1',
    ]) {
      expect(addressAllowed(ip, [])).toBe(false);
    }
    expect(addressAllowed('127.0.0.1', ['127.0.0.1/32'])).toBe(true);
    expect(addressAllowed('::ffff:127.0.0.1', ['127.0.0.1/32'])).toBe(true);
    expect(addressAllowed('127.0.0.2', ['127.0.0.1/32'])).toBe(false);
  });

  test('event data per level: merchants never see fee decomposition or provider details', () => {
    const data = {
      id: 'p',
      amount: { currency: 'EUR', valueMinor: 100 },
      merchantFee: 3,
      providerFee: 1,
      tenantFee: 1,
      routing: { terminalId: 't' },
      nested: { providerStatus: 'x', ok: 1 },
      internal: { cost: 9 },
    };
    expect(renderEventData(data, 'merchant')).toEqual({
      id: 'p',
      amount: { currency: 'EUR', valueMinor: 100 },
      merchantFee: 3,
      nested: { ok: 1 },
    });
    expect(renderEventData(data, 'tenant')).toEqual({
      id: 'p',
      amount: { currency: 'EUR', valueMinor: 100 },
      merchantFee: 3,
      providerFee: 1,
      tenantFee: 1,
      routing: { terminalId: 't' },
      nested: { providerStatus: 'x', ok: 1 },
    });
    expect(renderEventData(data, 'platform')).toEqual(data);
  });

  test('the retry schedule adds up to about 31 h 21 min', () => {
    expect(RETRY_DELAYS_MS).toHaveLength(10);
    expect(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBe((31 * 60 + 21) * 60_000);
  });
});
