import fs from 'node:fs';
import path from 'node:path';
import { runCli, useCliSandbox } from '../helpers/cli';
import { dialectName } from '../helpers/db';

// Issue 24, item 8: sandbox-facing commands take the tenant and merchant of the saved sandbox (<home>/sandbox.json)
// when --tenant is not given, as `webhooks listen` does.

const t = useCliSandbox();

test('sandbox init saved the sandbox it made', () => {
  expect(JSON.parse(fs.readFileSync(path.join(t.db.home, 'sandbox.json'), 'utf8')).tenantId).toBe(t.sandbox.tenantId);
});

describe(`sandbox defaults (${dialectName})`, () => {
  test('events trigger without --tenant and --merchant acts for the saved sandbox', async () => {
    const merchantEvent = await t.cli('events', 'trigger', 'payment.succeeded', '--json');
    expect(merchantEvent.status).toBe(0);
    expect(merchantEvent.json()).toMatchObject({
      tenantId: t.sandbox.tenantId,
      merchantId: t.sandbox.merchantId,
      type: 'payment.succeeded',
    });
    // a tenant event is the tenant's: the sandbox's merchant is not put on it
    const tenantEvent = await t.cli('events', 'trigger', 'fraud.alert', '--json');
    expect(tenantEvent.status).toBe(0);
    expect(tenantEvent.json()).toMatchObject({ tenantId: t.sandbox.tenantId, merchantId: null });
    // merchant.created makes a merchant of its own
    const created = await t.cli('events', 'trigger', 'merchant.created', '--json');
    expect(created.json()).toMatchObject({ tenantId: t.sandbox.tenantId, sample: false, merchantId: expect.any(String) });
    expect(created.json().merchantId).not.toBe(t.sandbox.merchantId);
  });

  test('flags given still win; without a saved sandbox --tenant is a usage error naming the file', async () => {
    const other = await t.cli('sandbox', 'init', '--json', '--no-save', '--name', 'Other');
    const given = await t.cli('events', 'trigger', 'merchant.created', '--json', '--tenant', other.json().tenantId);
    expect(given.json()).toMatchObject({ tenantId: other.json().tenantId });

    const home = fs.mkdtempSync(path.join(t.db.home, 'no-sandbox-'));
    const missing = await runCli(['events', 'trigger', 'payment.succeeded', '--json'], { ...t.env, PAYPLANE_HOME: home });
    expect(missing.status).toBe(2);
    expect(missing.json().error).toMatchObject({ code: 'MISSING_FLAG', hint: expect.stringContaining('sandbox init') });
    expect(missing.json().error.errors[0]).toMatchObject({
      path: '--tenant',
      message: expect.stringContaining(path.join(home, 'sandbox.json')),
    });
  });
});
