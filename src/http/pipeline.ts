import type { Request, Response } from 'express';
import type { Runtime } from '../runtime';
import { withRequest, type CallerContext } from '../domain/context';
import { PermissionError, RequestRejectedError, ValidationError } from '../domain/errors';
import { authenticate } from '../services/access/authenticate';
import { authThrottle } from './auth-throttle';
import { levelCode, levelOfCode } from '../domain/level';
import { allows } from '../domain/permissions';
import { runIdempotent } from '../services/idempotency';
import type { Operation } from '../api/registry';
import { viewAt } from '../api/views';
import { parseInputs } from './validation';
import { readUpload, uploadFingerprint } from './upload';

/** Level, permission and credential-kind checks of an operation, straight from its declaration. */
export function authorize(op: Operation, ctx: CallerContext): void {
  if (ctx.credential === 'client_secret' && !op.sessionSecretAuth) {
    throw new PermissionError(
      "A checkout session's clientSecret may only update or complete its own session; use a secret API key (sk_…).",
      'CLIENT_SECRET_NOT_ALLOWED',
    );
  }
  if (!op.levels.includes(levelCode(ctx.level))) {
    throw new PermissionError(
      `This operation is for ${op.levels.map(levelOfCode).join(' or ')} callers; the caller is a ${ctx.level} caller.`,
      'LEVEL_NOT_ALLOWED',
    );
  }
  if (!allows(ctx.permissions, op.permission)) {
    throw new PermissionError(`The caller lacks the permission ${op.permission}.`, 'PERMISSION_DENIED', {
      hint: `Use a key or role that holds ${op.permission}.`,
    });
  }
  if (op.secretKeyOnly && ctx.credential !== 'secret_key') {
    throw new PermissionError('This operation needs a secret API key (sk_…).', 'SECRET_KEY_REQUIRED');
  }
}

/** attachment with an ASCII fallback name and the exact name as RFC 5987 filename* */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** scheme://host[:port] the request came to (the forwarded ones when the proxy is trusted) */
export function requestOrigin(req: Request): string | undefined {
  const host = req.get('host');
  return host ? `${req.protocol}://${host}` : undefined;
}

/** The Express handler of one declared operation: authenticate, authorize, validate, run, answer. */
export function operationHandler(rt: Runtime, op: Operation, rateLimit: (ctx: CallerContext, res: Response) => Promise<void>) {
  return async (req: Request, res: Response): Promise<void> => {
    const requestId = res.locals.requestId as string;
    res.locals.operationId = op.id;
    const credentials = {
      authorization: req.get('authorization'),
      ip: req.ip ?? req.socket.remoteAddress ?? '',
      modeHeader: req.get('payplane-mode'),
      requestId,
    };
    // failed authentications are limited per client address and per key prefix (src/http/auth-throttle.ts)
    const authenticated = await authThrottle(rt).guard(rt, { credential: credentials.authorization, ip: credentials.ip }, () =>
      authenticate(rt, credentials),
    );
    const base = withRequest(authenticated, { origin: requestOrigin(req), clientIp: req.ip ?? req.socket.remoteAddress ?? undefined });
    await rateLimit(base, res);
    authorize(op, base);
    const hasBody = req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;
    if (op.body && req.body === undefined && hasBody) {
      throw new RequestRejectedError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.');
    }
    const input = parseInputs<{ params: never; query: never; body: never }>([
      { location: 'params', schema: op.params, value: req.params },
      { location: 'query', schema: op.query, value: req.query },
      { location: 'body', schema: op.body, value: req.body ?? {} },
    ]);
    let fingerprintBody: unknown = req.body ?? null;
    if (op.upload) {
      const file = await readUpload(req, op.upload);
      (input as { body: unknown }).body = file;
      fingerprintBody = uploadFingerprint(file);
    }

    if (op.kind === 'file') {
      const file = await op.handler(base, input);
      res.status(200).set({
        'Content-Type': file.contentType,
        'Content-Length': String(file.bytes.length),
        'Content-Disposition': contentDisposition(file.filename),
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'private, no-store',
      });
      res.end(file.bytes);
      return;
    }

    // the answer as the caller's level sees it, by the response schema's declaration (src/api/visibility.ts)
    const view = (record: unknown) => viewAt(op.response, record, base.level);
    const render = (result: unknown) => {
      if (op.kind === 'list') {
        const page = result as { data: unknown[]; pagination: unknown };
        return { data: page.data.map(view), pagination: page.pagination };
      }
      return { data: view(result) };
    };
    const status = op.status ?? 200;

    if (op.method === 'get') {
      res.status(status).json(render(await op.handler(base, input)));
      return;
    }
    const key = op.method === 'post' ? req.get('idempotency-key') : undefined;
    if (key === undefined && op.requireIdempotencyKey) {
      throw ValidationError.field(
        'header.Idempotency-Key',
        'is required: send a key of your own (1 to 128 characters) so that a retry cannot move money twice',
        'IDEMPOTENCY_KEY_REQUIRED',
      );
    }
    if (key !== undefined) (input as { idempotencyKey?: string }).idempotencyKey = key;
    // the Idempotency-Key rule (src/services/idempotency.ts); an operation with a replay rule of its own keeps what it says
    const policy = op.idempotency;
    const outcome = await runIdempotent(
      base,
      {
        key,
        keyField: 'header.Idempotency-Key',
        operation: op.id,
        target: req.params,
        input: fingerprintBody,
        ownTransactions: op.ownTransactions,
        anyInput: policy?.anyBody,
        // the answer of a request that committed its effect and died before keeping it, rebuilt from what it committed
        resume: op.kind === 'single' && op.resume ? (ctx) => op.resume!(ctx, input) as Promise<unknown> : undefined,
        keeping: policy && { store: (result: unknown) => policy.store(render(result), base), replay: (stored: unknown) => stored },
        onReleaseFailure: (e) => rt.logger.error({ err: e, requestId }, 'could not release idempotency key'),
      },
      (ctx) => op.handler(ctx, input) as Promise<unknown>,
    );
    if (!outcome.replayed) {
      res.status(status).json(render(outcome.result));
      return;
    }
    res.set('Idempotent-Replayed', 'true');
    const replay = policy ? policy.replay(outcome.replay, base) : { status, body: render(outcome.replay) };
    res.status(replay.status).json(replay.body);
  };
}
