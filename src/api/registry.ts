import type { CallerContext } from '../domain/context';
import type { LevelCode } from '../domain/level';
import type { Page } from '../db/scoped';
import type { z } from './zod';
import { checkReferences } from '../services/references';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

type AnyObject = z.ZodType<Record<string, unknown>>;
type Inferred<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;

export interface OperationInput<P, Q, B> {
  params: Inferred<P>;
  query: Inferred<Q>;
  body: Inferred<B>;
  /** the request's Idempotency-Key header (POST only), already checked for length */
  idempotencyKey?: string;
}

/** What a replayed Idempotency-Key answers, for operations with a replay rule of their own. */
export interface IdempotencyPolicy {
  /** a reused key answers with replay() whatever the body (the specification's rule for issuing API keys) */
  anyBody?: boolean;
  /** what is kept of the first response (never a secret in plain text: seal it with ctx.sealer) */
  store(body: unknown, ctx: CallerContext): unknown;
  /** turn the stored value into the replay's answer; throw a PayplaneError to answer with an error */
  replay(stored: unknown, ctx: CallerContext): { status: number; body: unknown };
}

/** A binary upload: the raw body (Content-Type one of `types`) or the first file of a multipart/form-data body. */
export interface UploadSpec {
  maxBytes: number;
  types: string[];
}

/** What an upload operation's handler receives as its body. */
export interface UploadedFile {
  contentType: string;
  filename: string | null;
  bytes: Buffer;
}

/** What a download operation's handler returns. */
export interface FileResult {
  contentType: string;
  filename: string;
  bytes: Buffer;
}

interface OperationBase<P, Q, B, R extends z.ZodType> {
  /** operationId of the OpenAPI document */
  id: string;
  method: HttpMethod;
  /** the path exactly as operations.md writes it, e.g. /v1/api-keys/{id} */
  path: string;
  levels: LevelCode[];
  permission: string;
  summary: string;
  description?: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  /** the record schema; the envelope is added from `kind` */
  response: R;
  /** HTTP status of success: 201 for creates, 200 otherwise */
  status?: 200 | 201;
  /** only a secret-key caller (sk_…) may call this operation */
  secretKeyOnly?: boolean;
  /**
   * Besides M/T keys and tokens, a checkout session's clientSecret is accepted as bearer (the customer's page and
   * agentic flows); such a caller reaches only its own session ({id} of the path), any other is 404.
   */
  sessionSecretAuth?: boolean;
  idempotency?: IdempotencyPolicy;
  /** the body is a file, not JSON: the handler's body is an UploadedFile */
  upload?: UploadSpec;
  /**
   * The handler opens its own transactions (it calls a provider between two of them, never inside one); the
   * idempotent answer is recorded once the handler has returned. Such an operation declares `resume`.
   */
  ownTransactions?: boolean;
  /** a POST that must carry an Idempotency-Key (400 IDEMPOTENCY_KEY_REQUIRED without one): money leaves with it */
  requireIdempotencyKey?: boolean;
}

export interface SingleOperation<P, Q, B, R extends z.ZodType> extends OperationBase<P, Q, B, R> {
  kind: 'single';
  handler(ctx: CallerContext, input: OperationInput<P, Q, B>): Promise<z.input<R>>;
  /**
   * With ownTransactions: the answer rebuilt from what the operation committed, read again with nothing redone. A
   * retry under the Idempotency-Key of a request that committed the effect (its intent: src/services/idempotency.ts
   * keyedEffect) and then died, or failed with a defect, before its answer was kept gets this answer (runIdempotent).
   */
  resume?(ctx: CallerContext, input: OperationInput<P, Q, B>): Promise<z.input<R>>;
}

export interface ListOperation<P, Q, B, R extends z.ZodType> extends OperationBase<P, Q, B, R> {
  kind: 'list';
  handler(ctx: CallerContext, input: OperationInput<P, Q, B>): Promise<Page<z.input<R>>>;
}

/** Answers with the bytes of a file (Content-Type and Content-Disposition set); `response` describes its metadata. */
export interface FileOperation<P, Q, B, R extends z.ZodType> extends OperationBase<P, Q, B, R> {
  kind: 'file';
  /** the content types the file may have, for the OpenAPI document */
  fileTypes: string[];
  handler(ctx: CallerContext, input: OperationInput<P, Q, B>): Promise<FileResult>;
}

export type Operation<P = AnyObject | undefined, Q = AnyObject | undefined, B = z.ZodType | undefined, R extends z.ZodType = z.ZodType> =
  SingleOperation<P, Q, B, R> | ListOperation<P, Q, B, R> | FileOperation<P, Q, B, R>;

/**
 * Declares one operation: method, path, levels, permission, schemas and handler, written once. Routing,
 * validation, permission checks and /v1/openapi.json are all derived from these declarations.
 */
export function defineOperation<
  R extends z.ZodType,
  P extends AnyObject | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(op: Operation<P, Q, B, R>): Operation {
  const declared = op as unknown as Operation;
  const handler = declared.handler as (ctx: CallerContext, input: OperationInput<unknown, unknown, unknown>) => Promise<never>;
  // every id of the body and query is looked up in the caller's scope first (src/api/references.ts): 404 naming the field
  return {
    ...declared,
    handler: async (ctx: CallerContext, input: OperationInput<unknown, unknown, unknown>) => {
      await checkReferences(ctx, declared, input);
      return handler(ctx, input);
    },
  } as Operation;
}
