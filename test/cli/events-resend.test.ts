import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Op } from 'sequelize';
import { dialectName } from '../helpers/db';
import { useCliSandbox } from '../helpers/cli';
import { operatorContext } from '../../src/services/access/operators';
import { systemContext } from '../../src/domain/authority';
import { withTransaction } from '../../src/domain/context';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { createEndpoint, updateEndpoint } from '../../src/services/webhooks/endpoints';
import { emitEvent } from '../../src/services/webhooks/events';
import type { WebhookDeliveryRow } from '../../src/db/models';

// Issue 24 item 6 at the terminal: `webhooks deliveries retry` of a canceled or scheduled delivery, `webhooks deliveries
// replay --status canceled|pending`, and `events resend`.

const s = useCliSandbox({ sandbox: { name: 'Resend CLI tenant' }, runtime: true });
const cli = s.cli;
const NO_ESCAPES = /\u001b\[/;
const URL_A = 'https://receiver.example.test/resend';

let tenantEndpoint: string; // the sandbox tenant's, payment.*
let shopEndpoint: string; // the sandbox merchant's, payment.*
let refundsEndpoint: string; // the sandbox merchant's, refund.*

beforeAll(async () => {
  // the sandbox of this database, as `serve` or `sandbox init` saves it: commands default to its tenant
  fs.writeFileSync(path.join(s.db.home, 'sandbox.json'), JSON.stringify({ ...s.sandbox, databaseUrl: s.db.url }), { mode: 0o600 });
  tenantEndpoint = (
    await createEndpoint(operatorContext(s.rt, { level: 'tenant', tenantId: s.sandbox.tenantId, livemode: false }), {
      url: `${URL_A}/ops`,
      events: ['payment.*'],
    })
  ).id;
  const merchant = operatorContext(s.rt, {
    level: 'merchant',
    tenantId: s.sandbox.tenantId,
    merchantId: s.sandbox.merchantId,
    livemode: false,
  });
  shopEndpoint = (await createEndpoint(merchant, { url: `${URL_A}/shop`, events: ['payment.*'] })).id;
  refundsEndpoint = (await createEndpoint(merchant, { url: `${URL_A}/refunds`, events: ['refund.*'] })).id;
});

const merchantCtx = () =>
  operatorContext(s.rt, { level: 'merchant', tenantId: s.sandbox.tenantId, merchantId: s.sandbox.merchantId, livemode: false });

async function delivery(id: string): Promise<WebhookDeliveryRow> {
  return (await s.rt.db.models.WebhookDelivery.findByPk(id))!.get({ plain: true }) as WebhookDeliveryRow;
}

/** Emits an event through the outbox; returns the event id and its deliveries by endpoint id. */
async function emit(type: string, livemode = false): Promise<{ eventId: string; deliveries: Record<string, string> }> {
  return s.rt.db.transaction(async (t) => {
    const ctx = withTransaction(systemContext(s.rt, livemode), t);
    const event = await emitEvent(ctx, {
      type,
      data: { id: `obj_${type}`, amount: { currency: 'EUR', valueMinor: 100 } },
      tenantId: s.sandbox.tenantId,
      merchantId: s.sandbox.merchantId,
      livemode,
    });
    const rows = await s.rt.db.models.WebhookDelivery.findAll({ where: { eventId: event.id }, transaction: t });
    return { eventId: event.id, deliveries: Object.fromEntries(rows.map((r) => [r.get('endpointId') as string, r.get('id') as string])) };
  });
}

/** As the dispatcher leaves a delivery after a failed first attempt: pending, the next attempt `inMs` away. */
async function markScheduled(ids: string[], inMs: number): Promise<void> {
  const last = new Date(Date.now() - 60_000);
  await s.rt.db.models.WebhookDelivery.update(
    { status: 'pending', attemptCount: 1, lastAttemptAt: last, lastError: 'HTTP 503', nextAttemptAt: new Date(Date.now() + inMs) },
    { where: { id: { [Op.in]: ids } } },
  );
}

/** As disabling the endpoint leaves a delivery that was retrying (webhooks listen stopping): canceled. */
async function markCanceled(ids: string[], at: Date): Promise<void> {
  await s.rt.db.models.WebhookDelivery.update(
    { status: 'canceled', attemptCount: 1, lastAttemptAt: at, lastError: 'HTTP 503', nextAttemptAt: null, updatedAt: at },
    { where: { id: { [Op.in]: ids } } },
  );
}

describe(`payplane webhooks deliveries retry: any delivery, now (${dialectName})`, () => {
  test('a canceled delivery: refused while its endpoint is disabled (exit 5, naming why), sent again once it is enabled, its maxAttempts kept', async () => {
    const { deliveries } = await emit('payment.succeeded');
    const id = deliveries[shopEndpoint];
    await markScheduled([id], 3_600_000);
    await updateEndpoint(merchantCtx(), shopEndpoint, { status: 'disabled' });
    expect(await delivery(id)).toMatchObject({ status: 'canceled', attemptCount: 1 });

    const refused = await cli('webhooks', 'deliveries', 'retry', id, '--json');
    expect(refused.status).toBe(5);
    expect(refused.json().error).toMatchObject({ code: 'WEBHOOK_ENDPOINT_DISABLED', status: 409 });
    expect(refused.json().error.message).toContain(shopEndpoint);
    expect(refused.json().error.hint).toContain('--status enabled');
    expect((await delivery(id)).status).toBe('canceled');

    await updateEndpoint(merchantCtx(), shopEndpoint, { status: 'enabled' });
    const started = Date.now();
    const retried = await cli('webhooks', 'deliveries', 'retry', id, '--json');
    expect(retried.status).toBe(0);
    expect(retried.json()).toMatchObject({ id, status: 'pending', attemptCount: 1, maxAttempts: 10 });
    const row = await delivery(id);
    expect(row).toMatchObject({ status: 'pending', attemptCount: 1, maxAttempts: 10, lockedBy: null });
    expect(new Date(row.nextAttemptAt!).getTime()).toBeGreaterThanOrEqual(started - 5_000);
    expect(new Date(row.nextAttemptAt!).getTime()).toBeLessThanOrEqual(Date.now());
  });

  test('a scheduled delivery is made due now (the same record, its attempts left); a second retry finds it due already', async () => {
    const { eventId, deliveries } = await emit('payment.captured');
    const id = deliveries[tenantEndpoint];
    await markScheduled([id], 6 * 3_600_000);
    const text = await cli('webhooks', 'deliveries', 'retry', id);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`Requeued ${id} (payment.captured): attempt 2 of 10 is due now`);
    expect(text.stdout).not.toMatch(NO_ESCAPES);
    const row = await delivery(id);
    expect(row).toMatchObject({ status: 'pending', attemptCount: 1, maxAttempts: 10 });
    expect(new Date(row.nextAttemptAt!).getTime()).toBeLessThanOrEqual(Date.now());
    expect(await s.rt.db.models.WebhookDelivery.count({ where: { eventId, endpointId: tenantEndpoint } })).toBe(1);
    const again = await cli('webhooks', 'deliveries', 'retry', id, '--json');
    expect(again.status).toBe(5);
    expect(again.json().error.code).toBe('DELIVERY_ALREADY_DUE');
  });

  test('help says what can be retried', async () => {
    const help = await cli('webhooks', 'deliveries', 'retry', '--help');
    for (const word of ['failed', 'canceled', 'succeeded', 'pending', 'events resend']) expect(help.stdout).toContain(word);
  });
});

