/**
 * The clients of the crash-recovery test: every request goes to whichever `serve` process is current, and a POST is
 * sent again with the same Idempotency-Key and body until it gets a definite answer (2xx, or a 4xx other than the
 * "still in progress" one): after a refused connection while the process is down, a connection cut by SIGKILL, or 409
 * IDEMPOTENCY_KEY_IN_USE while the key is still held by a live request (counted: the tests require that no retry of
 * a key whose process died is told to wait).
 *
 * A server error is not retried blindly: every 5xx and every network error is recorded in `failures` with the time
 * it came, and the test fails on each one whose request was not in flight at a kill (see `crashWindowOf`). A 500 (a
 * defect: INTERNAL_ERROR, RESPONSE_CONTRACT_VIOLATION, or one without a code) is retried only when its request was in
 * flight at a kill; otherwise it is the operation's answer, so that a real bug shows with its body instead of as "gave
 * up before the run stalled", or not at all because a later send succeeded.
 */

export interface Answer {
  status: number;
  replayed: boolean;
  body: any;
}

/** One client operation (one Idempotency-Key) and how it went. */
export interface OpRecord {
  client: string;
  kind: string;
  /** the Idempotency-Key (GETs have none) */
  key: string;
  path: string;
  /** the reference the effect carries (merchantReference of a session or refund, withdrawal id of a move) */
  ref?: string;
  sentAt: number;
  answeredAt?: number;
  status?: number;
  code?: string;
  replayed?: boolean;
  /** sends of the request, the first included */
  sends: number;
  networkErrors: number;
  serverErrors: number;
  inUse: number;
  /** the id of what it created or moved (session, payment, refund, withdrawal) */
  resultId?: string;
}

/** A 5xx answer or a network error (refused, cut, timed out) of one send. */
export interface Failure {
  client: string;
  method: string;
  path: string;
  key?: string;
  /** when the send started and when the 5xx or the error came */
  sentAt: number;
  at: number;
  /** the HTTP status, or 'network' */
  status: number | 'network';
  code?: string;
  /** the answer's body, or the network error's message */
  body: unknown;
  /** sent again after it */
  retried: boolean;
}

/** A process's death: from just before its SIGKILL until its successor answered /readyz (`to` is Infinity until then). */
export interface CrashWindow {
  label: string;
  from: number;
  to: number;
}

export interface Target {
  /** the base URL of the current serve process (changes on every restart) */
  url(): string;
  /** the kills so far (one is listed from the moment before its SIGKILL) */
  windows(): CrashWindow[];
}

/** The kill a send was in flight at: it started before the process came back and ended after the kill began. */
export function crashWindowOf(send: { sentAt: number; at: number }, windows: CrashWindow[]): CrashWindow | undefined {
  return windows.find((w) => send.sentAt <= w.to && send.at >= w.from);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The test's budget, counted in progress instead of time: it runs out only when nothing has moved for a while (no
 * answer to any client, no restart, no row drained), so a loaded machine, slower at everything, still gets to the
 * end, while a hang (a request that never answers, a queue that never drains) still ends the run with its summary.
 * The idle allowance is IDLE_MS, or more when the machine shows itself slower: three times the slowest start of
 * `serve` seen (`observeStart`), the one step in which nothing else can move.
 */
export class Watchdog {
  static readonly IDLE_MS = 60_000;
  private last = Date.now();
  private slowestStartMs = 0;
  /** steps under way that are progress by themselves, however long they take (a restart: bounded by its own limit) */
  private busy = 0;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly what: () => string) {
    this.timer = setInterval(() => {
      if (this.expired())
        this.stop(
          new Error(
            `${this.what()}: nothing moved for ${Math.round((Date.now() - this.last) / 1000)} s (the idle allowance is ${this.idleMs / 1000} s)`,
          ),
        );
    }, 250);
    this.timer.unref();
  }

  get idleMs(): number {
    return Math.max(Watchdog.IDLE_MS, 3 * this.slowestStartMs);
  }

  /** something moved: the whole idle allowance again */
  progress(): void {
    this.last = Date.now();
  }

  /** a `serve` started in `ms` (which is also progress) */
  observeStart(ms: number): void {
    this.slowestStartMs = Math.max(this.slowestStartMs, ms);
    this.progress();
  }

  expired(): boolean {
    return this.controller.signal.aborted || (this.busy === 0 && Date.now() > this.last + this.idleMs);
  }

  /** `work` (a restart of `serve`) does not count as standing still; once done, the whole allowance again */
  async during<T>(work: Promise<T>): Promise<T> {
    this.busy++;
    try {
      return await work;
    } finally {
      this.busy--;
      this.progress();
    }
  }

  /** aborted when the allowance runs out (every send in flight with it), with the reason */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** the reason it ran out */
  get reason(): Error {
    return (this.controller.signal.reason as Error) ?? new Error(`${this.what()}: nothing moved for ${this.idleMs / 1000} s`);
  }

  stop(reason?: Error): void {
    clearInterval(this.timer);
    if (reason && !this.controller.signal.aborted) this.controller.abort(reason);
  }
}

