import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from '../api/zod';
import { Pagination, ProblemSchema } from '../api/common';
import type { Operation } from '../api/registry';
import { levelOfCode } from '../domain/level';

function problem(description: string) {
  return { description, content: { 'application/problem+json': { schema: ProblemSchema } } };
}

/** The OpenAPI 3.1 document of every declared operation, derived from the same declarations as the routes. */
export function buildOpenApiDocument(operations: Operation[], version: string): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'A secret API key (sk_live_… / sk_test_…) or a user access token (JWT).',
  });
  registry.registerComponent('securitySchemes', 'checkoutClientSecret', {
    type: 'http',
    scheme: 'bearer',
    description: "A checkout session's clientSecret (cs_…): only that session's update and complete operations accept it.",
  });
  registry.register('Problem', ProblemSchema);
  for (const op of operations) {
    const record = op.response;
    const envelope = op.kind === 'list' ? z.object({ data: z.array(record), pagination: Pagination }) : z.object({ data: record });
    const binary = { type: 'string', format: 'binary' };
    const success =
      op.kind === 'file'
        ? { description: 'The file', content: Object.fromEntries(op.fileTypes.map((t) => [t, { schema: binary }])) }
        : { description: op.kind === 'list' ? 'A page of records' : 'The record', content: { 'application/json': { schema: envelope } } };
    // every status the pipeline can answer with; the contract check of the tests (src/http/contract.ts) holds
    // each answer to this list
    const takesBody = Boolean(op.body || op.upload);
    const responses: Record<string, unknown> = {
      [op.status ?? 200]: success,
      400: problem('Invalid input; `errors` names each field'),
      401: problem('Missing, invalid, revoked or expired credentials'),
      403: problem("The caller's level or permissions do not allow this operation"),
      404: problem(
        op.params
          ? 'Absent or not visible to the caller (the record of the path, or one the request names)'
          : 'A record the request names is absent or not visible to the caller',
      ),
    };
    if (op.method !== 'get') {
      responses[409] = problem('The current state does not allow this, or the Idempotency-Key was reused or is in use');
      responses[422] = problem('A business rule refuses the request (e.g. insufficient balance, a limit, a provider refusal)');
    }
    // any request may carry a body the JSON parser refuses as too large; only one that takes a body is 415
    responses[413] = problem(op.upload ? `The file is larger than ${op.upload.maxBytes} bytes` : 'The request body is larger than 1 MB');
    if (takesBody)
      responses[415] = problem(op.upload ? `Not one of ${op.upload.types.join(', ')}` : 'The request body is not application/json');
    responses[429] = problem('Rate limit reached; Retry-After says when to try again');
    responses[500] = problem('An internal error (never bad input); the Request-Id identifies it');
    responses[503] = problem('A dependency (the database, a provider) is unavailable; retry later');
    const uploadBody = op.upload
      ? {
          required: true,
          content: {
            ...Object.fromEntries(op.upload.types.map((t) => [t, { schema: binary }])),
            'multipart/form-data': { schema: { type: 'object', properties: { file: binary }, required: ['file'] } },
          },
        }
      : undefined;
    const levels = op.levels.map(levelOfCode).join(', ');
    registry.registerPath({
      method: op.method,
      path: op.path,
      operationId: op.id,
      summary: op.summary,
      description: [op.description, `Caller levels: ${levels}. Permission: \`${op.permission}\`.`].filter(Boolean).join('\n\n'),
      tags: [op.tag],
      security: op.sessionSecretAuth ? [{ bearerAuth: [] }, { checkoutClientSecret: [] }] : [{ bearerAuth: [] }],
      'x-payplane-levels': op.levels,
      'x-payplane-permission': op.permission,
      request: {
        params: op.params as never,
        query: op.query as never,
        headers:
          op.method === 'post'
            ? z.object({ 'Idempotency-Key': op.requireIdempotencyKey ? z.string().min(1).max(128) : z.string().min(1).max(128).optional() })
            : undefined,
        body: uploadBody ?? (op.body ? { content: { 'application/json': { schema: op.body } }, required: false } : undefined),
      },
      responses: responses as never,
    } as never);
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Payplane API',
      version,
      description: 'Multi-tenant payment-processing platform. Errors are RFC 9457 problem details with a stable `code`.',
    },
    servers: [{ url: '/' }],
  });
}
