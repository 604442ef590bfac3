import request from 'supertest';
import { dialectName, testConfig } from '../helpers/db';
import { useCliSandbox } from '../helpers/cli';
import { openRuntime, closeRuntime } from '../../src/runtime';
import { createApp } from '../../src/http/app';

const s = useCliSandbox();
const cli = s.cli;

/** GET over HTTP on the same database, to check that what the CLI made is what the API serves. */
async function apiGet(path: string, key: string) {
  const rt = await openRuntime(testConfig(s.db));
  try {
    return await request(createApp(rt)).get(path).set('Authorization', `Bearer ${key}`);
  } finally {
    await closeRuntime(rt);
  }
}

describe(`payplane partners, channels and limits (${dialectName})`, () => {
  test('partners and assignments: create, list, illegal moves exit 5', async () => {
    const created = await cli(
      'partners',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--name',
      'Referral Co',
      '--metadata',
      'region=EU',
      '--json',
    );
    expect(created.status).toBe(0);
    const partner = created.json();
    expect(partner).toMatchObject({ tenantId: s.sandbox.tenantId, name: 'Referral Co', status: 'active', metadata: { region: 'EU' } });

    const assigned = await cli(
      'partners',
      'assignments',
      'create',
      '--partner',
      partner.id,
      '--merchant',
      s.sandbox.merchantId,
      '--commission-rate',
      '15000',
      '--fixed-amount',
      '0.10',
      '--fixed-currency',
      'EUR',
      '--json',
    );
    expect(assigned.status).toBe(0);
    expect(assigned.json()).toMatchObject({
      commissionRate: 15000,
      commissionFixed: { currency: 'EUR', valueMinor: 10 },
      status: 'active',
    });
    const again = await cli(
      'partners',
      'assignments',
      'create',
      '--partner',
      partner.id,
      '--merchant',
      s.sandbox.merchantId,
      '--commission-rate',
      '1',
      '--json',
    );
    expect(again.status).toBe(5);
    expect(again.json().error).toMatchObject({ code: 'PARTNER_ASSIGNMENT_EXISTS', status: 409 });

    const bad = await cli(
      'partners',
      'assignments',
      'create',
      '--partner',
      partner.id,
      '--merchant',
      s.sandbox.merchantId,
      '--commission-rate',
      '2000000',
      '--json',
    );
    expect(bad.status).toBe(2);
    expect(bad.json().error.errors).toEqual([{ path: '--commission-rate', message: expect.any(String) }]);

    expect((await cli('partners', 'suspend', partner.id, '--yes', '--json')).json().status).toBe('suspended');
    const illegal = await cli('partners', 'suspend', partner.id, '--yes', '--json');
    expect(illegal.status).toBe(5);
    expect(illegal.json().error.code).toBe('INVALID_STATE_TRANSITION');

    const res = await apiGet(`/v1/admin/partner-assignments?partnerId=${partner.id}`, s.sandbox.tenantKey.secretKey);
    expect(res.body.data.map((a: { id: string }) => a.id)).toEqual([assigned.json().id]);
  });

  test('channels and channel limits; validation names the flag', async () => {
    const created = await cli(
      'channels',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--name',
      'EU cards',
      '--direction',
      'payin',
      '--currency',
      'EUR',
      '--currency',
      'USD',
      '--json',
    );
    expect(created.status).toBe(0);
    const channel = created.json();
    expect(channel).toMatchObject({ direction: 'payin', currencies: ['EUR', 'USD'], status: 'active' });

    const badCurrency = await cli(
      'channels',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--name',
      'x',
      '--direction',
      'payin',
      '--currency',
      'eur',
      '--json',
    );
    expect(badCurrency.status).toBe(2);
    expect(badCurrency.json().error.errors[0].path).toBe('--currency[0]');

    const noCurrency = await cli(
      'channels',
      'limits',
      'create',
      channel.id,
      '--period-unit',
      'day',
      '--metric',
      'volume',
      '--threshold',
      '100',
      '--json',
    );
    expect(noCurrency.status).toBe(2);
    expect(noCurrency.json().error.errors).toEqual([{ path: '--currency', message: expect.stringContaining('volume') }]);

    const limit = await cli(
      'channels',
      'limits',
      'create',
      channel.id,
      '--period-unit',
      'day',
      '--metric',
      'volume',
      '--threshold',
      '50000.00',
      '--currency',
      'EUR',
      '--json',
    );
    expect(limit.status).toBe(0);
    expect(limit.json()).toMatchObject({
      entityType: 'channel',
      entityId: channel.id,
      period: { value: 1, unit: 'day' },
      threshold: 5000000,
      currency: 'EUR',
    });

    const listed = await cli('channels', 'limits', 'list', channel.id, '--json');
    expect(listed.json().data.map((l: { id: string }) => l.id)).toEqual([limit.json().id]);
    expect((await cli('channels', 'limits', 'disable', channel.id, limit.json().id, '--yes', '--json')).json().status).toBe('disabled');
    expect((await cli('channels', 'disable', channel.id, '--yes', '--json')).json().status).toBe('disabled');
  });

  test('limits of a merchant: create, list, disable by id; the merchant sees them over HTTP', async () => {
    const made = await cli(
      'limits',
      'create',
      '--merchant',
      s.sandbox.merchantId,
      '--period-value',
      '0',
      '--period-unit',
      'hour',
      '--metric',
      'count',
      '--threshold',
      '5',
      '--json',
    );
    expect(made.status).toBe(2);
    expect(made.json().error.errors[0].path).toBe('--period-value');

    const created = await cli(
      'limits',
      'create',
      '--merchant',
      s.sandbox.merchantId,
      '--period-unit',
      'hour',
      '--metric',
      'count',
      '--threshold',
      '5',
      '--json',
    );
    expect(created.status).toBe(0);
    const limit = created.json();
    expect(limit).toMatchObject({
      entityType: 'merchant',
      entityId: s.sandbox.merchantId,
      metric: 'count',
      threshold: 5,
      transactionType: 'payment',
    });

    const table = await cli('limits', 'list', '--merchant', s.sandbox.merchantId);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain(limit.id);

    const seen = await apiGet(`/v1/admin/merchants/${s.sandbox.merchantId}/limits`, s.sandbox.merchantKey.secretKey);
    expect(seen.body.data.map((l: { id: string }) => l.id)).toEqual([limit.id]);

    expect((await cli('limits', 'disable', limit.id, '--yes', '--json')).json().status).toBe('disabled');
    const twice = await cli('limits', 'disable', limit.id, '--yes', '--json');
    expect(twice.status).toBe(5);
  });
});
