import { createTestRuntime, dialectName, onPostgres, type TestRuntime } from '../helpers/db';
import { useApiHarness, expectProblem } from '../helpers/api';
import { SESSION_RATE_LIMIT_PER_MINUTE } from '../../src/http/rate-limit';
import { startServe, stopAllServes, type ServeProcess } from '../helpers/serve';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';

// The per-tenant request rate limit (doorRateLimitPerMinute, a fixed window of 60 s): 429 problem+json with
// Retry-After and the RateLimit headers once a tenant used its limit; other tenants keep theirs. On Postgres the
// counters are shared by every `serve` process on the database; on SQLite they live in the one process.

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function get(server: ServeProcess, credential: string, pathname = '/v1/api-keys'): Promise<Answer> {
  const res = await server.request(pathname, { credential });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** The RateLimit headers every limited answer carries. */
function expectRateLimitHeaders(headers: Headers, limit: number): { remaining: number; reset: number } {
  expect(headers.get('ratelimit-limit')).toBe(String(limit));
  expect(headers.get('ratelimit-policy')).toBe(`${limit};w=60`);
  const remaining = Number(headers.get('ratelimit-remaining'));
  const reset = Number(headers.get('ratelimit-reset'));
  expect(Number.isInteger(remaining) && remaining >= 0 && remaining < limit).toBe(true);
  expect(Number.isInteger(reset) && reset >= 1 && reset <= 60).toBe(true);
  return { remaining, reset };
}

function expectRateLimited(answer: Answer, limit: number): void {
  if (answer.status !== 429) throw new Error(`expected 429, got ${answer.status}: ${JSON.stringify(answer.body)}`);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(answer.body).toMatchObject({
    status: 429,
    code: 'RATE_LIMITED',
    type: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
  });
  const { remaining, reset } = expectRateLimitHeaders(answer.headers, limit);
  expect(remaining).toBe(0);
  const retryAfter = Number(answer.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
  expect(retryAfter).toBe(reset);
}

const describePostgres = onPostgres ? describe : describe.skip;

describePostgres('the rate limit across two serve processes (postgres)', () => {
  let t: TestRuntime;
  let limited: SandboxCredentials;
  let other: SandboxCredentials;
  let servers: ServeProcess[];

  beforeAll(async () => {
    t = await createTestRuntime();
    limited = await createSandbox(t.rt, { name: 'Limited tenant' });
    other = await createSandbox(t.rt, { name: 'Unlimited tenant' });
    await t.rt.db.models.Tenant.update({ doorRateLimitPerMinute: 20 }, { where: { id: limited.tenantId } });
    await t.rt.db.models.Tenant.update({ doorRateLimitPerMinute: 10_000 }, { where: { id: other.tenantId } });
    servers = await Promise.all([
      startServe(t.db, {}, ['--no-jobs', '--no-dispatch']),
      startServe(t.db, {}, ['--no-jobs', '--no-dispatch']),
    ]);
  }, 120_000);
  afterAll(async () => {
    await stopAllServes();
    await t.close();
  }, 60_000);

  test('a tenant over its limit gets 429 on both processes within the same minute; another tenant is unaffected', async () => {
    // 40 requests of the limited tenant at once, 20 to each process: the processes count together
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => get(servers[i % 2], limited.tenantKey.secretKey)));
    const ok = burst.filter((a) => a.status === 200);
    const refused = burst.filter((a) => a.status !== 200);
    expect(ok).toHaveLength(20);
    expect(refused).toHaveLength(20);
    // every success took one of the 20 points: each remaining count from 19 down to 0 answered once
    expect(ok.map((a) => expectRateLimitHeaders(a.headers, 20).remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    for (const answer of refused) expectRateLimited(answer, 20);

    // meanwhile (the same minute) both processes refuse the limited tenant and serve the other one
    for (const server of servers) {
      expectRateLimited(await get(server, limited.tenantKey.secretKey), 20);
      expectRateLimited(await get(server, limited.merchantKey.secretKey), 20);
    }
    const others: Answer[] = [];
    for (let i = 0; i < 10; i++) others.push(await get(servers[i % 2], i % 3 ? other.tenantKey.secretKey : other.merchantKey.secretKey));
    for (const answer of others) expect(answer.status).toBe(200);
    expect(others.map((a) => expectRateLimitHeaders(a.headers, 10_000).remaining)).toEqual(
      Array.from({ length: 10 }, (_, i) => 10_000 - 1 - i),
    );
    // the platform is not limited by a tenant's limit
    const platform = await get(servers[0], limited.platformToken, `/v1/admin/tenants/${limited.tenantId}`);
    expect(platform.status).toBe(200);
    expect(platform.headers.get('ratelimit-limit')).toBeNull();
    // and still refused on both after the other tenant's traffic
    for (const server of servers) expectRateLimited(await get(server, limited.tenantKey.secretKey), 20);
  }, 60_000);
});

describe(`the rate limit in one process (${dialectName})`, () => {
  let other: SandboxCredentials;

  const h = useApiHarness();
  beforeAll(async () => {
    other = await createSandbox(h.rt, { name: 'Other tenant' });
  });

  const setLimit = async (tenantId: string, doorRateLimitPerMinute: number) => {
    const res = await h.as(h.sandbox.platformToken).patch(`/v1/admin/tenants/${tenantId}`, { doorRateLimitPerMinute });
    expect(res.status).toBe(200);
    expect(res.body.data.doorRateLimitPerMinute).toBe(doorRateLimitPerMinute);
  };

  test('429 after the limit, the other tenant unaffected, a changed limit applies at once', async () => {
    await setLimit(h.sandbox.tenantId, 5);
    const tenantKey = h.as(h.sandbox.tenantKey.secretKey);
    for (let i = 0; i < 5; i++) {
      const res = await (i % 2 ? h.as(h.sandbox.merchantKey.secretKey) : tenantKey).get('/v1/api-keys');
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('5');
      expect(res.headers['ratelimit-remaining']).toBe(String(4 - i));
      expect(res.headers['ratelimit-policy']).toBe('5;w=60');
      expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    }
    const refused = await tenantKey.get('/v1/api-keys');
    expectProblem(refused, 429, 'RATE_LIMITED');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    // a write is refused as well, before it does anything
    expectProblem(await tenantKey.post('/v1/api-keys', { ownerType: 'tenant' }), 429, 'RATE_LIMITED');

    // the other tenant keeps its own (default) limit
    const others = await h.as(other.tenantKey.secretKey).get('/v1/api-keys');
    expect(others.status).toBe(200);
    expect(others.headers['ratelimit-limit']).toBe('600');
    expect(others.headers['ratelimit-remaining']).toBe('599');

    // a raised limit applies to the running window at once
    await setLimit(h.sandbox.tenantId, 1_000);
    const raised = await tenantKey.get('/v1/api-keys');
    expect(raised.status).toBe(200);
    expect(raised.headers['ratelimit-limit']).toBe('1000');
    const remaining = Number(raised.headers['ratelimit-remaining']);
    expect(remaining).toBeLessThan(1_000 - 5); // the window's earlier requests still count
    expect(remaining).toBeGreaterThan(900);
    // and a lowered one too
    await setLimit(h.sandbox.tenantId, 3);
    const lowered = await tenantKey.get('/v1/api-keys');
    expectProblem(lowered, 429, 'RATE_LIMITED');
    expect(lowered.headers['ratelimit-limit']).toBe('3');
    // the other tenant is still served
    expect((await h.as(other.merchantKey.secretKey).get('/v1/api-keys')).status).toBe(200);
  });

  test("a checkout session's clientSecret has a counter of its own: a customer cannot use up the tenant's limit", async () => {
    await setLimit(other.tenantId, 10);
    const created = await h
      .as(other.merchantKey.secretKey)
      .post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 1000 } });
    expect(created.status).toBe(201);
    const { id, clientSecret } = created.body.data;
    const customer = h.as(clientSecret);
    for (let i = 0; i < SESSION_RATE_LIMIT_PER_MINUTE; i++) {
      const res = await customer.patch(`/v1/checkout-sessions/${id}`, { customerInfo: { name: `Step ${i}` } });
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe(String(SESSION_RATE_LIMIT_PER_MINUTE));
    }
    const refused = await customer.patch(`/v1/checkout-sessions/${id}`, { customerInfo: { name: 'One too many' } });
    expectProblem(refused, 429, 'RATE_LIMITED');
    expect(refused.body.detail).toMatch(/checkout session/);
    // the tenant's own window took none of the customer's requests
    const merchant = await h.as(other.merchantKey.secretKey).get(`/v1/checkout-sessions/${id}`);
    expect(merchant.status).toBe(200);
    expect(merchant.headers['ratelimit-limit']).toBe('10');
    expect(Number(merchant.headers['ratelimit-remaining'])).toBe(Number(created.headers['ratelimit-remaining']) - 1);
  });
});
