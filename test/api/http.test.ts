import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import request from 'supertest';
import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operations } from '../../src/api';

const h = useApiHarness();

describe(`HTTP conventions (${dialectName})`, () => {
  test('every response carries Request-Id, errors included', async () => {
    const ok = await h.as(h.sandbox.tenantKey.secretKey).get('/v1/api-keys');
    const denied = await request(h.app).get('/v1/api-keys');
    const missing = await request(h.app).get('/v1/nothing-here');
    const health = await request(h.app).get('/healthz');
    for (const res of [ok, denied, missing, health]) expect(res.headers['request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    expect(denied.body.requestId).toBe(denied.headers['request-id']);
    expect(new Set([ok, denied, missing, health].map((r) => r.headers['request-id'])).size).toBe(4);
  });

  test('unknown routes are 404 and known paths with another method 405, as problem+json', async () => {
    expectProblem(await request(h.app).get('/v1/nothing-here'), 404, 'ROUTE_NOT_FOUND');
    const res = await request(h.app).put('/v1/api-keys');
    expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toBe('GET, POST');
  });

  test('security headers on every answer (helmet); the hosted pages keep their own policy', async () => {
    const ok = await h.as(h.sandbox.tenantKey.secretKey).get('/v1/api-keys');
    const problem = await request(h.app).get('/v1/api-keys');
    for (const res of [ok, problem]) {
      expect(res.headers['content-security-policy']).toBe("default-src 'none';base-uri 'none';frame-ancestors 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
    const created = await h
      .as(h.sandbox.merchantKey.secretKey)
      .post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 1000 } });
    const url = new URL(created.body.data.url);
    const page = await request(h.app).get(url.pathname + url.search);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/style-src 'unsafe-inline'/);
    expect(page.headers['x-frame-options']).toBe('DENY');
  });

  test('a JSON body over 1 MB is 413 and a body that is not JSON 415, as problem+json', async () => {
    const key = h.sandbox.tenantKey.secretKey;
    const huge = JSON.stringify({ name: 'x'.repeat(1_100_000), ownerType: 'tenant' });
    const tooLarge = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/json')
      .send(huge);
    expectProblem(tooLarge, 413, 'PAYLOAD_TOO_LARGE');
    const notJson = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'text/plain')
      .send('ownerType=tenant');
    expectProblem(notJson, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('health and readiness', async () => {
    expect((await request(h.app).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(h.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', database: dialectName });
  });

  test('/v1/openapi.json is a valid OpenAPI 3.1 document of every registered operation', async () => {
    const res = await request(h.app).get('/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    for (const op of operations) {
      const entry = doc.paths[op.path]?.[op.method];
      expect(entry).toBeDefined();
      expect(entry).toMatchObject({ operationId: op.id, 'x-payplane-permission': op.permission, 'x-payplane-levels': op.levels });
    }
    const count = Object.values(doc.paths as Record<string, object>).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(count).toBe(operations.length);
    // an independent validator, run as its own process (it is an ES module)
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-')), 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    const cli = path.join(__dirname, '../../node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
    const out = JSON.parse(execFileSync(process.execPath, [cli, file], { encoding: 'utf8' }));
    expect(out).toEqual({ valid: true });
  });

  test('operation ids and method+path pairs are unique', () => {
    expect(new Set(operations.map((o) => o.id)).size).toBe(operations.length);
    expect(new Set(operations.map((o) => `${o.method} ${o.path}`)).size).toBe(operations.length);
  });
});
