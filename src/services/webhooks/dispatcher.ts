import os from 'node:os';
import { Op, type Transaction } from 'sequelize';
import type { Runtime } from '../../runtime';
import { systemContext } from '../../domain/authority';
import { withTransaction, type CallerContext } from '../../domain/context';
import type { EventRow, WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../db/models';
import { bindFor, columnsOf, decodeRows, insertRows, selectRows, updateRows } from '../../db/rows';
import { InternalError } from '../../domain/errors';
import { newId } from '../../util/ids';
import { eventEnvelope, emitEvent } from './events';
import { signatureHeader } from './signature';
import { cancelPendingDeliveries, ENDPOINT_STATUS } from './endpoints';
import { DELIVERY_STATUS } from './deliveries';
import { moveChanges, moveRows } from '../status';
import { updateEach } from './bulk-rows';
import { WebhookTransport, type SendResult, type SendTarget, type TransportOptions } from './transport';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Delay before attempt n (index n-1): immediate, +1 min, +5 min, +15 min, +1 h, then every 6 h; 10 at most. */
export const RETRY_DELAYS_MS = [0, MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR, 6 * HOUR, 6 * HOUR, 6 * HOUR, 6 * HOUR, 6 * HOUR];
/** An endpoint whose deliveries keep failing with no success for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * HOUR;
/** How long the endpoints read with a claimed batch are used before they are read again. */
const ENDPOINT_FRESH_MS = 1_000;
/** Outcomes recorded in one transaction at most. */
const OUTCOMES_PER_TRANSACTION = 100;

export interface DispatcherOptions {
  workerId?: string;
  /** deliveries claimed per round */
  batchSize?: number;
  /** deliveries sent at once */
  concurrency?: number;
  /** how long a claim holds; a worker that dies releases its claims when the lease runs out */
  leaseMs?: number;
  pollMs?: number;
  transport?: TransportOptions;
}

export interface Sender {
  /** `to`: the endpoint delivered to (a running local listener's own endpoint may be reached on loopback) */
  post(url: string, headers: Record<string, string>, body: string, to?: SendTarget): Promise<SendResult>;
  close(): void;
}

/** An endpoint as a batch knows it: the record and when its read started (Date.now()). */
interface EndpointEntry {
  row: WebhookEndpointRow | undefined;
  readAt: number;
  /** a read again in progress (the record was older than ENDPOINT_FRESH_MS) */
  reading?: Promise<void>;
}

/** Claimed deliveries with what sending them needs: their endpoints and events, read once for the batch. */
interface Batch {
  deliveries: WebhookDeliveryRow[];
  endpoints: Map<string, EndpointEntry>;
  events: Map<string, EventRow>;
}

interface Item {
  delivery: WebhookDeliveryRow;
  batch: Batch;
}

type OutcomeKind = 'succeeded' | 'retry' | 'failed' | 'canceled';

/** The delivery machine's move that records each kind of outcome. */
const OUTCOME_MOVE = { succeeded: 'succeed', retry: 'reschedule', failed: 'fail', canceled: 'cancel' } as const;

/** An attempt made (or a delivery canceled unsent), waiting to be recorded. */
interface Outcome {
  kind: OutcomeKind;
  delivery: WebhookDeliveryRow;
  /** the batch's record of the endpoint: the rest of the batch sees the changes recorded here */
  endpoint: WebhookEndpointRow | undefined;
  event: EventRow | undefined;
  /** the delivery's new values: its move's status and the rest (the lease columns are cleared besides) */
  changes: Partial<WebhookDeliveryRow> &
    Pick<WebhookDeliveryRow, 'attemptCount' | 'nextAttemptAt' | 'lastAttemptAt' | 'lastError' | 'succeededAt' | 'failedAt' | 'updatedAt'>;
  /** the attempt record; none for a delivery canceled unsent */
  attempt?: WebhookAttemptRow;
  result?: SendResult;
  finishedAt: Date;
  /** resolves once the outcome is recorded, or known lost */
  done: () => void;
}

/** The secrets an endpoint record signs with, opened once per record read rather than once per delivery. */
interface OpenedSecrets {
  current: string;
  previous: string | null;
  previousUntil: number;
}

/**
 * Delivers the outbox: claims due deliveries (several processes never claim the same one), signs and sends
 * each attempt, records it, and schedules the next attempt, the failure, or the success.
 *
 * The work of one delivery is an HTTPS request; what the database does is shared by many: one statement claims a
 * batch and returns its rows, two reads bring the batch's endpoints and events, and the outcomes of the attempts that
 * finish meanwhile are recorded together, in one transaction (their attempt rows in one insert, the deliveries in one
 * update, each guarded by this worker's claim), while the next attempts are on the wire. Running (start()), the next
 * batch is claimed while the current one is sent.
 */
export class Dispatcher {
  readonly workerId: string;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly sender: Sender;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  /** deliveries this worker has claimed and not yet recorded, released or given up: never sent twice at once */
  private readonly holding = new Set<string>();
  /** endpoints this process disabled, when (Date.now()): a batch that read them before still holds them enabled */
  private readonly disabledHere = new Map<string, number>();
  /** outcomes waiting for the transaction that records them */
  private waiting: Outcome[] = [];
  private flushing: Promise<void> | null = null;
  private readonly secrets = new WeakMap<WebhookEndpointRow, OpenedSecrets>();
  /** the system's context the moves of deliveries and endpoints are checked and written in (its transaction set per write) */
  private readonly system: CallerContext;

  constructor(
    private readonly rt: Runtime,
    options: DispatcherOptions = {},
    sender?: Sender,
  ) {
    this.workerId = options.workerId ?? `${os.hostname()}:${process.pid}:${newId().slice(-8)}`;
    this.batchSize = options.batchSize ?? Number(process.env.PAYPLANE_DISPATCH_BATCH ?? 50);
    this.concurrency = options.concurrency ?? Number(process.env.PAYPLANE_DISPATCH_CONCURRENCY ?? 16);
    this.leaseMs = options.leaseMs ?? Number(process.env.PAYPLANE_DISPATCH_LEASE_MS ?? 60_000);
    this.pollMs = options.pollMs ?? Number(process.env.PAYPLANE_DISPATCH_POLL_MS ?? 500);
    this.sender = sender ?? new WebhookTransport(options.transport ?? { allowCidrs: [] });
    this.system = systemContext(rt, false);
  }

  /**
   * Claims what is due, sends it and records every outcome; returns how many deliveries it worked on (a delivery of
   * its own still in flight, claimed again because its lease ran out, is left to the attempt in flight).
   */
  async runOnce(): Promise<number> {
    const batch = await this.claimBatch();
    if (!batch) return 0;
    const queue: Item[] = batch.deliveries.map((delivery) => ({ delivery, batch }));
    await Promise.all(Array.from({ length: Math.min(this.concurrency, queue.length) }, () => this.work(queue)));
    await this.recorded();
    return batch.deliveries.length;
  }

  /**
   * Runs until stop(): claims a batch whenever fewer than two rounds of deliveries wait to be sent (so that the next
   * batch is at hand when the current one is on the wire), sends them `concurrency` at a time, and polls every pollMs
   * when nothing is due.
   */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.pump().catch((error: unknown) => this.rt.logger.error({ err: error }, 'webhook dispatcher stopped unexpectedly'));
  }

  /** Finishes the attempts in flight and records them, gives back the deliveries claimed and not yet sent, then stops. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.sender.close();
  }

  private async pump(): Promise<void> {
    const queue: Item[] = [];
    const workers = new Set<Promise<void>>();
    const lowWater = 2 * this.concurrency;
    const wait = (ms: number | null) =>
      new Promise<void>((resolve) => {
        const timer = ms === null ? undefined : setTimeout(resolve, ms);
        this.wake = () => {
          clearTimeout(timer);
          this.wake = undefined;
          resolve();
        };
      });
    // a worker wakes the pump when the queue runs low
    const taken = () => {
      if (queue.length < lowWater) this.wake?.();
    };
    while (this.running) {
      if (queue.length >= lowWater) {
        await wait(null);
        continue;
      }
      // outcomes not yet recorded hold their claims: let the database catch up before claiming more
      while (this.waiting.length > 4 * this.batchSize && this.flushing) await this.flushing;
      if (!this.running) break;
      let batch: Batch | null = null;
      try {
        batch = await this.claimBatch();
      } catch (error) {
        this.rt.logger.error({ err: error }, 'webhook dispatch round failed');
      }
      if (!batch) {
        if (this.running) await wait(this.pollMs);
        continue;
      }
      if (!this.running) {
        await this.release(batch.deliveries);
        break;
      }
      for (const delivery of batch.deliveries) queue.push({ delivery, batch });
      while (workers.size < this.concurrency && queue.length > workers.size) {
        const worker: Promise<void> = this.work(queue, taken).finally(() => {
          workers.delete(worker);
          taken();
        });
        workers.add(worker);
      }
    }
    // stopping: the claims not yet sent go back at once (not when their lease runs out)
    await this.release(queue.splice(0).map((item) => item.delivery));
    await Promise.all(workers);
    await this.recorded();
  }

  /** Sends the queue's deliveries one after the other (several workers share a queue), handing each outcome to be recorded. */
  private async work(queue: Item[], taken?: () => void): Promise<void> {
    for (let item = queue.shift(); item; item = queue.shift()) {
      taken?.();
      try {
        const outcome = await this.attempt(item);
        // recorded in the background (recorded() waits for it): the next attempt goes out meanwhile
        if (outcome) void this.record(outcome);
        else this.holding.delete(item.delivery.id);
      } catch (error) {
        this.holding.delete(item.delivery.id);
        this.rt.logger.error({ err: error, deliveryId: item.delivery.id }, 'webhook attempt failed unexpectedly');
      }
    }
  }

  // ------------------------------------------------------------------------------------------------------ claiming

  /** One statement claims the batch and returns its rows: Postgres skips rows another worker is claiming; SQLite serializes writers. */
  private async claim(): Promise<WebhookDeliveryRow[]> {
    const { db, clock } = this.rt;
    const model = db.models.WebhookDelivery as never;
    const now = clock.now();
    const at = (date: Date) => bindFor(db, model, 'lockedUntil', date);
    const lock = db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    const sql = `UPDATE webhook_deliveries SET "lockedUntil" = ?, "lockedBy" = ?
      WHERE id IN (SELECT id FROM webhook_deliveries
        WHERE status = 'pending' AND "nextAttemptAt" <= ? AND ("lockedUntil" IS NULL OR "lockedUntil" <= ?)
        ORDER BY "nextAttemptAt" LIMIT ?${lock})
      RETURNING ${columnsOf(db, model)}`;
    const params = [at(new Date(now.getTime() + this.leaseMs)), this.workerId, at(now), at(now), this.batchSize];
    // the one statement is its own transaction (on SQLite on the kept writer, in turn)
    const rows = await db.writeAlone((alone) => db.sql.all<Record<string, unknown>>(sql, params, alone));
    return decodeRows<WebhookDeliveryRow>(db, model, rows).sort((a, b) => a.nextAttemptAt!.getTime() - b.nextAttemptAt!.getTime());
  }

  /** Claims a batch and reads its endpoints and events (two reads); null when nothing is due. */
  private async claimBatch(): Promise<Batch | null> {
    const claimed = await this.claim();
    // a delivery still in flight here whose lease ran out was claimed again: the attempt in flight records it
    const deliveries = claimed.filter((d) => !this.holding.has(d.id));
    for (const d of deliveries) this.holding.add(d.id);
    if (deliveries.length === 0) return claimed.length ? { deliveries, endpoints: new Map(), events: new Map() } : null;
    try {
      const { db } = this.rt;
      const readAt = Date.now();
      const endpointIds = [...new Set(deliveries.map((d) => d.endpointId))];
      const eventIds = [...new Set(deliveries.map((d) => d.eventId))];
      const [endpoints, events] = await Promise.all([
        selectRows<WebhookEndpointRow>(db, db.models.WebhookEndpoint as never, { id: { [Op.in]: endpointIds } }),
        selectRows<EventRow>(db, db.models.Event as never, { id: { [Op.in]: eventIds } }),
      ]);
      const byId = new Map(endpoints.map((e) => [e.id, e]));
      return {
        deliveries,
        endpoints: new Map(endpointIds.map((id) => [id, { row: byId.get(id), readAt }])),
        events: new Map(events.map((e) => [e.id, e])),
      };
    } catch (error) {
      for (const d of deliveries) this.holding.delete(d.id);
      await this.release(deliveries).catch(() => undefined);
      throw error;
    }
  }

  /** Gives claims back (stopping, or the batch could not be read): due again at once for any worker. */
  private async release(deliveries: WebhookDeliveryRow[]): Promise<void> {
    for (const d of deliveries) this.holding.delete(d.id);
    if (!deliveries.length) return;
    const { db } = this.rt;
    try {
      await db.writeAlone((alone) =>
        updateRows(
          db,
          db.models.WebhookDelivery as never,
          { lockedUntil: null, lockedBy: null },
          {
            id: { [Op.in]: deliveries.map((d) => d.id) },
            lockedBy: this.workerId,
          },
          alone,
        ),
      );
    } catch (error) {
      // their leases run out instead
      this.rt.logger.warn({ err: error, deliveries: deliveries.length }, 'webhook claims not given back; their leases will run out');
    }
  }

  /**
   * The endpoint as the batch read it; read again when that was more than ENDPOINT_FRESH_MS ago (an endpoint changed
   * meanwhile, deleted, disabled or given a new URL, must not get the rest of a long batch).
   */
  private async endpointOf(batch: Batch, id: string): Promise<EndpointEntry> {
    let entry = batch.endpoints.get(id);
    if (!entry) {
      entry = { row: undefined, readAt: 0 };
      batch.endpoints.set(id, entry);
    }
    if (Date.now() - entry.readAt > ENDPOINT_FRESH_MS) {
      const current = entry;
      current.reading ??= (async () => {
        const readAt = Date.now();
        const [row] = await selectRows<WebhookEndpointRow>(this.rt.db, this.rt.db.models.WebhookEndpoint as never, { id });
        current.row = row;
        current.readAt = readAt;
      })().finally(() => {
        current.reading = undefined;
      });
      await current.reading;
    }
    return entry;
  }

  // ------------------------------------------------------------------------------------------------------- sending

  private signingSecrets(endpoint: WebhookEndpointRow, at: Date): string[] {
    let opened = this.secrets.get(endpoint);
    if (!opened) {
      const { sealer } = this.rt;
      opened = {
        current: sealer.open(endpoint.secretSealed),
        previous: endpoint.previousSecretSealed && endpoint.previousSecretExpiresAt ? sealer.open(endpoint.previousSecretSealed) : null,
        previousUntil: endpoint.previousSecretExpiresAt ? new Date(endpoint.previousSecretExpiresAt).getTime() : 0,
      };
      this.secrets.set(endpoint, opened);
    }
    return opened.previous && opened.previousUntil > at.getTime() ? [opened.current, opened.previous] : [opened.current];
  }

  /** Sends one attempt (or cancels a delivery whose endpoint is gone); null when the claim is too old to send on. */
  private async attempt({ delivery, batch }: Item): Promise<Outcome | null> {
    const { clock } = this.rt;
    // a claim waiting in the queue past half its lease is not sent: another worker may take it over before the answer
    if (delivery.lockedUntil && delivery.lockedUntil.getTime() - clock.now().getTime() < this.leaseMs / 2) return null;
    const entry = await this.endpointOf(batch, delivery.endpointId);
    const endpoint = entry.row;
    const disabledHere = endpoint ? this.disabledHere.get(endpoint.id) : undefined;
    const event = batch.events.get(delivery.eventId);
    if (!endpoint || endpoint.deletedAt || endpoint.status === 'disabled' || (disabledHere !== undefined && entry.readAt <= disabledHere)) {
      const now = clock.now();
      return {
        kind: 'canceled',
        delivery,
        endpoint,
        event,
        finishedAt: now,
        done: () => undefined,
        changes: {
          ...moveChanges(this.system, DELIVERY_STATUS, delivery, OUTCOME_MOVE.canceled),
          attemptCount: delivery.attemptCount,
          nextAttemptAt: null,
          lastAttemptAt: delivery.lastAttemptAt,
          lastError: 'endpoint disabled or deleted',
          succeededAt: delivery.succeededAt,
          failedAt: delivery.failedAt,
          updatedAt: now,
        },
      };
    }
    if (!event) throw new InternalError(`delivery ${delivery.id}: its event ${delivery.eventId} is missing`);
    const attempt = delivery.attemptCount + 1;
    const startedAt = clock.now();
    const body = JSON.stringify({ events: [eventEnvelope(event, endpoint.level, attempt)] });
    const messageId = `msg_${delivery.id.replace(/-/g, '')}`;
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Payplane-Webhooks/1.0',
      'webhook-id': messageId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(this.signingSecrets(endpoint, startedAt), messageId, timestamp, body),
    };
    // the connection guard (tests): no transaction of the dispatcher is open while the endpoint is waited on
    this.rt.db.assertNoOpenTransaction(`the webhook delivery to endpoint ${endpoint.id}`);
    const result = await this.sender.post(endpoint.url, headers, body, { endpointId: endpoint.id });
    const finishedAt = clock.now();
    const gone = result.statusCode === 410;
    const kind: OutcomeKind = result.ok ? 'succeeded' : !gone && attempt < delivery.maxAttempts ? 'retry' : 'failed';
    return {
      kind,
      delivery,
      endpoint,
      event,
      result,
      finishedAt,
      done: () => undefined,
      changes: {
        ...moveChanges(this.system, DELIVERY_STATUS, delivery, OUTCOME_MOVE[kind]),
        attemptCount: attempt,
        nextAttemptAt: kind === 'retry' ? new Date(startedAt.getTime() + RETRY_DELAYS_MS[attempt]) : null,
        lastAttemptAt: startedAt,
        lastError: result.error,
        succeededAt: kind === 'succeeded' ? finishedAt : delivery.succeededAt,
        failedAt: kind === 'failed' ? finishedAt : delivery.failedAt,
        updatedAt: finishedAt,
      },
      attempt: {
        id: newId(),
        deliveryId: delivery.id,
        attempt,
        workerId: this.workerId,
        startedAt,
        durationMs: result.durationMs,
        statusCode: result.statusCode,
        success: result.ok,
        error: result.error,
        responseExcerpt: result.excerpt || null,
        createdAt: finishedAt,
      },
    };
  }

  // ----------------------------------------------------------------------------------------------------- recording

  /** Queues an outcome for the next recording transaction; resolves once it is recorded (or known lost). */
  private record(outcome: Outcome): Promise<void> {
    return new Promise<void>((resolve) => {
      outcome.done = resolve;
      this.waiting.push(outcome);
      this.flushing ??= this.flush();
    });
  }

  /** Resolves when every outcome handed to the log so far is recorded. */
  private async recorded(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Records what waits, in transactions of up to OUTCOMES_PER_TRANSACTION outcomes, until nothing waits. */
  private async flush(): Promise<void> {
    // the attempts finishing in this turn of the event loop join the first transaction
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.waiting.length) await this.recordAll(this.waiting.splice(0, OUTCOMES_PER_TRANSACTION));
    } finally {
      this.flushing = null;
    }
  }

  /** One transaction for the outcomes; when it fails, each outcome in a transaction of its own (one bad one loses only itself). */
  private async recordAll(outcomes: Outcome[]): Promise<void> {
    try {
      const { held, afterCommit } = await this.rt.db.transaction((transaction) => this.write(outcomes, transaction));
      for (const apply of afterCommit) apply();
      for (const outcome of outcomes) {
        if (held.has(outcome)) this.counted(outcome);
        else
          this.rt.logger.warn(
            { deliveryId: outcome.delivery.id },
            `delivery ${outcome.delivery.id}: claim lost to another worker; outcome not recorded`,
          );
      }
    } catch (error) {
      if (outcomes.length > 1) {
        for (const outcome of outcomes) await this.recordAll([outcome]);
        return;
      }
      this.rt.logger.error({ err: error, deliveryId: outcomes[0].delivery.id }, 'webhook attempt failed unexpectedly');
    }
    for (const outcome of outcomes) {
      this.holding.delete(outcome.delivery.id);
      outcome.done();
    }
  }

  private counted(outcome: Outcome): void {
    this.rt.metrics.webhookAttempts.inc({ outcome: outcome.kind });
    if (outcome.kind === 'succeeded' && outcome.event) {
      this.rt.metrics.webhookDeliveryLag.observe(
        Math.max(0, outcome.finishedAt.getTime() - new Date(outcome.event.createdAt).getTime()) / 1000,
      );
    }
  }

  /**
   * Records outcomes: each delivery's new state in one UPDATE, only while this worker still holds the claim for that
   * attempt (a claim lost to another worker leaves the delivery to that worker, and records nothing of it); the
   * attempt rows of those held in one INSERT; then what the endpoints learn, in the order the attempts finished.
   */
  private async write(outcomes: Outcome[], transaction: Transaction): Promise<{ held: Set<Outcome>; afterCommit: Array<() => void> }> {
    const { db } = this.rt;
    const changed = await updateEach(
      db,
      db.models.WebhookDelivery as never,
      outcomes.map((o) => ({ match: { id: o.delivery.id, attemptCount: o.delivery.attemptCount }, set: { ...o.changes } })),
      { where: { lockedBy: this.workerId }, constants: { lockedUntil: null, lockedBy: null }, transaction },
    );
    const held = new Set(outcomes.filter((o) => changed.has(o.delivery.id)));
    const attempts = [...held].flatMap((o) => (o.attempt ? [o.attempt] : []));
    await insertRows(db, db.models.WebhookAttempt as never, attempts, transaction);

    const afterCommit: Array<() => void> = [];
    const ctx = withTransaction(this.system, transaction);
    // every success touching one endpoint row would serialize busy endpoints: write only what changes, once per endpoint
    const successes = new Map<string, Outcome>();
    const writeSuccess = async (outcome: Outcome) => {
      const endpoint = outcome.endpoint!;
      const success = { lastSuccessAt: outcome.finishedAt, failingSince: null, updatedAt: outcome.finishedAt };
      // a failing endpoint recovers; one that another change moved meanwhile keeps its status and learns the success
      const failing = endpoint.status === 'failing';
      const recovered = failing && (await moveRows(ctx, ENDPOINT_STATUS, 'recover', { id: endpoint.id }, success)) > 0;
      if (!recovered) await updateRows(db, db.models.WebhookEndpoint as never, success, { id: endpoint.id }, transaction);
      afterCommit.push(() => {
        endpoint.lastSuccessAt = outcome.finishedAt;
        endpoint.failingSince = null;
        if (endpoint.status === 'failing') endpoint.status = 'enabled';
      });
    };
    for (const outcome of outcomes) {
      if (!held.has(outcome) || !outcome.endpoint) continue;
      const endpoint = outcome.endpoint;
      if (outcome.kind === 'succeeded') {
        const lastSuccess = endpoint.lastSuccessAt ? new Date(endpoint.lastSuccessAt).getTime() : 0;
        const recent = outcome.finishedAt.getTime() - lastSuccess < MINUTE;
        if (successes.has(endpoint.id) || endpoint.status === 'failing' || endpoint.failingSince || !recent)
          successes.set(endpoint.id, outcome);
      } else if (outcome.kind === 'failed') {
        const success = successes.get(endpoint.id);
        if (success) {
          successes.delete(endpoint.id);
          await writeSuccess(success);
        }
        await this.failed(outcome, transaction, afterCommit);
      }
    }
    for (const success of successes.values()) await writeSuccess(success);
    return { held, afterCommit };
  }

  /**
   * A delivery that failed for good (attempts exhausted, or 410 Gone): the tenant is told, the endpoint is marked
   * failing, or disabled after a 410 or DISABLE_AFTER_MS of failures, its pending deliveries then canceled.
   */
  private async failed(outcome: Outcome, transaction: Transaction, afterCommit: Array<() => void>): Promise<void> {
    const { db } = this.rt;
    const { delivery, finishedAt, result } = outcome;
    const endpoint = outcome.endpoint!;
    const attempt = outcome.changes.attemptCount;
    const ctx = withTransaction(systemContext(this.rt, delivery.livemode), transaction);
    if (!delivery.eventType.startsWith('webhook.') && endpoint.tenantId) {
      await emitEvent(ctx, {
        type: 'webhook.delivery_failed',
        tenantId: endpoint.tenantId,
        merchantId: endpoint.merchantId,
        livemode: delivery.livemode,
        data: {
          deliveryId: delivery.id,
          endpointId: endpoint.id,
          endpointLevel: endpoint.level,
          eventId: delivery.eventId,
          eventType: delivery.eventType,
          attempts: attempt,
          lastError: result?.error ?? null,
          lastStatusCode: result?.statusCode ?? null,
        },
      });
    }
    // read again, locked: a success of another delivery since the batch was read may have ended the failing streak
    const [current] = await selectRows<WebhookEndpointRow>(
      db,
      db.models.WebhookEndpoint as never,
      { id: endpoint.id },
      { transaction, lock: true },
    );
    const since = (current ?? endpoint).failingSince;
    const failingSince = since ? new Date(since) : finishedAt;
    const gone = result?.statusCode === 410;
    const exhaustedTooLong = finishedAt.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS;
    if (gone || exhaustedTooLong) {
      const reason = gone ? 'the receiver answered 410 Gone' : 'every delivery failed for 5 days with no success';
      await moveRows(ctx, ENDPOINT_STATUS, 'give_up', { id: endpoint.id }, { disabledReason: reason, failingSince, updatedAt: finishedAt });
      // the rest of this batch holds the same endpoint record, and batches read before this commit are told here:
      // their deliveries to it are canceled, not sent
      afterCommit.push(() => {
        endpoint.status = 'disabled';
        endpoint.failingSince = failingSince;
        this.noteDisabled(endpoint.id);
      });
      await cancelPendingDeliveries(ctx, endpoint.id);
      if (endpoint.tenantId) {
        await emitEvent(ctx, {
          type: 'webhook.endpoint_disabled',
          tenantId: endpoint.tenantId,
          merchantId: endpoint.merchantId,
          livemode: delivery.livemode,
          data: { endpointId: endpoint.id, endpointLevel: endpoint.level, url: endpoint.url, reason },
        });
      }
    } else {
      const failing = endpoint.level === 'merchant';
      if (failing) await moveRows(ctx, ENDPOINT_STATUS, 'fail', { id: endpoint.id }, { failingSince, updatedAt: finishedAt });
      else {
        await updateRows(db, db.models.WebhookEndpoint as never, { failingSince, updatedAt: finishedAt }, { id: endpoint.id }, transaction);
      }
      afterCommit.push(() => {
        endpoint.failingSince = failingSince;
        if (failing && endpoint.status !== 'disabled') endpoint.status = 'failing';
      });
    }
  }

  private noteDisabled(endpointId: string): void {
    const now = Date.now();
    // a batch's endpoint records are read again after ENDPOINT_FRESH_MS: older notes tell nothing
    for (const [id, at] of this.disabledHere) if (now - at > 60 * ENDPOINT_FRESH_MS) this.disabledHere.delete(id);
    this.disabledHere.set(endpointId, now);
  }
}
