import { runCli } from '../helpers/cli';
import { createTestDatabase, dialectName, TEST_TOKEN_SECRET, type TestDatabase } from '../helpers/db';

// Issue 24, item 9: --tenant and --merchant work on the commands about one record as everywhere: they name whose the
// record must be; another tenant's or merchant's record is not found (exit 4), as over the API.

let db: TestDatabase;
let env: Record<string, string>;
type Sandbox = { tenantId: string; merchantId: string; tenantKey: { id: string } };
let a: Sandbox;
let b: Sandbox;
let endpointId: string;
const cli = (...args: string[]) => runCli(args, env);

beforeAll(async () => {
  db = await createTestDatabase();
  env = { DATABASE_URL: db.url, PAYPLANE_HOME: db.home, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET, PAYPLANE_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' };
  a = (await cli('sandbox', 'init', '--json', '--name', 'A')).json();
  b = (await cli('sandbox', 'init', '--json', '--name', 'B', '--no-save')).json();
  const created = await cli('webhooks', 'endpoints', 'create', '--tenant', a.tenantId, '--merchant', a.merchantId, '--url', 'https://hooks.example.com/a', '--event', '*', '--json');
  expect(created.status).toBe(0);
  endpointId = created.json().id;
});
afterAll(() => db.drop());

describe(`scope flags on one record (${dialectName})`, () => {
  test('webhooks endpoints get and update take --tenant and --merchant: the owner passes, anyone else is 404', async () => {
    const own = await cli('webhooks', 'endpoints', 'get', endpointId, '--tenant', a.tenantId, '--merchant', a.merchantId, '--json');
    expect(own.status).toBe(0);
    expect(own.json()).toMatchObject({ id: endpointId });
    const updated = await cli('webhooks', 'endpoints', 'update', endpointId, '--tenant', a.tenantId, '--merchant', a.merchantId, '--description', 'shop', '--json');
    expect(updated.status).toBe(0);
    expect(updated.json()).toMatchObject({ description: 'shop' });
    for (const scope of [['--tenant', b.tenantId], ['--tenant', a.tenantId, '--merchant', b.merchantId], ['--merchant', b.merchantId]]) {
      const other = await cli('webhooks', 'endpoints', 'update', endpointId, ...scope, '--description', 'not mine', '--json');
      expect(other.status).toBe(4);
      expect(other.json().error.code).toBe('RESOURCE_NOT_FOUND');
    }
    expect((await cli('webhooks', 'endpoints', 'get', endpointId, '--json')).json().description).toBe('shop');
  });

  test('keys and merchants the same; a malformed --tenant is a usage error', async () => {
    expect((await cli('keys', 'get', a.tenantKey.id, '--tenant', a.tenantId, '--json')).status).toBe(0);
    expect((await cli('keys', 'get', a.tenantKey.id, '--tenant', b.tenantId, '--json')).status).toBe(4);
    expect((await cli('merchants', 'get', a.merchantId, '--tenant', a.tenantId, '--merchant', a.merchantId, '--json')).status).toBe(0);
    expect((await cli('merchants', 'get', a.merchantId, '--merchant', b.merchantId, '--json')).status).toBe(4);
    const bad = await cli('keys', 'get', a.tenantKey.id, '--tenant', 'not-a-uuid', '--json');
    expect(bad.status).toBe(2);
    expect(bad.json().error.errors[0].path).toBe('--tenant');
  });
});
