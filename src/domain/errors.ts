/**
 * The one domain error type. Services throw a PayplaneError (usually one of the category classes below);
 * the HTTP layer maps it once to problem+json (`toProblem`) and the CLI once to an exit code (`exitCode`).
 */
export interface FieldIssue {
  path: string;
  message: string;
}

export interface PayplaneErrorOptions {
  detail?: string;
  instance?: string;
  errors?: FieldIssue[];
  hint?: string;
  headers?: Record<string, string>;
}

export abstract class PayplaneError extends Error {
  abstract readonly status: number;
  abstract readonly title: string;
  /** Exit code of a CLI command that fails with this error. */
  abstract readonly exitCode: number;
  readonly code: string;
  readonly detail: string;
  readonly instance?: string;
  readonly errors?: FieldIssue[];
  readonly hint?: string;
  readonly headers?: Record<string, string>;

  constructor(code: string, detail: string, options: Omit<PayplaneErrorOptions, 'detail'> = {}) {
    super(detail);
    this.name = new.target.name;
    this.code = code;
    this.detail = detail;
    this.instance = options.instance;
    this.errors = options.errors;
    this.hint = options.hint;
    this.headers = options.headers;
  }
}

/** Raised when input is malformed or fails validation (a body field, a query parameter, a header). */
export class ValidationError extends PayplaneError {
  readonly status = 400;
  readonly title = 'Invalid request';
  readonly exitCode = 2;
  constructor(detail: string, errors: FieldIssue[] = [], code = 'VALIDATION_FAILED', options: Omit<PayplaneErrorOptions, 'errors'> = {}) {
    super(code, detail, { ...options, errors });
  }
  /** A single invalid field. */
  static field(path: string, message: string, code = 'VALIDATION_FAILED'): ValidationError {
    return new ValidationError(`${path}: ${message}`, [{ path, message }], code);
  }
}

/** Raised when credentials are missing, malformed, unknown, revoked or expired. */
export class AuthenticationError extends PayplaneError {
  readonly status = 401;
  readonly title = 'Unauthorized';
  readonly exitCode = 3;
  constructor(detail = 'Missing or invalid credentials.', code = 'UNAUTHENTICATED', options: PayplaneErrorOptions = {}) {
    super(code, detail, { headers: { 'WWW-Authenticate': 'Bearer' }, ...options });
  }
}

/** Raised when the caller's level or permissions do not allow the operation. */
export class PermissionError extends PayplaneError {
  readonly status = 403;
  readonly title = 'Forbidden';
  readonly exitCode = 3;
  constructor(detail: string, code = 'FORBIDDEN', options: PayplaneErrorOptions = {}) {
    super(code, detail, options);
  }
}

/** Raised when a record does not exist or is not visible to the caller (the two are indistinguishable). */
export class NotFoundError extends PayplaneError {
  readonly status = 404;
  readonly title = 'Not found';
  readonly exitCode = 4;
  constructor(resource: string, id?: string, options: PayplaneErrorOptions & { code?: string } = {}) {
    super(options.code ?? 'RESOURCE_NOT_FOUND', options.detail ?? (id ? `No ${resource} with id ${id}.` : `No such ${resource}.`), options);
  }
}

/** Raised when the record's current state does not allow the requested move, or a key is reused. */
export class ConflictError extends PayplaneError {
  readonly status = 409;
  readonly title = 'Conflict';
  readonly exitCode = 5;
  constructor(code: string, detail: string, options: PayplaneErrorOptions = {}) {
    super(code, detail, options);
  }
}

/** Raised when the request is well-formed but a business rule refuses it (insufficient balance, ...). */
export class BusinessRuleError extends PayplaneError {
  readonly status = 422;
  readonly title = 'Unprocessable request';
  readonly exitCode = 6;
  constructor(code: string, detail: string, options: PayplaneErrorOptions = {}) {
    super(code, detail, options);
  }
}

/** Raised when the caller exceeds a rate limit; carries Retry-After. */
export class RateLimitError extends PayplaneError {
  readonly status = 429;
  readonly title = 'Too many requests';
  readonly exitCode = 7;
  constructor(retryAfterSeconds: number, detail = `Rate limit exceeded; retry after ${retryAfterSeconds} s.`, code = 'RATE_LIMITED') {
    super(code, detail, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

/** Raised when the service itself is unavailable (database down, not migrated). */
export class UnavailableError extends PayplaneError {
  readonly status = 503;
  readonly title = 'Service unavailable';
  readonly exitCode = 8;
  constructor(detail: string, code = 'SERVICE_UNAVAILABLE', options: PayplaneErrorOptions = {}) {
    super(code, detail, options);
  }
}

/** Raised when the operator answers no to a confirmation on the terminal: nothing changed (CLI only; never reaches HTTP). */
export class CancelledError extends PayplaneError {
  readonly status = 409;
  readonly title = 'Cancelled';
  readonly exitCode = 9;
  constructor(detail = 'Cancelled: nothing was changed.', code = 'CANCELLED') {
    super(code, detail);
  }
}

/** Raised for a defect: never for bad input. */
export class InternalError extends PayplaneError {
  readonly status = 500;
  readonly title = 'Internal error';
  readonly exitCode = 1;
  constructor(detail = 'An internal error occurred.', code = 'INTERNAL_ERROR') {
    super(code, detail);
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  code: string;
  errors?: FieldIssue[];
  requestId?: string;
}

const PROBLEM_BASE = 'https://payplane.dev/problems/';

export function problemType(code: string): string {
  return PROBLEM_BASE + code.toLowerCase().replace(/_/g, '-');
}

export function toProblem(error: PayplaneError, instance: string, requestId?: string): Problem {
  const problem: Problem = {
    type: problemType(error.code),
    title: error.title,
    status: error.status,
    detail: error.detail,
    instance: error.instance ?? instance,
    code: error.code,
  };
  if (error.errors && error.errors.length > 0) problem.errors = error.errors;
  if (requestId) problem.requestId = requestId;
  return problem;
}

const REJECTED_TITLES: Record<number, string> = {
  405: 'Method not allowed',
  413: 'Payload too large',
  415: 'Unsupported media type',
};

/** Raised when the HTTP request itself cannot be taken: wrong method, body too large, wrong media type. */
export class RequestRejectedError extends PayplaneError {
  readonly title: string;
  readonly exitCode = 2;
  constructor(
    readonly status: 405 | 413 | 415,
    code: string,
    detail: string,
    options: PayplaneErrorOptions = {},
  ) {
    super(code, detail, options);
    this.title = REJECTED_TITLES[status];
  }
}
