import { useApiHarness, expectProblem } from '../helpers/api';
import { closeRuntime, openRuntime, type Runtime } from '../../src/runtime';
import { operatorContext } from '../../src/services/access/operators';
import { revokeApiKey } from '../../src/services/api-keys/keys';
import { changeTenantStatus } from '../../src/services/tenants/tenants';
import { ReadCache, readCacheTtlMs } from '../../src/db/read-cache';
import { dialectName } from '../helpers/db';

// Authentication keeps API keys and tenant/merchant status for a moment (src/db/read-cache.ts): a change made by this
// process applies at once, one made by another process (here: a second runtime on the same database) within the TTL.

let other: Runtime;
const h = useApiHarness();
beforeAll(async () => {
  other = await openRuntime(h.rt.config, { clock: h.clock, migrate: false, logger: h.rt.logger });
});
h.beforeClose(() => closeRuntime(other));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(`authentication cache (${dialectName})`, () => {
  test('the TTL is at most 2 s whatever PAYPLANE_AUTH_CACHE_MS asks for', () => {
    expect(readCacheTtlMs({})).toBe(1000);
    expect(readCacheTtlMs({ PAYPLANE_AUTH_CACHE_MS: '60000' })).toBe(2000);
    expect(readCacheTtlMs({ PAYPLANE_AUTH_CACHE_MS: '0' })).toBe(0);
    expect(readCacheTtlMs({ PAYPLANE_AUTH_CACHE_MS: 'soon' })).toBe(1000);
  });

  test('an authenticated key is read from the database once, then served from the cache', async () => {
    const key = h.sandbox.merchantKey.secretKey;
    // the first request of the process loads what is loaded on first use (seconds under jest on a busy machine, longer
    // than the TTL); the second reads the key again if its copy ran out meanwhile, and the third is served from the cache
    expect((await h.as(key).get('/v1/payments')).status).toBe(200);
    expect((await h.as(key).get('/v1/payments')).status).toBe(200);
    const statements: string[] = [];
    const hook = (options: { type?: string }, query: { sql?: string }) => statements.push(query?.sql ?? String(options));
    h.rt.db.sequelize.addHook('beforeQuery', 'count', hook as never);
    try {
      expect((await h.as(key).get('/v1/payments')).status).toBe(200);
    } finally {
      h.rt.db.sequelize.removeHook('beforeQuery', 'count');
    }
    expect(statements.filter((s) => /FROM "?(api_keys|tenants|merchants)"?/i.test(s))).toEqual([]);
    expect(statements.length).toBeGreaterThan(0);
  });

  test('a key revoked by another process stops working once the TTL has passed', async () => {
    const created = await h
      .as(h.sandbox.tenantKey.secretKey)
      .post('/v1/api-keys', { ownerType: 'tenant', permissions: ['api-keys:keys:view'] });
    expect(created.status).toBe(201);
    const { id, secretKey } = created.body.data;
    expect((await h.as(secretKey).get('/v1/api-keys')).status).toBe(200);
    await revokeApiKey(operatorContext(other, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false }), id);
    await sleep(readCacheTtlMs() + 200);
    expectProblem(await h.as(secretKey).get('/v1/api-keys'), 401, 'API_KEY_REVOKED');
  });

  test('a tenant suspended by another process is refused once the TTL has passed; reactivated here, at once', async () => {
    const key = h.sandbox.tenantKey.secretKey;
    expect((await h.as(key).get('/v1/api-keys')).status).toBe(200);
    await changeTenantStatus(operatorContext(other, { level: 'platform', tenantId: null, livemode: false }), h.sandbox.tenantId, 'suspend');
    await sleep(readCacheTtlMs() + 200);
    expectProblem(await h.as(key).get('/v1/api-keys'), 403, 'TENANT_SUSPENDED');
    const platform = h.sandbox.platformToken;
    expect((await h.as(platform).post(`/v1/admin/tenants/${h.sandbox.tenantId}/activate`)).status).toBe(200);
    expect((await h.as(key).get('/v1/api-keys')).status).toBe(200);
  });
});

describe('ReadCache', () => {
  test('a read that started before an invalidation does not store its answer', async () => {
    const cache = new ReadCache(60_000);
    let release!: (v: string) => void;
    const slow = cache.read('k', () => new Promise<string>((resolve) => (release = resolve)));
    cache.invalidate();
    release('stale');
    expect(await slow).toBe('stale');
    expect(await cache.read('k', async () => 'fresh')).toBe('fresh');
    expect(await cache.read('k', async () => 'again')).toBe('fresh');
  });

  test('a TTL of 0 caches nothing', async () => {
    const cache = new ReadCache(0);
    expect(await cache.read('k', async () => 1)).toBe(1);
    expect(await cache.read('k', async () => 2)).toBe(2);
  });
});
