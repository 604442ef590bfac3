import {
  conditionIssues,
  ipRange,
  matchesCondition,
  normalizeCondition,
  normalizeIp,
  type RiskSubject,
} from '../../src/services/risk/conditions';
import { windowPeriod } from '../../src/services/risk/rules';
import type { RiskCondition } from '../../src/db/models/risk';

const subject: RiskSubject = {
  tenantId: 't',
  livemode: false,
  merchantId: 'M-1',
  channelId: null,
  amount: { currency: 'EUR', valueMinor: 12_345 },
  card: { fingerprint: 'fp_abc', bin: '424242', brand: 'visa', country: 'DE' },
  email: 'ada@example.com',
  ip: '203.0.113.7',
  customerReference: 'cust-42',
  threeDSResult: null,
};

const cond = (field: RiskCondition['field'], operator: RiskCondition['operator'], value: string): RiskCondition =>
  normalizeCondition({ field, operator, value, aggregation: null, statisticWindow: null });
const holds = (c: RiskCondition, lists: string[] = []) => matchesCondition(c, subject, (id) => lists.includes(id));

describe('risk conditions (pure)', () => {
  test('amount compares as a number in minor units', () => {
    expect(holds(cond('amount', 'gt', '12344'))).toBe(true);
    expect(holds(cond('amount', 'gt', '12345'))).toBe(false);
    expect(holds(cond('amount', 'gte', '12345'))).toBe(true);
    expect(holds(cond('amount', 'lt', '99999'))).toBe(true);
    expect(holds(cond('amount', 'lte', '12344'))).toBe(false);
    expect(holds(cond('amount', 'eq', '12345'))).toBe(true);
    expect(holds(cond('amount', 'neq', '12345'))).toBe(false);
    expect(holds(cond('amount', 'in', '1, 12345 ,3'))).toBe(true);
    expect(holds(cond('amount', 'not_in', '1,2'))).toBe(true);
  });

  test('text fields normalize the way the payment is (case, spaces), in and not_in take lists', () => {
    expect(holds(cond('currency', 'eq', ' eur '))).toBe(true);
    expect(holds(cond('brand', 'in', 'MASTERCARD, Visa'))).toBe(true);
    expect(holds(cond('country', 'not_in', 'fr,it'))).toBe(true);
    expect(holds(cond('email', 'eq', 'ADA@example.com'))).toBe(true);
    expect(holds(cond('email_domain', 'eq', 'Example.COM'))).toBe(true);
    expect(holds(cond('email', 'contains', '@EXAMPLE'))).toBe(true);
    expect(holds(cond('bin', 'contains', '4242'))).toBe(true);
    expect(holds(cond('customer_reference', 'neq', 'cust-41'))).toBe(true);
    expect(holds(cond('merchant_id', 'eq', 'm-1'))).toBe(true);
    expect(holds(cond('ip', 'eq', '::ffff:203.0.113.7'))).toBe(true);
  });

  test('in_list asks the membership looked up beforehand', () => {
    expect(holds(cond('card_fingerprint', 'in_list', 'group-1'), ['group-1'])).toBe(true);
    expect(holds(cond('card_fingerprint', 'in_list', 'group-1'), ['group-2'])).toBe(false);
  });

  test('a value the payment lacks matches only neq and not_in', () => {
    expect(holds(cond('three_ds_result', 'eq', 'authenticated'))).toBe(false);
    expect(holds(cond('three_ds_result', 'in', 'authenticated,failed'))).toBe(false);
    expect(holds(cond('three_ds_result', 'neq', 'authenticated'))).toBe(true);
    expect(holds(cond('three_ds_result', 'not_in', 'authenticated,failed'))).toBe(true);
    const noEmail = { ...subject, email: null };
    expect(matchesCondition(cond('email_domain', 'eq', 'example.com'), noEmail, () => true)).toBe(false);
    expect(matchesCondition(cond('email_domain', 'in_list', 'g'), noEmail, () => true)).toBe(false);
  });

  test('operators are checked against the field; aggregations compare numbers; values parse', () => {
    const issues = (c: Partial<RiskCondition>) =>
      conditionIssues(
        { field: 'amount', operator: 'eq', value: '1', aggregation: null, statisticWindow: null, ...c },
        'body.conditions[0]',
      );
    expect(issues({})).toEqual([]);
    expect(issues({ field: 'email', operator: 'gt' })).toEqual([
      { path: 'body.conditions[0].operator', message: expect.stringContaining('eq, neq, in, not_in, contains, in_list') },
    ]);
    expect(issues({ value: '12.5' })).toEqual([{ path: 'body.conditions[0].value', message: expect.stringContaining('integer') }]);
    expect(issues({ field: 'ip', value: '999.1.1.1' })[0].path).toBe('body.conditions[0].value');
    const aggregation = {
      metric: 'sum' as const,
      period: { value: 1, unit: 'day' as const },
      scope: ['tenant' as const],
      identifier: 'email' as const,
      currency: null,
    };
    expect(issues({ field: 'email', operator: 'gt', value: '3', aggregation })).toEqual([
      { path: 'body.conditions[0].field', message: expect.stringContaining('must be amount') },
    ]);
    expect(issues({ operator: 'in', value: '3', aggregation })[0].path).toBe('body.conditions[0].operator');
  });

  test('ip list entries: addresses and CIDR ranges as comparable keys; IPv4-mapped IPv6 is IPv4', () => {
    expect(normalizeIp('::ffff:10.0.0.1')).toBe('10.0.0.1');
    const range = ipRange('203.0.113.77/24');
    expect(range.value).toBe('203.0.113.0/24');
    const inside = ipRange('203.0.113.200');
    const outside = ipRange('203.0.114.1');
    expect(inside.start >= range.start && inside.start <= range.end).toBe(true);
    expect(outside.start >= range.start && outside.start <= range.end).toBe(false);
    const v6 = ipRange('2001:db8::/32');
    expect(ipRange('2001:db8:ffff::1').start <= v6.end && ipRange('2001:db8:ffff::1').start >= v6.start).toBe(true);
    expect(() => ipRange('not-an-ip')).toThrow();
  });

  test('statistic windows read as periods', () => {
    expect(windowPeriod('10m')).toEqual({ value: 10, unit: 'minute' });
    expect(windowPeriod('1d')).toEqual({ value: 1, unit: 'day' });
    expect(windowPeriod('2w')).toEqual({ value: 2, unit: 'week' });
    expect(windowPeriod('0h')).toBeNull();
    expect(windowPeriod('1y')).toBeNull();
  });
});
