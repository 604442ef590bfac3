import request from 'supertest';
import { createApp } from '../../src/http/app';
import { createContractCheck } from '../../src/http/contract';
import { buildOpenApiDocument } from '../../src/http/openapi';
import { defineOperation } from '../../src/api/registry';
import { z } from '../../src/api/zod';
import { operations } from '../../src/api';
import { createSandbox } from '../../src/services/sandbox/provision';
import { createTestRuntime, type TestRuntime } from '../helpers/db';

// Every answer the HTTP tests receive is checked against /v1/openapi.json (test/setup-env.ts turns the check on).
// These tests show that the check does catch an answer that breaks the document, and what it names.

const Thing = z.object({ id: z.string().uuid(), amount: z.number().int(), status: z.enum(['open', 'closed']) });
const probe = (id: string, handler: () => Promise<unknown>) =>
  defineOperation({
    id,
    kind: 'single',
    method: 'get',
    path: `/v1/contract-probes/${id}`,
    levels: ['M', 'T'],
    permission: 'payments:payments:view',
    summary: 'A probe',
    tag: 'Probes',
    response: Thing,
    handler: handler as never,
  });

describe('responses are checked against the OpenAPI document', () => {
  let t: TestRuntime;
  let key: string;
  let app: ReturnType<typeof createApp>;
  const good = { id: '3f1e6c3a-3b8f-4d0e-9a53-1b2f4a5e6d7c', amount: 5, status: 'open' };

  beforeAll(async () => {
    t = await createTestRuntime();
    key = (await createSandbox(t.rt)).tenantKey.secretKey;
    app = createApp(t.rt, {
      operations: [
        probe('good', async () => good),
        probe('wrong-type', async () => ({ ...good, amount: '5' })),
        probe('unknown-enum', async () => ({ ...good, status: 'ajar' })),
        probe('missing-field', async () => ({ id: good.id, status: 'open' })),
        probe('extra-field', async () => ({ ...good, secretHash: 'abc' })),
      ],
    });
  });
  afterAll(() => t?.close());

  const get = (id: string) => request(app).get(`/v1/contract-probes/${id}`).set('Authorization', `Bearer ${key}`);

  test('an answer that matches its schema passes unchanged', async () => {
    const res = await get('good');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: good });
  });

  test.each([
    ['wrong-type', /\/data\/amount must be integer/],
    ['unknown-enum', /\/data\/status must be equal to one of the allowed values/],
    ['missing-field', /\/data must have required property 'amount'/],
    ['extra-field', /\/data must NOT have additional properties \(secretHash\)/],
  ])('an answer with %s becomes a 500 RESPONSE_CONTRACT_VIOLATION naming the field', async (id, message) => {
    const res = await get(id);
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('RESPONSE_CONTRACT_VIOLATION');
    expect(res.body.detail).toMatch(message);
  });

  test('problems of unmatched routes are checked too, and pass', async () => {
    const res = await request(app).get('/v1/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('ROUTE_NOT_FOUND');
  });

  describe('the check itself (createContractCheck)', () => {
    const check = createContractCheck(buildOpenApiDocument(operations, 'test'));
    const payment = { method: 'get', path: '/v1/payments/{id}' };
    const problem = { type: 'about:blank', title: 'Not found', status: 404, detail: 'No payment.', code: 'RESOURCE_NOT_FOUND' };

    test('a status the operation does not declare is a violation', () => {
      expect(check({ operation: payment, status: 201, contentType: 'application/json', body: '{}' })).toEqual([
        expect.stringMatching(/answered 201, which the document does not declare/),
      ]);
    });

    test('a content type the status does not declare is a violation', () => {
      expect(check({ operation: payment, status: 404, contentType: 'text/html; charset=utf-8', body: '<p>no</p>' })).toEqual([
        expect.stringMatching(/Content-Type text\/html; charset=utf-8; the document declares application\/problem\+json/),
      ]);
    });

    test('a problem without its required members is a violation; a complete one passes', () => {
      expect(check({ operation: payment, status: 404, contentType: 'application/problem+json', body: JSON.stringify(problem) })).toEqual(
        [],
      );
      const { code: _code, ...noCode } = problem;
      expect(check({ operation: payment, status: 404, contentType: 'application/problem+json', body: JSON.stringify(noCode) })).toEqual([
        expect.stringMatching(/must have required property 'code'/),
      ]);
    });

    test('a body that is not JSON where JSON is declared is a violation', () => {
      expect(check({ operation: payment, status: 404, contentType: 'application/problem+json', body: 'oops' })).toEqual([
        expect.stringMatching(/not valid JSON/),
      ]);
    });

    test('an operation missing from the document is a violation', () => {
      expect(
        check({ operation: { method: 'get', path: '/v1/nowhere' }, status: 200, contentType: 'application/json', body: '{}' }),
      ).toEqual([expect.stringMatching(/not in the document/)]);
    });
  });
});
