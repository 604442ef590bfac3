/**
 * The clients of the crash-recovery test: every request goes to whichever `serve` process is current, and a POST is
 * sent again with the same Idempotency-Key and body until it gets a definite answer (2xx, or a 4xx other than the
 * "still in progress" one), whatever happens in between: a refused connection while the process is down, a
 * connection cut by SIGKILL, a 5xx, or 409 IDEMPOTENCY_KEY_IN_USE while the key is still held by the process that
 * died with it.
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

export interface Target {
  /** the base URL of the current serve process (changes on every restart) */
  url(): string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends to the current process and retries until `deadline`; every POST is recorded in `log`. */
export class CrashClient {
  constructor(
    private readonly target: Target,
    private readonly deadline: number,
    readonly log: OpRecord[],
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
      // a retry of a key held by a dead process waits up to 15 s in the server before it answers 409
      signal: AbortSignal.timeout(40_000),
    });
  }

  /** GET, retried on network errors and 5xx; answers the first 2xx or 4xx. */
  async get(pathname: string, credential: string): Promise<Answer> {
    for (;;) {
      this.checkDeadline(`GET ${pathname}`);
      let res: Response;
      try {
        res = await this.once('GET', pathname, credential, undefined, undefined);
      } catch {
        await sleep(100);
        continue;
      }
      const body = await res.json().catch(() => null);
      if (res.status >= 500 || res.status === 429) {
        await sleep(100);
        continue;
      }
      return { status: res.status, replayed: false, body };
    }
  }

  /**
   * POST with an Idempotency-Key: the same key and body again until a definite answer. `op` says what it is for the
   * record; the answer is also returned.
   */
  async post(client: string, kind: string, pathname: string, credential: string, body: unknown, key: string, ref?: string): Promise<Answer & { op: OpRecord }> {
    const op: OpRecord = { client, kind, key, path: pathname, ref, sentAt: Date.now(), sends: 0, networkErrors: 0, serverErrors: 0, inUse: 0 };
    this.log.push(op);
    for (;;) {
      this.checkDeadline(`${kind} ${key}`);
      op.sends++;
      let res: Response;
      let parsed: any;
      try {
        res = await this.once('POST', pathname, credential, body, key);
        parsed = await res.json().catch(() => null);
      } catch {
        // refused (the process is down) or cut (it died with the request): the same request again
        op.networkErrors++;
        await sleep(100);
        continue;
      }
      if (res.status >= 500) {
        op.serverErrors++;
        await sleep(100);
        continue;
      }
      if (res.status === 409 && parsed?.code === 'IDEMPOTENCY_KEY_IN_USE') {
        // the key is still claimed (by a process that died, until its lock runs out): wait and retry
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
    if (Date.now() > this.deadline) throw new Error(`the client gave up on ${what}: no definite answer before the test's deadline`);
  }
}

/** A small seeded generator (mulberry32): the same seed, the same choices. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
