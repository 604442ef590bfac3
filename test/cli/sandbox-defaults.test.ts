import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { createTestDatabase, dialectName, TEST_TOKEN_SECRET, type TestDatabase } from '../helpers/db';

// Issue 24, item 8: sandbox-facing commands take the tenant and merchant of the saved sandbox (<home>/sandbox.json)
// when --tenant is not given, as `webhooks listen` does.

let db: TestDatabase;
let env: Record<string, string>;
let sandbox: { tenantId: string; merchantId: string };

beforeAll(async () => {
  db = await createTestDatabase();
  env = { DATABASE_URL: db.url, PAYPLANE_HOME: db.home, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET };
  const init = await runCli(['sandbox', 'init', '--json'], env);
  expect(init.status).toBe(0);
  sandbox = init.json();
  expect(init.json().savedTo).toBe(path.join(db.home, 'sandbox.json'));
});
afterAll(() => db.drop());

describe(`sandbox defaults (${dialectName})`, () => {
  test('events trigger without --tenant and --merchant acts for the saved sandbox', async () => {
    const merchantEvent = await runCli(['events', 'trigger', 'payment.succeeded', '--json'], env);
    expect(merchantEvent.status).toBe(0);
    expect(merchantEvent.json()).toMatchObject({ tenantId: sandbox.tenantId, merchantId: sandbox.merchantId, type: 'payment.succeeded' });
    // a tenant event is the tenant's: the sandbox's merchant is not put on it
    const tenantEvent = await runCli(['events', 'trigger', 'merchant.created', '--json'], env);
    expect(tenantEvent.status).toBe(0);
    expect(tenantEvent.json()).toMatchObject({ tenantId: sandbox.tenantId, merchantId: null });
  });

  test('flags given still win; without a saved sandbox --tenant is a usage error naming the file', async () => {
    const other = await runCli(['sandbox', 'init', '--json', '--no-save', '--name', 'Other'], env);
    const given = await runCli(['events', 'trigger', 'merchant.created', '--json', '--tenant', other.json().tenantId], env);
    expect(given.json()).toMatchObject({ tenantId: other.json().tenantId });

    const home = fs.mkdtempSync(path.join(db.home, 'no-sandbox-'));
    const missing = await runCli(['events', 'trigger', 'payment.succeeded', '--json'], { ...env, PAYPLANE_HOME: home });
    expect(missing.status).toBe(2);
    expect(missing.json().error).toMatchObject({ code: 'MISSING_FLAG', hint: expect.stringContaining('sandbox init') });
    expect(missing.json().error.errors[0]).toMatchObject({ path: '--tenant', message: expect.stringContaining(path.join(home, 'sandbox.json')) });
  });
});