/** Sends to the current process and retries while the run moves (`Watchdog`); every POST is recorded in `log`, every 5xx and network error in `failures`. */
export class CrashClient {
  constructor(
    private readonly target: Target,
    private readonly budget: Watchdog,
    readonly log: OpRecord[],
    readonly failures: Failure[],
  ) {}

  private async once(method: string, pathname: string, credential: string, body: unknown, key: string | undefined): Promise<Response> {
    return fetch(`${this.target.url()}${pathname}`, {
      method,
      headers: {
        Authorization: `Bearer ${credential}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(key ? { 'Idempotency-Key': key } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      // a send waits as long as the run moves (a duplicate of a key held by a live request waits 15 s in the server, more
      // on a loaded machine); when nothing has moved for the idle allowance, it is cut with the rest (a hang fails the run)
      // (a signal of its own that follows the budget's: undici leaves its abort listener on the signal it is given
      // until that signal is collected, and thousands of sends on the one budget signal trip MaxListenersExceededWarning)
      signal: AbortSignal.any([this.budget.signal]),
    });
  }

  /**
   * One send and what to do with it: 'answer' (definite), 'retry' (a network error, a 5xx in flight at a kill, or a
   * 502/503/504), after recording each failure.
   */
  private async send(client: string, method: string, pathname: string, credential: string, body: unknown, key: string | undefined) {
    const sentAt = Date.now();
    let res: Response;
    let parsed: any;
    try {
      res = await this.once(method, pathname, credential, body, key);
      parsed = await res.json().catch(() => null);
      this.budget.progress();
    } catch (error) {
      // refused (the process is down), cut (it died with the request), or timed out: the same request again
      const failure: Failure = {
        client,
        method,
        path: pathname,
        key,
        sentAt,
        at: Date.now(),
        status: 'network',
        body: String((error as Error)?.cause ?? error),
        retried: true,
      };
      this.failures.push(failure);
      return { outcome: 'network' as const };
    }
    if (res.status >= 500) {
      const failure: Failure = {
        client,
        method,
        path: pathname,
        key,
        sentAt,
        at: Date.now(),
        status: res.status,
        code: parsed?.code,
        body: parsed,
        retried: true,
      };
      // a 500 is a defect unless the process died under the request: it is the answer then, not retried
      failure.retried = res.status !== 500 || crashWindowOf(failure, this.target.windows()) !== undefined;
      this.failures.push(failure);
      if (failure.retried) return { outcome: 'server-error' as const };
    }
    return { outcome: 'answer' as const, res, parsed };
  }

  /** GET, retried on network errors and 5xx as above; answers the first 2xx or 4xx (or a 500 that is not retried). */
  async get(pathname: string, credential: string): Promise<Answer> {
    for (;;) {
      this.checkDeadline(`GET ${pathname}`);
      const sent = await this.send('get', 'GET', pathname, credential, undefined, undefined);
      if (sent.outcome !== 'answer' || sent.res.status === 429) {
        await sleep(100);
        continue;
      }
      return { status: sent.res.status, replayed: false, body: sent.parsed };
    }
  }

  /**
   * POST with an Idempotency-Key: the same key and body again until a definite answer. `op` says what it is for the
   * record; the answer is also returned.
   */
  async post(
    client: string,
    kind: string,
    pathname: string,
    credential: string,
    body: unknown,
    key: string,
    ref?: string,
  ): Promise<Answer & { op: OpRecord }> {
    const op: OpRecord = {
      client,
      kind,
      key,
      path: pathname,
      ref,
      sentAt: Date.now(),
      sends: 0,
      networkErrors: 0,
      serverErrors: 0,
      inUse: 0,
    };
    this.log.push(op);
    for (;;) {
      this.checkDeadline(`${kind} ${key}`);
      op.sends++;
      const sent = await this.send(client, 'POST', pathname, credential, body, key);
      if (sent.outcome === 'network') {
        op.networkErrors++;
        await sleep(100);
        continue;
      }
      if (sent.outcome === 'server-error') {
        op.serverErrors++;
        await sleep(100);
        continue;
      }
      const { res, parsed } = sent;
      if (res.status >= 500) op.serverErrors++;
      if (res.status === 409 && parsed?.code === 'IDEMPOTENCY_KEY_IN_USE') {
        // the key is still claimed by a live request: wait and retry (counted in inUse)
        op.inUse++;
        await sleep(100);
        continue;
      }
      if (res.status === 429) {
        await sleep(200);
        continue;
      }
      op.answeredAt = Date.now();
      op.status = res.status;
      op.code = parsed?.code;
      op.replayed = res.headers.get('idempotent-replayed') === 'true';
      op.resultId = res.status < 300 ? parsed?.data?.id : undefined;
      return { status: res.status, replayed: op.replayed, body: parsed, op };
    }
  }

  private checkDeadline(what: string): void {
    if (this.budget.expired())
      throw new Error(`the client gave up on ${what}: no definite answer before the run stalled (${this.budget.reason.message})`);
  }
}

/** A small seeded generator: the same seed, the same choices. */
export { mulberry32 as seeded } from '../../../src/util/random';
