import crypto from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import type { Runtime } from '../runtime';
import { operations as allOperations } from '../api';
import {
  AuthenticationError,
  InternalError,
  NotFoundError,
  PayplaneError,
  RequestRejectedError,
  UnavailableError,
  ValidationError,
  toProblem,
} from '../domain/errors';
import { operationHandler } from './pipeline';
import { RouteTable } from './routes';
import { authThrottle } from './auth-throttle';
import { buildOpenApiDocument } from './openapi';
import type { Operation } from '../api/registry';
import { VERSION } from '../version';
import { mountPages } from './pages';
import { mountProviderNotifications } from './provider-notifications';
import { tenantRateLimiter } from './rate-limit';
import { safeEqual } from '../util/secrets';
import type { createContractCheck } from './contract';
import { jsonDepthWithin } from '../api/common';

/** how deep a JSON request body may nest: anything that recurses over a body (fingerprints, checks, storage) is safe */
const MAX_BODY_DEPTH = 64;

/** Maps any error once to problem+json. */
function toPayplaneError(error: unknown): PayplaneError {
  if (error instanceof PayplaneError) return error;
  const e = error as { type?: string; status?: number; message?: string };
  switch (e?.type) {
    case 'entity.parse.failed':
      return new ValidationError('The request body is not valid JSON.', [{ path: 'body', message: 'is not valid JSON' }], 'INVALID_JSON');
    case 'entity.too.large':
      return new RequestRejectedError(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than the 1 MB limit.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new RequestRejectedError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the request body as UTF-8 application/json.');
    case 'request.aborted':
      return new ValidationError('The request was aborted by the client.', [], 'REQUEST_ABORTED');
  }
  // a value the column cannot hold (too long, out of range) is the caller's input, not a defect
  const dbCode = (error as { original?: { code?: string } })?.original?.code;
  if (dbCode === '22001' || dbCode === '22003' || dbCode === '22P05' || dbCode === '22021' || dbCode === '22007' || dbCode === '22008') {
    return new ValidationError('A value is too long or out of range.', [], 'VALUE_OUT_OF_RANGE');
  }
  if (e?.status && e.status >= 400 && e.status < 500) {
    return new ValidationError(e.message ?? 'Bad request.', [], 'BAD_REQUEST');
  }
  return new InternalError();
}

/**
 * Checks every /v1 answer against the OpenAPI document before it leaves (src/http/contract.ts); an answer that
 * breaks the contract is replaced by a 500 RESPONSE_CONTRACT_VIOLATION naming what broke, so a test that receives
 * it fails. The operation is the one Express routed the request to (the pipeline names it in res.locals); an answer
 * no operation gave (unknown route, 405, a body the JSON parser refused) must be a problem. The check runs as the
 * answer leaves: a write has committed by then. On under PAYPLANE_VALIDATE_RESPONSES=1 (every test sets it).
 */
function contractEnforcer(rt: Runtime, operations: Operation[], document: () => unknown) {
  const byId = new Map(operations.map((op) => [op.id, op]));
  let check: ReturnType<typeof createContractCheck> | undefined;
  return (req: Request, res: Response, next: NextFunction) => {
    if (!/^\/v1\//i.test(req.path) || req.path === '/v1/openapi.json' || req.method === 'HEAD') return next();
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      // loaded on the first answer checked: Ajv and the compiled document are for the tests, not for production
      check ??= (require('./contract') as typeof import('./contract')).createContractCheck(document());
      const op = byId.get(res.locals.operationId as string);
      const encoding = typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : 'utf8';
      const body = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.isBuffer(chunk) ? chunk : undefined;
      // an answer already streamed (res.write before end) can no longer be replaced: its status and type are checked
      const streamed = res.headersSent;
      const violations = check({
        operation: op && { method: op.method, path: op.path },
        status: res.statusCode,
        contentType: res.get('content-type'),
        body: streamed ? undefined : body,
        bodyless: streamed,
      });
      if (!violations.length) return end(chunk, ...rest);
      const what = `${req.method} ${req.path} ${res.statusCode}`;
      // the violations only: the answer may hold a secret shown once (a key's create or rotate)
      rt.logger.error({ requestId: res.locals.requestId, violations }, 'response breaks the OpenAPI document');
      if (streamed) {
        res.destroy(new Error(`response breaks the OpenAPI document: ${violations.join('; ')}`));
        return res;
      }
      const problem = toProblem(
        new InternalError(`The answer of ${what} breaks /v1/openapi.json: ${violations.join('; ')}`, 'RESPONSE_CONTRACT_VIOLATION'),
        req.path,
        res.locals.requestId,
      );
      const replacement = Buffer.from(JSON.stringify(problem));
      res.statusCode = 500;
      res.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
      res.setHeader('Content-Length', String(replacement.length));
      return end(replacement);
    }) as typeof res.end;
    next();
  };
}

export interface AppOptions {
  operations?: Operation[];
}