describe(`payplane webhooks deliveries replay --status canceled|pending (${dialectName})`, () => {
  let t: SandboxCredentials;
  let endpoint: string;
  const d: Record<string, string> = {};
  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

  beforeAll(async () => {
    t = await createSandbox(s.rt, { name: 'Replay canceled tenant' });
    endpoint = (
      await createEndpoint(operatorContext(s.rt, { level: 'tenant', tenantId: t.tenantId, livemode: false }), {
        url: `${URL_A}/replay`,
        events: ['*'],
      })
    ).id;
    const emitTo = async (type: string) =>
      s.rt.db.transaction(async (tr) => {
        const event = await emitEvent(withTransaction(systemContext(s.rt, false), tr), {
          type,
          data: { id: `obj_${type}` },
          tenantId: t.tenantId,
          merchantId: t.merchantId,
        });
        const [row] = await s.rt.db.models.WebhookDelivery.findAll({ where: { eventId: event.id, endpointId: endpoint }, transaction: tr });
        return row.get('id') as string;
      });
    d.canceled = await emitTo('payment.failed');
    d.oldCanceled = await emitTo('payment.canceled');
    d.failed = await emitTo('refund.failed');
    d.scheduled = await emitTo('payout.failed');
    d.due = await emitTo('payout.created');
    await markCanceled([d.canceled], minutesAgo(10));
    await markCanceled([d.oldCanceled], minutesAgo(300));
    await s.rt.db.models.WebhookDelivery.update(
      {
        status: 'failed',
        failedAt: minutesAgo(5),
        attemptCount: 10,
        maxAttempts: 10,
        nextAttemptAt: null,
        lastAttemptAt: minutesAgo(5),
        lastError: 'HTTP 500',
      },
      { where: { id: d.failed } },
    );
    await markScheduled([d.scheduled], 6 * 3_600_000);
  });

  const replay = (...args: string[]) => cli('webhooks', 'deliveries', 'replay', '--endpoint', endpoint, ...args);

  test('--status canceled --dry-run lists the canceled deliveries of the window and changes nothing', async () => {
    const res = await replay('--status', 'canceled', '--since', '1h', '--dry-run', '--json');
    expect(res.status).toBe(0);
    expect(res.json()).toMatchObject({
      selected: 1,
      requeued: 0,
      skipped: 0,
      dryRun: true,
      statuses: ['canceled'],
      deliveries: [d.canceled],
    });
    const text = await replay('--status', 'canceled', '--since', '1h', '--dry-run');
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(d.canceled);
    expect(text.stdout).not.toContain(d.oldCanceled);
    expect(text.stdout).toMatch(/Selected\s+│\s+Requeued\s+│\s+Skipped/);
    expect(text.stdout).toContain('Dry run: 1 canceled delivery since');
    expect(text.stdout).not.toMatch(NO_ESCAPES);
    expect((await delivery(d.canceled)).status).toBe('canceled');
    // a comma list, or the flag repeated: several statuses at once, oldest first
    const [comma, repeated, wide] = await Promise.all([
      replay('--status', 'failed,canceled,pending', '--since', '1h', '--dry-run', '--json'),
      replay('--status', 'pending', '--status', 'failed', '--since', '1h', '--dry-run', '--json'),
      replay('--status', 'canceled', '--since', '6h', '--dry-run', '--json'),
    ]);
    expect(comma.json()).toMatchObject({
      selected: 3,
      statuses: ['failed', 'canceled', 'pending'],
      deliveries: [d.canceled, d.failed, d.scheduled],
    });
    expect(repeated.json()).toMatchObject({ statuses: ['failed', 'pending'], deliveries: [d.failed, d.scheduled] });
    expect(wide.json().deliveries).toEqual([d.oldCanceled, d.canceled]);
    const bad = await replay('--status', 'succeeded', '--since', '1h', '--json');
    expect(bad.status).toBe(2);
  });

  test('--status canceled requeues them, due now, their maxAttempts kept; a second run finds nothing', async () => {
    const started = Date.now();
    const res = await replay('--status', 'canceled', '--since', '1h', '--json');
    expect(res.status).toBe(0);
    expect(res.json()).toMatchObject({ selected: 1, requeued: 1, skipped: 0, dryRun: false, deliveries: [d.canceled] });
    const row = await delivery(d.canceled);
    expect(row).toMatchObject({ status: 'pending', attemptCount: 1, maxAttempts: 10 });
    expect(new Date(row.nextAttemptAt!).getTime()).toBeGreaterThanOrEqual(started - 5_000);
    expect(await delivery(d.oldCanceled)).toMatchObject({ status: 'canceled' });
    expect(await delivery(d.failed)).toMatchObject({ status: 'failed' });

    const again = await replay('--status', 'canceled', '--since', '1h');
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('No canceled deliveries since');
    expect(again.stdout).toMatch(/│ 0\s+│ 0\s+│ 0\s+│/);
  });

  test('--status pending makes the scheduled ones due now, not the ones due already', async () => {
    const res = await replay('--status', 'pending', '--since', '1h', '--json');
    expect(res.status).toBe(0);
    expect(res.json()).toMatchObject({ selected: 1, requeued: 1, deliveries: [d.scheduled] });
    const row = await delivery(d.scheduled);
    expect(row).toMatchObject({ status: 'pending', attemptCount: 1, maxAttempts: 10 });
    expect(new Date(row.nextAttemptAt!).getTime()).toBeLessThanOrEqual(Date.now());
    expect(await delivery(d.due)).toMatchObject({ status: 'pending', attemptCount: 0 });
    expect((await replay('--status', 'pending', '--since', '1h', '--json')).json()).toMatchObject({ selected: 0, requeued: 0 });
  });
});

