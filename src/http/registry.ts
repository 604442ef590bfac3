import type { CallerContext } from '../domain/context';
import type { Page } from '../db/scoped';
import type { z } from '../api/zod';

export type LevelCode = 'M' | 'T' | 'P';
export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

type AnyObject = z.ZodType<Record<string, unknown>>;
type Inferred<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;

export interface OperationInput<P, Q, B> {
  params: Inferred<P>;
  query: Inferred<Q>;
  body: Inferred<B>;
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
  idempotency?: IdempotencyPolicy;
}

export interface SingleOperation<P, Q, B, R extends z.ZodType> extends OperationBase<P, Q, B, R> {
  kind: 'single';
  handler(ctx: CallerContext, input: OperationInput<P, Q, B>): Promise<z.input<R>>;
}

export interface ListOperation<P, Q, B, R extends z.ZodType> extends OperationBase<P, Q, B, R> {
  kind: 'list';
  handler(ctx: CallerContext, input: OperationInput<P, Q, B>): Promise<Page<z.input<R>>>;
}

export type Operation<P = AnyObject | undefined, Q = AnyObject | undefined, B = z.ZodType | undefined, R extends z.ZodType = z.ZodType> =
  | SingleOperation<P, Q, B, R>
  | ListOperation<P, Q, B, R>;

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
  return op as unknown as Operation;
}
