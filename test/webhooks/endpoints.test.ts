import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { emitEvent } from '../../src/services/webhooks/events';

const h = useApiHarness();

const url = 'https://hooks.example.test/payplane';

describe(`webhook endpoints (${dialectName})`, () => {
  test('each level manages its own endpoints; secrets only in create and rotate answers', async () => {
    const m = await h
      .as(h.sandbox.merchantKey.secretKey)
      .post('/v1/webhooks/endpoints', { url, events: ['payment.*'], description: 'orders' });
    expect(m.status).toBe(201);
    expect(m.body.data).toMatchObject({
      level: 'merchant',
      merchantId: h.sandbox.merchantId,
      tenantId: h.sandbox.tenantId,
      livemode: false,
      status: 'enabled',
      maxAttempts: 10,
      events: ['payment.*'],
      description: 'orders',
    });
    expect(m.body.data.secret).toMatch(/^whsec_/);
    const t = await h.as(h.sandbox.tenantKey.secretKey).post('/v1/admin/webhook-endpoints', { url, events: ['*'], maxAttempts: 5 });
    expect(t.body.data).toMatchObject({ level: 'tenant', merchantId: null, tenantId: h.sandbox.tenantId, maxAttempts: 5 });
    const p = await h.as(h.sandbox.platformToken).post('/v1/admin/webhook-endpoints', { url, events: ['*'] });
    expect(p.body.data).toMatchObject({ level: 'platform', tenantId: null, merchantId: null });

    const tenantList = await h.as(h.sandbox.tenantKey.secretKey).get('/v1/admin/webhook-endpoints');
    expect(tenantList.body.data.map((e: { id: string }) => e.id)).toEqual([t.body.data.id]);
    const platformList = await h.as(h.sandbox.platformToken).get('/v1/admin/webhook-endpoints');
    expect(platformList.body.data.map((e: { id: string }) => e.id)).toEqual([p.body.data.id]);
    const merchantList = await h.as(h.sandbox.merchantKey.secretKey).get('/v1/webhooks/endpoints');
    expect(merchantList.body.data.map((e: { id: string }) => e.id)).toEqual([m.body.data.id]);
    for (const list of [tenantList, platformList, merchantList]) expect(JSON.stringify(list.body)).not.toContain('whsec_');

    // another level's endpoint is invisible through these paths
    expectProblem(await h.as(h.sandbox.tenantKey.secretKey).get(`/v1/admin/webhook-endpoints/${m.body.data.id}`), 404);
    expectProblem(await h.as(h.sandbox.merchantKey.secretKey).get(`/v1/webhooks/endpoints/${t.body.data.id}`), 404);
    expectProblem(await h.as(h.sandbox.tenantKey.secretKey).get('/v1/webhooks/endpoints'), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(h.sandbox.merchantKey.secretKey).get('/v1/admin/webhook-endpoints'), 403, 'LEVEL_NOT_ALLOWED');
    const got = await h.as(h.sandbox.tenantKey.secretKey).get(`/v1/admin/webhook-endpoints/${t.body.data.id}`);
    expect(got.body.data.secret).toBeUndefined();

    const other = await createLiveTenantKey(h);
    expectProblem(await h.as(other.secretKey).get(`/v1/admin/webhook-endpoints/${t.body.data.id}`), 404);
    expectProblem(await h.as(other.secretKey).patch(`/v1/admin/webhook-endpoints/${t.body.data.id}`, { description: 'x' }), 404);
    expectProblem(await h.as(other.secretKey).delete(`/v1/admin/webhook-endpoints/${t.body.data.id}`), 404);
  });

  test('update replaces the subscription set; disabling cancels pending deliveries', async () => {
    const key = h.sandbox.tenantKey.secretKey;
    const e = (await h.as(key).post('/v1/admin/webhook-endpoints', { url, events: ['payment.*', 'refund.*'] })).body.data;
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    await h.rt.db.transaction((transaction) => emitEvent({ ...ctx, transaction }, { type: 'payment.created', data: { id: 'p' } }));
    const updated = await h
      .as(key)
      .patch(`/v1/admin/webhook-endpoints/${e.id}`, { events: ['refund.created'], description: 'refunds only' });
    expect(updated.body.data).toMatchObject({ events: ['refund.created'], description: 'refunds only', url });
    const disabled = await h.as(key).patch(`/v1/admin/webhook-endpoints/${e.id}`, { status: 'disabled' });
    expect(disabled.body.data).toMatchObject({ status: 'disabled', disabledReason: 'disabled by request' });
    const deliveries = await h.as(key).get(`/v1/admin/webhook-deliveries?endpoint_id=${e.id}`);
    expect(deliveries.body.data.map((d: { status: string }) => d.status)).toEqual(['canceled']);
    expectProblem(await h.as(key).post(`/v1/admin/webhook-endpoints/${e.id}/rotate-secret`), 409, 'WEBHOOK_ENDPOINT_DISABLED');
    const enabled = await h.as(key).patch(`/v1/admin/webhook-endpoints/${e.id}`, { status: 'enabled' });
    expect(enabled.body.data).toMatchObject({ status: 'enabled', disabledReason: null });
  });

  test('bad endpoints answer 400 naming the field', async () => {
    const key = h.sandbox.merchantKey.secretKey;
    const cases: Array<[object, string, string?]> = [
      [{ url: 'http://hooks.example.test/x', events: ['*'] }, 'body.url'],
      [{ url: 'https://10.0.0.5/x', events: ['*'] }, 'body.url', 'WEBHOOK_URL_NOT_ALLOWED'],
      [{ url: 'https://169.254.169.254/latest', events: ['*'] }, 'body.url', 'WEBHOOK_URL_NOT_ALLOWED'],
      [{ url: 'https://user:pw@hooks.example.test/x', events: ['*'] }, 'body.url'],
      [{ url, events: [] }, 'body.events'],
      [{ url, events: ['payment.nope'] }, 'body.events[0]', 'INVALID_EVENT_SUBSCRIPTION'],
      [{ url, events: ['payment.created', 'PAYMENT.*'] }, 'body.events[1]', 'INVALID_EVENT_SUBSCRIPTION'],
      [{ url, events: ['*'], maxAttempts: 11 }, 'body.maxAttempts'],
      [{ url, events: ['*'], secret: 'whsec_mine' }, 'body.secret'],
      [{ events: ['*'] }, 'body.url'],
    ];
    for (const [body, path, code] of cases) {
      const res = await h.as(key).post('/v1/webhooks/endpoints', body);
      expectProblem(res, 400, code);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expectProblem(
      await h.as(key).post('/v1/webhooks/endpoints/00000000-0000-4000-8000-000000000000/rotate-secret', { graceHours: 1000 }),
      400,
    );
    expectProblem(await h.as(h.sandbox.tenantKey.secretKey).get('/v1/admin/webhook-deliveries?endpoint_id=nope'), 400);
  });

  test('secrets are sealed at rest', async () => {
    const created = (await h.as(h.sandbox.merchantKey.secretKey).post('/v1/webhooks/endpoints', { url, events: ['*'] })).body.data;
    const row = (await h.rt.db.models.WebhookEndpoint.findByPk(created.id))!.get({ plain: true }) as { secretSealed: string };
    expect(row.secretSealed).toMatch(/^v1:/);
    expect(row.secretSealed).not.toContain(created.secret.slice(6));
    expect(h.rt.sealer.open(row.secretSealed)).toBe(created.secret);
    const audit = await h.as(h.sandbox.merchantKey.secretKey).get(`/v1/audit-entries?targetId=${created.id}`);
    expect(audit.body.data[0].action).toBe('webhook_endpoint.created');
    expect(JSON.stringify(audit.body)).not.toContain(created.secret.slice(6));
  });
});
