import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { QueryTypes } from 'sequelize';
import type { Database } from './db/database';
import type { Clock } from './domain/clock';

/**
 * The Prometheus metrics of one process (GET /metrics): requests and their latency by operation, webhook attempts by
 * outcome, the outbox lag and the dispatcher's queue depth (read from the database when scraped), scheduler runs, and
 * the process's own figures (memory, CPU, event loop) once `serve` starts.
 */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'operation' | 'method' | 'status'>;
  httpDuration: Histogram<'operation'>;
  rateLimited: Counter<never>;
  webhookAttempts: Counter<'outcome'>;
  /** from an event's creation to its first successful delivery to an endpoint */
  webhookDeliveryLag: Histogram<never>;
  schedulerRuns: Counter<'job' | 'outcome'>;
  /** adds the default process metrics (once) */
  collectProcessMetrics(): void;
}

export function createMetrics(db: Database, clock: Clock): Metrics {
  const registry = new Registry();
  const queue = async () => {
    const now = clock.now();
    const [row] = await db.sequelize.query<{ due: number | string; oldest: string | Date | null }>(
      `SELECT count(*) AS due, min("nextAttemptAt") AS oldest FROM webhook_deliveries WHERE status = 'pending' AND "nextAttemptAt" <= :now`,
      { replacements: db.rawReplacements({ now }), type: QueryTypes.SELECT },
    );
    const oldest = row?.oldest ? new Date(row.oldest) : null;
    return { due: Number(row?.due ?? 0), lagSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0 };
  };
  // one query serves both gauges of a scrape
  let last: Promise<{ due: number; lagSeconds: number }> | null = null;
  const read = () => (last ??= queue().finally(() => setTimeout(() => (last = null), 100).unref()));
  new Gauge({
    name: 'payplane_webhook_queue_depth',
    help: 'Webhook deliveries due now and not yet attempted',
    registers: [registry],
    async collect() {
      this.set((await read()).due);
    },
  });
  new Gauge({
    name: 'payplane_outbox_lag_seconds',
    help: 'Age of the oldest webhook delivery due and not yet attempted',
    registers: [registry],
    async collect() {
      this.set((await read()).lagSeconds);
    },
  });
  let processMetrics = false;
  return {
    registry,
    httpRequests: new Counter({
      name: 'payplane_http_requests_total',
      help: 'API requests by operation, method and status',
      labelNames: ['operation', 'method', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'payplane_http_request_duration_seconds',
      help: 'API request latency by operation',
      labelNames: ['operation'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'payplane_rate_limited_total',
      help: "Requests refused with 429 by a tenant's rate limit or the failed-authentication limit",
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'payplane_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (succeeded, retry, failed, canceled)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    webhookDeliveryLag: new Histogram({
      name: 'payplane_webhook_delivery_lag_seconds',
      help: 'From an event to its successful delivery to an endpoint',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
      registers: [registry],
    }),
    schedulerRuns: new Counter({
      name: 'payplane_scheduler_runs_total',
      help: 'Scheduler ticks by job and outcome (succeeded, failed, skipped: another process had the tick)',
      labelNames: ['job', 'outcome'],
      registers: [registry],
    }),
    collectProcessMetrics() {
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry, prefix: 'payplane_' });
    },
  };
}