describe(`payplane events resend (${dialectName})`, () => {
  test('without --endpoint: a fresh delivery to every endpoint of the sandbox tenant that receives the event', async () => {
    const { eventId, deliveries } = await emit('payment.requires_capture');
    expect(Object.keys(deliveries).sort()).toEqual([tenantEndpoint, shopEndpoint].sort());
    const res = await cli('events', 'resend', eventId, '--json');
    expect(res.status).toBe(0);
    const out = res.json();
    expect(out).toMatchObject({
      eventId,
      type: 'payment.requires_capture',
      tenantId: s.sandbox.tenantId,
      merchantId: s.sandbox.merchantId,
      livemode: false,
      deliveriesQueued: 2,
    });
    expect(out.deliveries.map((x: { endpointId: string }) => x.endpointId).sort()).toEqual([tenantEndpoint, shopEndpoint].sort());
    for (const x of out.deliveries as { id: string; status: string }[]) {
      expect(Object.values(deliveries)).not.toContain(x.id);
      expect(await delivery(x.id)).toMatchObject({ status: 'pending', eventId, attemptCount: 0, maxAttempts: 10, lockedBy: null });
    }
    expect(await s.rt.db.models.WebhookDelivery.count({ where: { eventId } })).toBe(4);

    // --merchant: the merchant's endpoints only; the text output names each delivery
    const text = await cli('events', 'resend', eventId, '--tenant', s.sandbox.tenantId, '--merchant', s.sandbox.merchantId);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/deliveriesQueued\s+1/);
    expect(text.stdout).toContain(shopEndpoint);
    expect(text.stdout).not.toContain(tenantEndpoint);
    expect(text.stdout).not.toMatch(NO_ESCAPES);
    // --merchant alone: its tenant is found from it
    const alone = await cli('events', 'resend', eventId, '--merchant', s.sandbox.merchantId, '--json');
    expect(alone.status).toBe(0);
    expect(alone.json().deliveries.map((x: { endpointId: string }) => x.endpointId)).toEqual([shopEndpoint]);
    expect(await s.rt.db.models.WebhookDelivery.count({ where: { eventId } })).toBe(6);
  });

  test('with --endpoint: that endpoint only; one that does not receive the event is refused, saying why', async () => {
    const { eventId } = await emit('payment.processing');
    const one = await cli('events', 'resend', eventId, '--endpoint', shopEndpoint, '--json');
    expect(one.status).toBe(0);
    expect(one.json()).toMatchObject({
      eventId,
      deliveriesQueued: 1,
      deliveries: [{ endpointId: shopEndpoint, status: 'pending', eventType: 'payment.processing' }],
    });

    const [notSubscribed, badEndpoint, badId] = await Promise.all([
      cli('events', 'resend', eventId, '--endpoint', refundsEndpoint, '--json'),
      cli('events', 'resend', eventId, '--endpoint', 'nope', '--json'),
      cli('events', 'resend', 'nope', '--json'),
    ]);
    expect(notSubscribed.status).toBe(5);
    expect(notSubscribed.json().error).toMatchObject({ code: 'WEBHOOK_ENDPOINT_NOT_RECEIVING', status: 409 });
    expect(notSubscribed.json().error.message).toContain('does not subscribe to payment.processing');
    expect(badEndpoint.status).toBe(2);
    expect(badEndpoint.json().error.errors[0].path).toBe('--endpoint');
    expect(badId.status).toBe(2);
    expect(await s.rt.db.models.WebhookDelivery.count({ where: { eventId, endpointId: refundsEndpoint } })).toBe(0);
  });

  test('an event of the other mode, of another tenant, or with no sandbox to default to: refused with the reason', async () => {
    const live = await emit('payment.succeeded', true);
    const other = await createSandbox(s.rt, { name: 'Resend other tenant' });
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-resend-'));
    try {
      const [wrongMode, withLive, otherTenant, noSandbox, platform] = await Promise.all([
        cli('events', 'resend', live.eventId, '--json'),
        cli('events', 'resend', live.eventId, '--live', '--json'),
        cli('events', 'resend', live.eventId, '--tenant', other.tenantId, '--live', '--json'),
        s.cliWith({ PAYPLANE_HOME: home }, 'events', 'resend', live.eventId, '--live', '--json'),
        cli('events', 'resend', live.eventId, '--platform', '--live', '--json'),
      ]);
      expect(wrongMode.status).toBe(4);
      expect(wrongMode.json().error.hint).toContain('--live');
      // the live event has no live endpoint to go to
      expect(withLive.status).toBe(0);
      expect(withLive.json()).toMatchObject({ eventId: live.eventId, livemode: true, deliveriesQueued: 0, deliveries: [] });
      expect(otherTenant.status).toBe(4);
      expect(noSandbox.status).toBe(2);
      expect(noSandbox.json().error).toMatchObject({ code: 'MISSING_FLAG', errors: [{ path: '--tenant' }] });
      expect(platform.status).toBe(0);
      const text = await cli('events', 'resend', live.eventId, '--live');
      expect(text.stdout).toContain('nothing was queued');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  test('help describes the command with examples', async () => {
    const help = await cli('events', 'resend', '--help');
    expect(help.status).toBe(0);
    for (const word of ['--endpoint', '--tenant', '--merchant', '--platform', '--live', 'sandbox.json', 'EXAMPLES'])
      expect(help.stdout).toContain(word);
    const topic = await cli('events', '--help');
    expect(topic.stdout).toContain('events resend');
  });
});
