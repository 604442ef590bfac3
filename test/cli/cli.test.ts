import fs from 'node:fs';
import request from 'supertest';
import { createTestDatabase, dialectName, onPostgres, testConfig, TEST_TOKEN_SECRET } from '../helpers/db';
import { runCli, useCliSandbox } from '../helpers/cli';
import { openRuntime, closeRuntime, type Runtime } from '../../src/runtime';
import { createApp } from '../../src/http/app';
import { migrations } from '../../src/db/migrations';

const s = useCliSandbox({ sandbox: false });
const cli = s.cli;

/** The API over the same database, to check that what the CLI made works over HTTP. */
async function withApi<T>(fn: (rt: Runtime, app: ReturnType<typeof createApp>) => Promise<T>): Promise<T> {
  const rt = await openRuntime(testConfig(s.db));
  try {
    return await fn(rt, createApp(rt));
  } finally {
    await closeRuntime(rt);
  }
}

const NO_ESCAPES = /\u001b\[/;

describe(`payplane CLI (${dialectName})`, () => {
  let sandbox: {
    tenantId: string;
    merchantId: string;
    tenantKey: { id: string; secretKey: string };
    platformToken: string;
    platformUserId: string;
  };

  test('--help lists the topics', async () => {
    const res = await cli('--help');
    expect(res.status).toBe(0);
    for (const topic of ['db', 'keys', 'sandbox', 'tenants', 'tokens', 'serve'])
      expect(res.stdout).toMatch(new RegExp(`^\\s+${topic}\\s`, 'm'));
    const keys = await cli('keys', '--help');
    for (const cmd of ['create', 'get', 'list', 'revoke', 'rotate', 'update']) expect(keys.stdout).toContain(`keys ${cmd}`);
  });

  test('db migrate: status, up, and status again', async () => {
    const all = migrations.map((m) => m.name);
    if (!onPostgres) {
      // status does not create a missing SQLite file: unavailable, naming it (up creates it)
      const missing = await cli('db', 'migrate', 'status', '--json');
      expect(missing.status).toBe(8);
      expect(missing.json().error).toMatchObject({
        code: 'DATABASE_NOT_FOUND',
        message: expect.stringContaining(s.db.url.slice('sqlite:'.length)),
      });
      // an existing database without the schema: status lists every migration as pending
      fs.writeFileSync(s.db.url.slice('sqlite:'.length), '');
    }
    const before = await cli('db', 'migrate', 'status', '--json');
    expect(before.status).toBe(0);
    expect(all.slice(0, 2)).toEqual(['0001_foundation', '0002_webhooks']);
    expect(before.json()).toEqual({ action: 'status', executed: [], pending: all });
    const up = await cli('db', 'migrate', '--json');
    expect(up.json()).toEqual({ action: 'up', applied: all });
    const after = await cli('db', 'migrate', 'status');
    for (const name of all) expect(after.stdout).toContain(`applied  ${name}`);
    const down = await cli('db', 'migrate', 'down', '--json');
    expect(down.json()).toEqual({ action: 'down', reverted: [all[all.length - 1]] });
    expect((await cli('db', 'migrate', '--json')).json()).toEqual({ action: 'up', applied: [all[all.length - 1]] });
  });

  test('several processes migrating one fresh database at once all succeed', async () => {
    const fresh = await createTestDatabase();
    try {
      const env2 = { DATABASE_URL: fresh.url, PAYPLANE_HOME: fresh.home, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET };
      const runs = await Promise.all([1, 2, 3].map(() => runCli(['db', 'migrate', '--json'], env2)));
      expect(runs.map((r) => r.status)).toEqual([0, 0, 0]);
      const applied = runs.flatMap((r) => r.json().applied);
      expect(applied.sort()).toEqual(migrations.map((m) => m.name).sort());
    } finally {
      await fresh.drop();
    }
  });

  test('sandbox init --json creates a tenant with working keys and a platform token', async () => {
    const res = await cli('sandbox', 'init', '--json');
    expect(res.status).toBe(0);
    sandbox = res.json();
    expect(sandbox).toMatchObject({
      tenantId: expect.any(String),
      companyId: expect.any(String),
      merchantId: expect.any(String),
      tenantKey: { id: expect.any(String), secretKey: expect.stringMatching(/^sk_test_/) },
      merchantKey: { id: expect.any(String), secretKey: expect.stringMatching(/^sk_test_/) },
      platformToken: expect.stringMatching(/^ey/),
    });
    await withApi(async (_rt, app) => {
      const keys = await request(app).get('/v1/api-keys').set('Authorization', `Bearer ${sandbox.tenantKey.secretKey}`);
      expect(keys.status).toBe(200);
      expect(keys.body.pagination.totalCount).toBe(2);
      const tenants = await request(app).get('/v1/admin/tenants').set('Authorization', `Bearer ${sandbox.platformToken}`);
      expect(tenants.status).toBe(200);
    });
  });

  test('keys create --json issues a key that works over HTTP; list, get, update, rotate and revoke', async () => {
    const created = await cli(
      'keys',
      'create',
      '--tenant',
      sandbox.tenantId,
      '--merchant',
      sandbox.merchantId,
      '--name',
      'CLI key',
      '--permission',
      'api-keys:keys:view',
      '--json',
    );
    expect(created.status).toBe(0);
    const key = created.json();
    expect(key).toMatchObject({
      name: 'CLI key',
      permissions: ['api-keys:keys:view'],
      owner: { type: 'merchant', merchantId: sandbox.merchantId },
      createdBy: expect.stringMatching(/^[0-9a-f-]{36}$/),
      createdByType: 'user',
    });
    expect(key.secretKey).toMatch(/^sk_test_/);
    await withApi(async (_rt, app) => {
      const res = await request(app).get(`/v1/api-keys/${key.id}`).set('Authorization', `Bearer ${key.secretKey}`);
      expect(res.status).toBe(200);
      expect(res.body.data.secretKey).toBeUndefined();
    });

    const table = await cli('keys', 'list', '--tenant', sandbox.tenantId);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain(key.id);
    expect(table.stdout).toContain('CLI key');
    expect(table.stdout).toMatch(/3 of 3/);
    expect(table.stdout).not.toMatch(NO_ESCAPES);
    expect(table.stdout).not.toContain(key.secretKey);
    const listed = (await cli('keys', 'list', '--tenant', sandbox.tenantId, '--merchant', sandbox.merchantId, '--json')).json();
    expect(listed.data.map((k: { id: string }) => k.id)).toContain(key.id);
    expect(listed.pagination.totalCount).toBe(2);
    expect((await cli('keys', 'list', '--tenant', sandbox.tenantId, '--live', '--json')).json().data).toEqual([]);

    const got = (await cli('keys', 'get', key.id, '--json')).json();
    expect(got.secretKey).toBeUndefined();
    expect(got.id).toBe(key.id);

    const updated = (await cli('keys', 'update', key.id, '--name', 'Renamed', '--json')).json();
    expect(updated.name).toBe('Renamed');

    const rotated = (await cli('keys', 'rotate', key.id, '--grace-hours', '0', '--json')).json();
    expect(rotated.rotatedFromKeyId).toBe(key.id);
    expect(rotated.secretKey).toMatch(/^sk_test_/);
    expect((await cli('keys', 'get', key.id, '--json')).json().status).toBe('expired');

    const unconfirmed = await cli('keys', 'revoke', rotated.id);
    expect(unconfirmed.status).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    const revoked = await cli('keys', 'revoke', rotated.id, '--yes', '--json');
    expect(revoked.status).toBe(0);
    expect(revoked.json().status).toBe('revoked');
    await withApi(async (_rt, app) => {
      const res = await request(app).get('/v1/api-keys').set('Authorization', `Bearer ${rotated.secretKey}`);
      expect(res.status).toBe(401);
    });
  });

  test('errors carry a code and an exit code, as text and as JSON', async () => {
    const missing = await cli('keys', 'get', '00000000-0000-4000-8000-000000000000', '--json');
    expect(missing.status).toBe(4);
    expect(missing.json()).toEqual({ error: expect.objectContaining({ code: 'RESOURCE_NOT_FOUND', status: 404, exitCode: 4 }) });
    const text = await cli('keys', 'get', '00000000-0000-4000-8000-000000000000');
    expect(text.status).toBe(4);
    expect(text.stderr).toContain('No API key with id 00000000-0000-4000-8000-000000000000');
    expect(text.stderr).toContain('RESOURCE_NOT_FOUND');

    const badExpiry = await cli('keys', 'create', '--tenant', sandbox.tenantId, '--expires-at', 'tomorrow', '--json');
    expect(badExpiry.status).toBe(2);
    expect(badExpiry.json().error.errors).toEqual([{ path: '--expires-at', message: 'must be an ISO 8601 date-time' }]);
    const badPermission = await cli(
      'keys',
      'create',
      '--tenant',
      sandbox.tenantId,
      '--merchant',
      sandbox.merchantId,
      '--permission',
      'organization:tenants:manage',
      '--json',
    );
    expect(badPermission.status).toBe(2);
    expect(badPermission.json().error.code).toBe('INVALID_PERMISSIONS');
    const noName = await cli('tenants', 'create', '--json');
    expect(noName.status).toBe(2);
    expect(noName.json().error.code).toBe('MISSING_FLAG');
  });

  test('tenants create, list, get, update and status moves', async () => {
    const created = await cli(
      'tenants',
      'create',
      '--name',
      'Acme CLI',
      '--default-currency',
      'EUR',
      '--allowed-currency',
      'EUR',
      '--allowed-currency',
      'USD',
      '--feature',
      'instantPayouts=true',
      '--json',
    );
    expect(created.status).toBe(0);
    const tenant = created.json();
    expect(tenant).toMatchObject({
      name: 'Acme CLI',
      status: 'active',
      livemode: true,
      allowedCurrencies: ['EUR', 'USD'],
      featureFlags: { instantPayouts: true },
    });

    const table = await cli('tenants', 'list');
    expect(table.status).toBe(0);
    expect(table.stdout).toContain('Acme CLI');
    expect(table.stdout).toContain(sandbox.tenantId);
    expect(table.stdout).not.toMatch(NO_ESCAPES);
    const listed = (await cli('tenants', 'list', '--json')).json();
    expect(listed.pagination.totalCount).toBe(2);
    expect((await cli('tenants', 'get', tenant.id, '--json')).json().name).toBe('Acme CLI');

    const updated = (await cli('tenants', 'update', tenant.id, '--rate-limit', '1500', '--json')).json();
    expect(updated.doorRateLimitPerMinute).toBe(1500);
    const bad = await cli('tenants', 'update', tenant.id, '--default-currency', 'XXXX', '--json');
    expect(bad.status).toBe(2);
    expect(bad.json().error.errors[0].path).toBe('--default-currency');

    expect((await cli('tenants', 'suspend', tenant.id, '--yes', '--json')).json().status).toBe('suspended');
    expect((await cli('tenants', 'list', '--status', 'suspended', '--json')).json().data.map((t: { id: string }) => t.id)).toEqual([
      tenant.id,
    ]);
    const again = await cli('tenants', 'suspend', tenant.id, '--yes', '--json');
    expect(again.status).toBe(5);
    expect(again.json().error.code).toBe('INVALID_STATE_TRANSITION');
    expect((await cli('tenants', 'activate', tenant.id, '--json')).json().status).toBe('active');
  });

  test('tokens issue --json gives a token the API accepts', async () => {
    const res = await cli('tokens', 'issue', '--user', sandbox.platformUserId, '--ttl', '1h', '--json');
    expect(res.status).toBe(0);
    const issued = res.json();
    expect(issued).toMatchObject({ userId: sandbox.platformUserId, livemode: false, token: expect.stringMatching(/^ey/) });
    await withApi(async (_rt, app) => {
      const tenants = await request(app).get('/v1/admin/tenants').set('Authorization', `Bearer ${issued.token}`);
      expect(tenants.status).toBe(200);
    });
    const bad = await cli('tokens', 'issue', '--user', sandbox.platformUserId, '--ttl', 'forever', '--json');
    expect(bad.status).toBe(2);
    expect(bad.json().error.errors[0].path).toBe('--ttl');
    // no token outlives PAYPLANE_TOKEN_MAX_LIFETIME_HOURS (24 h by default)
    const long = await cli('tokens', 'issue', '--user', sandbox.platformUserId, '--ttl', '25h', '--json');
    expect(long.status).toBe(2);
    expect(long.json().error).toMatchObject({ code: 'TOKEN_LIFETIME_TOO_LONG', errors: [{ path: '--ttl' }] });
    expect((await cli('tokens', 'issue', '--user', sandbox.platformUserId, '--ttl', '24h', '--json')).status).toBe(0);
  });
});