/** The /v1 API with health checks and the OpenAPI document. */
export function createApp(rt: Runtime, options: AppOptions = {}): express.Express {
  const operations = options.operations ?? allOperations;
  const app = express();
  app.disable('x-powered-by');
  // no ETag / 304 on the API: answers are per caller and current, and a conditional GET is not part of the contract
  app.set('etag', false);
  app.set('trust proxy', rt.config.trustProxy);
  app.set('query parser', 'simple');
  // security headers on every answer (helmet): a JSON API loads nothing, so its policy allows nothing; the hosted
  // pages set their own Content-Security-Policy
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], baseUri: ["'none'"], frameAncestors: ["'none'"] },
      },
      referrerPolicy: { policy: 'no-referrer' },
    }),
  );

  app.use((req: Request, res: Response, next: NextFunction) => {
    const requestId = `req_${crypto.randomUUID().replace(/-/g, '')}`;
    res.locals.requestId = requestId;
    res.set('Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // an operation of the registry, else a fixed label: unknown paths must not grow the label set
      const operation = (res.locals.operationId as string | undefined) ?? (req.path.startsWith('/v1/') ? 'unmatched' : 'other');
      rt.metrics.httpRequests.inc({ operation, method: req.method, status: String(res.statusCode) });
      rt.metrics.httpDuration.observe({ operation }, ms / 1000);
      // a capability in the path (the sandbox 3DS page's token) is not logged
      const path = req.path.replace(/^\/sandbox\/3ds\/[^/]+/i, '/sandbox/3ds/[token]');
      rt.logger.info({ requestId, operation, method: req.method, path, status: res.statusCode, ms }, 'request');
    });
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await rt.db.ping();
      const { pending } = await rt.db.migrationStatus();
      if (pending.length) throw new UnavailableError(`Pending migrations: ${pending.join(', ')}.`, 'MIGRATIONS_PENDING');
      res.json({ status: 'ready', database: rt.db.dialect });
    } catch (error) {
      throw error instanceof PayplaneError ? error : new UnavailableError('The database is not reachable.', 'DATABASE_UNAVAILABLE');
    }
  });

  // Prometheus metrics; with PAYPLANE_METRICS_TOKEN set, only for `Authorization: Bearer <that token>`, its wrong
  // guesses limited by the failed-authentication throttle as the API's credentials are (src/http/auth-throttle.ts)
  app.get('/metrics', async (req, res) => {
    const token = rt.config.metricsToken;
    if (token) {
      const authorization = req.get('authorization');
      await authThrottle(rt).guard(rt, { credential: authorization, ip: req.ip ?? req.socket.remoteAddress ?? '' }, async () => {
        if (!safeEqual(authorization ?? '', `Bearer ${token}`)) {
          throw new AuthenticationError('Send Authorization: Bearer <PAYPLANE_METRICS_TOKEN>.', 'INVALID_CREDENTIALS');
        }
      });
    }
    res.type(rt.metrics.registry.contentType).send(await rt.metrics.registry.metrics());
  });

  let openapi: unknown;
  const document = () => (openapi ??= buildOpenApiDocument(operations, VERSION));
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(document());
  });

  mountPages(app, rt);
  // an acquirer's notifications: outside the registry (no API key: the acquirer's signature over the raw body, read
  // before the /v1 JSON parser), and outside the contract check of registry operations (the acquirer's own answer)
  mountProviderNotifications(app, rt);

  if (process.env.PAYPLANE_VALIDATE_RESPONSES === '1') app.use(contractEnforcer(rt, operations, document));

  app.use('/v1', express.json({ limit: '1mb', strict: true, type: ['application/json', 'application/*+json'] }));
  app.use('/v1', (req: Request, _res: Response, next: NextFunction) => {
    if (req.body !== undefined && !jsonDepthWithin(req.body, MAX_BODY_DEPTH)) {
      throw ValidationError.field('body', `is nested more than ${MAX_BODY_DEPTH} levels deep`, 'BODY_TOO_DEEP');
    }
    next();
  });
  // every /v1 operation of the registry, found in one lookup (src/http/routes.ts)
  const rateLimit = tenantRateLimiter(rt);
  const routes = new RouteTable(operations);
  const handlers = new Map(operations.map((op) => [op, operationHandler(rt, op, rateLimit)]));
  app.use((req: Request, res: Response, next: NextFunction) => {
    const found = routes.find(req.method, req.path);
    if (!found) return next();
    req.params = found.params;
    return handlers.get(found.op)!(req, res);
  });

  app.use((req: Request) => {
    const allowed = routes.allowed(req.path);
    if (allowed.length) {
      throw new RequestRejectedError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}.`, {
        headers: { Allow: allowed.join(', ') },
      });
    }
    throw new NotFoundError('route', undefined, {
      code: 'ROUTE_NOT_FOUND',
      detail: `No route ${req.method} ${req.path}.`,
      hint: 'See /v1/openapi.json for the operations.',
    });
  });

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const mapped = toPayplaneError(error);
    if (mapped.status >= 500) rt.logger.error({ err: error, requestId: res.locals.requestId }, 'request failed');
    const problem = toProblem(mapped, req.originalUrl.split('?')[0], res.locals.requestId);
    for (const [name, value] of Object.entries(mapped.headers ?? {})) res.set(name, value);
    res.status(mapped.status).type('application/problem+json').send(JSON.stringify(problem));
  });
  return app;
}
