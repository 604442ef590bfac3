import os from 'node:os';
import { Op, QueryTypes } from 'sequelize';
import type { Runtime } from '../../runtime';
import { systemContext } from '../../domain/authority';
import { withTransaction } from '../../domain/context';
import type { EventRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../db/models';
import { newId } from '../../util/ids';
import { eventEnvelope, emitEvent } from './events';
import { signatureHeader } from './signature';
import { signingSecrets, cancelPendingDeliveries } from './endpoints';
import { WebhookTransport, type SendResult, type SendTarget, type TransportOptions } from './transport';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Delay before attempt n (index n-1): immediate, +1 min, +5 min, +15 min, +1 h, then every 6 h; 10 at most. */
export const RETRY_DELAYS_MS = [0, MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR, 6 * HOUR, 6 * HOUR, 6 * HOUR, 6 * HOUR, 6 * HOUR];
/** An endpoint whose deliveries keep failing with no success for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * HOUR;
/** How long the endpoints read with a claimed batch are used before they are read again. */
const ENDPOINT_FRESH_MS = 1_000;

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

/**
 * Delivers the outbox: claims due deliveries (several processes never claim the same one), signs and sends
 * each attempt, records it, and schedules the next attempt, the failure, or the success.
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
  }

  /** Claims what is due and sends it; returns how many deliveries were attempted. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim();
    if (claimed.length === 0) return 0;
    // the batch's endpoints and events in two reads, not two per delivery
    const { WebhookEndpoint, Event } = this.rt.db.models;
    const [endpoints, events] = await Promise.all([
      WebhookEndpoint.findAll({ where: { id: { [Op.in]: [...new Set(claimed.map((d) => d.endpointId))] } } }),
      Event.findAll({ where: { id: { [Op.in]: [...new Set(claimed.map((d) => d.eventId))] } } }),
    ]);
    const endpointById = new Map(endpoints.map((e) => [e.get('id') as string, e.get({ plain: true }) as WebhookEndpointRow]));
    const eventById = new Map(events.map((e) => [e.get('id') as string, e.get({ plain: true }) as EventRow]));
    const loadedAt = Date.now();
    // an endpoint changed meanwhile (deleted, disabled, a new URL) must not get the rest of a long batch
    const endpointOf = async (id: string) => {
      if (Date.now() - loadedAt > ENDPOINT_FRESH_MS) {
        const row = (await WebhookEndpoint.findByPk(id))?.get({ plain: true }) as WebhookEndpointRow | undefined;
        if (row) endpointById.set(id, row);
        else endpointById.delete(id);
      }
      return endpointById.get(id);
    };
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const delivery = claimed[next++];
        try {
          await this.attempt(delivery, await endpointOf(delivery.endpointId), eventById.get(delivery.eventId)!);
        } catch (error) {
          this.rt.logger.error({ err: error, deliveryId: delivery.id }, 'webhook attempt failed unexpectedly');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, claimed.length) }, worker));
    return claimed.length;
  }

  /** Runs rounds until stop(): at once while there is work, else every pollMs. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        let sent = 0;
        try {
          sent = await this.runOnce();
        } catch (error) {
          this.rt.logger.error({ err: error }, 'webhook dispatch round failed');
        }
        if (sent === 0 && this.running) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, this.pollMs);
            this.wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
      }
    })();
  }

  /** Finishes the attempts in flight, then stops. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.sender.close();
  }

  private async claim(): Promise<WebhookDeliveryRow[]> {
    const { db, clock } = this.rt;
    const now = clock.now();
    const replacements = { now, lease: new Date(now.getTime() + this.leaseMs), worker: this.workerId, limit: this.batchSize };
    const lock = db.dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
    const sql = `UPDATE webhook_deliveries SET "lockedUntil" = :lease, "lockedBy" = :worker
      WHERE id IN (SELECT id FROM webhook_deliveries
        WHERE status = 'pending' AND "nextAttemptAt" <= :now AND ("lockedUntil" IS NULL OR "lockedUntil" <= :now)
        ORDER BY "nextAttemptAt" LIMIT :limit ${lock})
      RETURNING id`;
    // One statement claims the batch: Postgres skips rows another worker is claiming; SQLite serializes writers.
    const rows = await db.transaction((transaction) =>
      db.sequelize.query<{ id: string }>(sql, { replacements: db.rawReplacements(replacements), type: QueryTypes.SELECT, transaction }),
    );
    if (rows.length === 0) return [];
    const found = await db.models.WebhookDelivery.findAll({ where: { id: { [Op.in]: rows.map((r) => r.id) }, lockedBy: this.workerId } });
    return found.map((r) => r.get({ plain: true }) as WebhookDeliveryRow).sort((a, b) => +new Date(a.nextAttemptAt!) - +new Date(b.nextAttemptAt!));
  }

  private async attempt(delivery: WebhookDeliveryRow, endpoint: WebhookEndpointRow | undefined, event: EventRow): Promise<void> {
    const { db, clock } = this.rt;
    if (!endpoint || endpoint.deletedAt || endpoint.status === 'disabled') {
      await this.settle(delivery, { status: 'canceled', nextAttemptAt: null, lastError: 'endpoint disabled or deleted' });
      this.rt.metrics.webhookAttempts.inc({ outcome: 'canceled' });
      return;
    }
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
      'webhook-signature': signatureHeader(signingSecrets(this.rt, endpoint, startedAt), messageId, timestamp, body),
    };
    const result = await this.sender.post(endpoint.url, headers, body, { endpointId: endpoint.id });
    const finishedAt = clock.now();

    const outcome = await db.transaction(async (transaction): Promise<'succeeded' | 'retry' | 'failed'> => {
      await db.models.WebhookAttempt.create(
        {
          id: newId(), deliveryId: delivery.id, attempt, workerId: this.workerId, startedAt, durationMs: result.durationMs,
          statusCode: result.statusCode, success: result.ok, error: result.error, responseExcerpt: result.excerpt || null, createdAt: finishedAt,
        },
        { transaction },
      );
      const base = { attemptCount: attempt, lastAttemptAt: startedAt, lastError: result.error, lockedUntil: null, lockedBy: null, updatedAt: finishedAt };
      const ctx = withTransaction(systemContext(this.rt, delivery.livemode), transaction);
      if (result.ok) {
        await this.update(delivery, { ...base, status: 'succeeded', succeededAt: finishedAt, nextAttemptAt: null }, transaction);
        // every success touching one endpoint row would serialize busy endpoints: write only what changes
        const lastSuccess = endpoint.lastSuccessAt ? new Date(endpoint.lastSuccessAt).getTime() : 0;
        if (endpoint.status !== 'failing' && !endpoint.failingSince && finishedAt.getTime() - lastSuccess < MINUTE) return 'succeeded';
        await db.models.WebhookEndpoint.update(
          { lastSuccessAt: finishedAt, failingSince: null, ...(endpoint.status === 'failing' ? { status: 'enabled' } : {}), updatedAt: finishedAt },
          { where: { id: endpoint.id }, transaction },
        );
        return 'succeeded';
      }
      const gone = result.statusCode === 410;
      if (!gone && attempt < delivery.maxAttempts) {
        await this.update(delivery, { ...base, status: 'pending', nextAttemptAt: new Date(startedAt.getTime() + RETRY_DELAYS_MS[attempt]) }, transaction);
        return 'retry';
      }
      await this.update(delivery, { ...base, status: 'failed', failedAt: finishedAt, nextAttemptAt: null }, transaction);
      if (!delivery.eventType.startsWith('webhook.') && endpoint.tenantId) {
        await emitEvent(ctx, {
          type: 'webhook.delivery_failed',
          tenantId: endpoint.tenantId,
          merchantId: endpoint.merchantId,
          livemode: delivery.livemode,
          data: {
            deliveryId: delivery.id, endpointId: endpoint.id, endpointLevel: endpoint.level, eventId: delivery.eventId,
            eventType: delivery.eventType, attempts: attempt, lastError: result.error, lastStatusCode: result.statusCode,
          },
        });
      }
      // read again, locked: a success of another delivery since the batch was read may have ended the failing streak
      const current = (await db.models.WebhookEndpoint.findByPk(endpoint.id, { transaction, lock: true }))?.get({ plain: true }) as WebhookEndpointRow | undefined;
      const since = (current ?? endpoint).failingSince;
      const failingSince = since ? new Date(since) : finishedAt;
      const exhaustedTooLong = finishedAt.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS;
      if (gone || exhaustedTooLong) {
        const reason = gone ? 'the receiver answered 410 Gone' : 'every delivery failed for 5 days with no success';
        await db.models.WebhookEndpoint.update({ status: 'disabled', disabledReason: reason, failingSince, updatedAt: finishedAt }, { where: { id: endpoint.id }, transaction });
        // the rest of this batch holds the same endpoint record: its deliveries are canceled, not sent
        transaction.afterCommit(() => {
          endpoint.status = 'disabled';
        });
        await cancelPendingDeliveries(ctx, endpoint.id);
        if (endpoint.tenantId) {
          await emitEvent(ctx, {
            type: 'webhook.endpoint_disabled', tenantId: endpoint.tenantId, merchantId: endpoint.merchantId, livemode: delivery.livemode,
            data: { endpointId: endpoint.id, endpointLevel: endpoint.level, url: endpoint.url, reason },
          });
        }
      } else {
        await db.models.WebhookEndpoint.update(
          { failingSince, ...(endpoint.level === 'merchant' ? { status: 'failing' } : {}), updatedAt: finishedAt },
          { where: { id: endpoint.id }, transaction },
        );
      }
      return 'failed';
    });
    this.rt.metrics.webhookAttempts.inc({ outcome });
    if (outcome === 'succeeded') this.rt.metrics.webhookDeliveryLag.observe(Math.max(0, finishedAt.getTime() - new Date(event.createdAt).getTime()) / 1000);
  }

  /**
   * Records the outcome only while this worker still holds the claim for this attempt; otherwise throws, so the
   * whole outcome (attempt record, events) rolls back and the worker that took the claim over owns the delivery.
   */
  private async update(delivery: WebhookDeliveryRow, changes: Partial<WebhookDeliveryRow>, transaction: import('sequelize').Transaction): Promise<void> {
    const [count] = await this.rt.db.models.WebhookDelivery.update(changes, {
      where: { id: delivery.id, lockedBy: this.workerId, attemptCount: delivery.attemptCount },
      transaction,
    });
    if (count !== 1) throw new Error(`delivery ${delivery.id}: claim lost to another worker; outcome not recorded`);
  }

  private async settle(delivery: WebhookDeliveryRow, changes: Partial<WebhookDeliveryRow>): Promise<void> {
    await this.rt.db.transaction((transaction) =>
      this.update(delivery, { ...changes, lockedUntil: null, lockedBy: null, updatedAt: this.rt.clock.now() }, transaction),
    );
  }
}
