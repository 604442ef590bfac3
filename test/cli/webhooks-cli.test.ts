import { Op } from 'sequelize';
import { dialectName } from '../helpers/db';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { BIN, useCliSandbox } from '../helpers/cli';
import { operatorContext } from '../../src/services/access/operators';
import { systemContext } from '../../src/domain/authority';
import { withTransaction } from '../../src/domain/context';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { createEndpoint, deleteEndpoint, updateEndpoint } from '../../src/services/webhooks/endpoints';
import { emitEvent, renderEventData } from '../../src/services/webhooks/events';
import { eventCatalog } from '../../src/services/webhooks/catalog';
import { sampleEventData, triggerSampleEvent } from '../../src/services/webhooks/samples';
import { ProgressBar } from '../../src/cli/progress';
import type { WebhookDeliveryRow } from '../../src/db/models';

const s = useCliSandbox({ sandbox: false, runtime: true });
const cli = s.cli;

const NO_ESCAPES = /\u001b\[/;
const URL_A = 'https://receiver.example.test/hook';

async function delivery(id: string): Promise<WebhookDeliveryRow> {
  const row = await s.rt.db.models.WebhookDelivery.findByPk(id);
  return row!.get({ plain: true }) as WebhookDeliveryRow;
}

/** Emits an event through the outbox, as a state change would; returns its deliveries by endpoint id. */
async function emit(
  type: string,
  scope: { tenantId: string; merchantId?: string | null; livemode?: boolean },
): Promise<Record<string, string>> {
  const livemode = scope.livemode ?? false;
  return s.rt.db.transaction(async (t) => {
    const ctx = withTransaction(systemContext(s.rt, livemode), t);
    const event = await emitEvent(ctx, {
      type,
      data: { id: `obj_${type}`, amount: { currency: 'EUR', valueMinor: 100 } },
      tenantId: scope.tenantId,
      merchantId: scope.merchantId ?? null,
      livemode,
    });
    const rows = await s.rt.db.models.WebhookDelivery.findAll({ where: { eventId: event.id }, transaction: t });
    return Object.fromEntries(rows.map((r) => [r.get('endpointId') as string, r.get('id') as string]));
  });
}

/** Marks deliveries as having exhausted their attempts at `failedAt`, as the dispatcher does. */
async function markFailed(ids: string[], failedAt: Date): Promise<void> {
  await s.rt.db.models.WebhookDelivery.update(
    { status: 'failed', failedAt, attemptCount: 10, maxAttempts: 10, nextAttemptAt: null, lastAttemptAt: failedAt, lastError: 'HTTP 503' },
    { where: { id: { [Op.in]: ids } } },
  );
}

describe(`payplane webhooks CLI (${dialectName})`, () => {
  let sb: SandboxCredentials;

  beforeAll(async () => {
    sb = await createSandbox(s.rt, { name: 'Webhook CLI tenant' });
  });

  test('help lists the webhook topics and the delivery commands', async () => {
    const [webhooks, deliveries] = await Promise.all([cli('webhooks', '--help'), cli('webhooks', 'deliveries', '--help')]);
    for (const topic of ['webhooks endpoints', 'webhooks deliveries', 'webhooks dispatch']) expect(webhooks.stdout).toContain(topic);
    for (const cmd of ['list', 'get', 'retry', 'replay']) expect(deliveries.stdout).toContain(`webhooks deliveries ${cmd}`);
  });

  test('endpoints: create returns a whsec_ secret once; list, get, update, rotate-secret and delete', async () => {
    const created = await cli(
      'webhooks',
      'endpoints',
      'create',
      '--tenant',
      sb.tenantId,
      '--merchant',
      sb.merchantId,
      '--url',
      URL_A,
      '--event',
      'payment.*',
      '--event',
      'refund.succeeded',
      '--description',
      'Shop',
      '--json',
    );
    expect(created.status).toBe(0);
    const endpoint = created.json();
    expect(endpoint).toMatchObject({
      level: 'merchant',
      tenantId: sb.tenantId,
      merchantId: sb.merchantId,
      livemode: false,
      url: URL_A,
      events: ['payment.*', 'refund.succeeded'],
      status: 'enabled',
      maxAttempts: 10,
      description: 'Shop',
    });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    // the secret shown is the one deliveries are signed with
    const row = await s.rt.db.models.WebhookEndpoint.findByPk(endpoint.id);
    expect(s.rt.sealer.open(row!.get('secretSealed') as string)).toBe(endpoint.secret);

    const [table, tenantList, got] = await Promise.all([
      cli('webhooks', 'endpoints', 'list', '--tenant', sb.tenantId, '--merchant', sb.merchantId),
      cli('webhooks', 'endpoints', 'list', '--tenant', sb.tenantId, '--json'),
      cli('webhooks', 'endpoints', 'get', endpoint.id, '--json'),
    ]);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain(endpoint.id);
    expect(table.stdout).toContain(URL_A);
    expect(table.stdout).toMatch(/1 of 1/);
    expect(table.stdout).not.toMatch(NO_ESCAPES);
    expect(table.stdout).not.toContain(endpoint.secret);
    expect(tenantList.json().data).toEqual([]); // tenant level lists the tenant's own endpoints only
    expect(got.json()).toMatchObject({ id: endpoint.id, url: URL_A });
    expect(got.json().secret).toBeUndefined();

    const updated = await cli(
      'webhooks',
      'endpoints',
      'update',
      endpoint.id,
      '--event',
      'payment.succeeded',
      '--url',
      `${URL_A}/v2`,
      '--no-description',
      '--max-attempts',
      '5',
      '--status',
      'disabled',
      '--json',
    );
    expect(updated.status).toBe(0);
    expect(updated.json()).toMatchObject({
      events: ['payment.succeeded'],
      url: `${URL_A}/v2`,
      description: null,
      maxAttempts: 5,
      status: 'disabled',
      disabledReason: 'disabled by request',
    });
    const rotateDisabled = await cli('webhooks', 'endpoints', 'rotate-secret', endpoint.id, '--json');
    expect(rotateDisabled.status).toBe(5);
    expect(rotateDisabled.json().error.code).toBe('WEBHOOK_ENDPOINT_DISABLED');
    expect((await cli('webhooks', 'endpoints', 'update', endpoint.id, '--status', 'enabled', '--json')).json().status).toBe('enabled');

    const rotated = await cli('webhooks', 'endpoints', 'rotate-secret', endpoint.id, '--grace-hours', '2', '--json');
    expect(rotated.status).toBe(0);
    const r = rotated.json();
    expect(r.secret).toMatch(/^whsec_/);
    expect(r.secret).not.toBe(endpoint.secret);
    expect(new Date(r.previousSecretExpiresAt).getTime()).toBeGreaterThan(Date.now() + 3_500_000);
    const rotatedRow = await s.rt.db.models.WebhookEndpoint.findByPk(endpoint.id);
    expect(s.rt.sealer.open(rotatedRow!.get('secretSealed') as string)).toBe(r.secret);
    expect(s.rt.sealer.open(rotatedRow!.get('previousSecretSealed') as string)).toBe(endpoint.secret);

    // without --yes and off a terminal, delete refuses before touching anything
    const [unconfirmed, deleted] = await Promise.all([
      cli('webhooks', 'endpoints', 'delete', endpoint.id),
      cli('webhooks', 'endpoints', 'delete', endpoint.id, '--yes', '--json'),
    ]);
    expect(unconfirmed.status).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    expect(deleted.status).toBe(0);
    expect(deleted.json().deletedAt).toEqual(expect.any(String));
    const gone = await cli('webhooks', 'endpoints', 'get', endpoint.id, '--json');
    expect(gone.status).toBe(4);
    expect(gone.json().error.code).toBe('RESOURCE_NOT_FOUND');
  });

  test('endpoints: tenant and platform levels, and invalid input names the flag', async () => {
    const [tenantLevel, platformLevel, notHttps, tenantOnlyForMerchant, noTenant, unknownTenant] = await Promise.all([
      cli('webhooks', 'endpoints', 'create', '--tenant', sb.tenantId, '--url', URL_A, '--event', 'merchant.created', '--json'),
      cli('webhooks', 'endpoints', 'create', '--platform', '--live', '--url', URL_A, '--event', '*', '--json'),
      cli(
        'webhooks',
        'endpoints',
        'create',
        '--tenant',
        sb.tenantId,
        '--url',
        'http://receiver.example.test/hook',
        '--event',
        '*',
        '--json',
      ),
      cli(
        'webhooks',
        'endpoints',
        'create',
        '--tenant',
        sb.tenantId,
        '--merchant',
        sb.merchantId,
        '--url',
        URL_A,
        '--event',
        'merchant.created',
        '--json',
      ),
      cli('webhooks', 'endpoints', 'list', '--json'),
      cli('webhooks', 'endpoints', 'list', '--tenant', '00000000-0000-4000-8000-000000000000', '--json'),
    ]);
    expect(tenantLevel.status).toBe(0);
    expect(tenantLevel.json()).toMatchObject({ level: 'tenant', tenantId: sb.tenantId, merchantId: null, livemode: false });
    expect(platformLevel.status).toBe(0);
    expect(platformLevel.json()).toMatchObject({ level: 'platform', tenantId: null, merchantId: null, livemode: true, events: ['*'] });
    expect(notHttps.status).toBe(2);
    expect(notHttps.json().error.errors[0].path).toBe('--url');
    expect(tenantOnlyForMerchant.status).toBe(2);
    expect(tenantOnlyForMerchant.json().error).toMatchObject({
      code: 'INVALID_EVENT_SUBSCRIPTION',
      errors: [{ path: '--event[0]', message: expect.stringContaining('not available to merchant endpoints') }],
    });
    expect(noTenant.status).toBe(2);
    expect(noTenant.json().error.errors[0].path).toBe('--tenant');
    expect(unknownTenant.status).toBe(4);
    // remove the live platform endpoint, which would otherwise receive every live event of the other tests
    await deleteEndpoint(operatorContext(s.rt, { level: 'platform', tenantId: null, livemode: true }), platformLevel.json().id);
  });

  describe('events trigger', () => {
    let tenant: SandboxCredentials;
    let merchantEndpointId: string;
    let tenantEndpointId: string;

    beforeAll(async () => {
      tenant = await createSandbox(s.rt, { name: 'Trigger tenant' });
      const merchantCtx = operatorContext(s.rt, {
        level: 'merchant',
        tenantId: tenant.tenantId,
        merchantId: tenant.merchantId,
        livemode: false,
      });
      merchantEndpointId = (await createEndpoint(merchantCtx, { url: URL_A, events: ['payment.*'] })).id;
      const tenantCtx = operatorContext(s.rt, { level: 'tenant', tenantId: tenant.tenantId, livemode: false });
      tenantEndpointId = (await createEndpoint(tenantCtx, { url: `${URL_A}/ops`, events: ['merchant.created', 'payment.succeeded'] })).id;
    });

    test('a payment event type drives a real sandbox payment whose events are queued for each subscribed endpoint', async () => {
      const res = await cli(
        'events',
        'trigger',
        'payment.succeeded',
        '--tenant',
        tenant.tenantId,
        '--merchant',
        tenant.merchantId,
        '--json',
      );
      expect(res.status).toBe(0);
      const out = res.json();
      expect(out).toMatchObject({
        type: 'payment.succeeded',
        sample: false,
        tenantId: tenant.tenantId,
        merchantId: tenant.merchantId,
        livemode: false,
        paymentStatus: 'captured',
        paymentId: expect.any(String),
        deliveriesQueued: 2,
      });
      expect(out.deliveries.map((d: { endpointId: string }) => d.endpointId).sort()).toEqual([merchantEndpointId, tenantEndpointId].sort());

      const event = (await s.rt.db.models.Event.findByPk(out.eventId))!.get({ plain: true }) as {
        data: Record<string, unknown>;
        livemode: boolean;
        tenantId: string;
        type: string;
      };
      expect(event).toMatchObject({ type: 'payment.succeeded', livemode: false, tenantId: tenant.tenantId });
      expect(event.data).toMatchObject({
        id: out.paymentId,
        status: 'captured',
        merchantId: tenant.merchantId,
        amount: { currency: 'EUR', valueMinor: 2500 },
      });
      expect(event.data.sample).toBeUndefined();
      expect(event.data.feeBreakdown).toBeTruthy();
      expect(event.data.routingDecision).toBeTruthy();
      // the merchant endpoint gets the merchant view: no fee decomposition, routing or provider details
      const merchantView = renderEventData(event.data, 'merchant') as Record<string, unknown>;
      expect(merchantView.feeBreakdown).toBeUndefined();
      expect(merchantView.routingDecision).toBeUndefined();
      expect(merchantView.amount).toEqual(event.data.amount);

      for (const d of out.deliveries as { id: string }[]) {
        const row = await delivery(d.id);
        expect(row).toMatchObject({
          status: 'pending',
          eventId: out.eventId,
          eventType: 'payment.succeeded',
          livemode: false,
          attemptCount: 0,
        });
        expect(row.nextAttemptAt).not.toBeNull();
      }
      // every payment event of the payment was queued for the merchant endpoint (payment.*), through the outbox
      const types = (out.events as { id: string; type: string }[]).filter((e) => e.type.startsWith('payment.'));
      expect(types.map((e) => e.type)).toEqual(['payment.created', 'payment.processing', 'payment.succeeded', 'payment.captured']);
      const queued = await s.rt.db.models.WebhookDelivery.findAll({
        where: { endpointId: merchantEndpointId, eventId: { [Op.in]: types.map((e) => e.id) } },
      });
      expect(queued.map((d) => d.get('eventType')).sort()).toEqual([
        'payment.captured',
        'payment.created',
        'payment.processing',
        'payment.succeeded',
      ]);
    });

    test('the types no real flow can make at once still emit a sample event', async () => {
      const res = await cli('events', 'trigger', 'fraud.alert', '--tenant', tenant.tenantId, '--json');
      expect(res.status).toBe(0);
      const out = res.json();
      expect(out).toMatchObject({ type: 'fraud.alert', merchantId: null, deliveriesQueued: 0, data: { sample: true } });
      const text = await cli('events', 'trigger', 'webhook.delivery_failed', '--tenant', tenant.tenantId);
      expect(text.stdout).toContain('No endpoint subscribes to this event');
    });

    test('a tenant event needs no merchant; the text output names the queued delivery', async () => {
      const res = await cli('events', 'trigger', 'merchant.created', '--tenant', tenant.tenantId);
      expect(res.status).toBe(0);
      // a real merchant, of a company of its own
      expect(res.stdout).toMatch(/company\s+[0-9a-f-]{36}/);
      expect(res.stdout).toMatch(/merchant\s+[0-9a-f-]{36}/);
      expect(res.stdout).toMatch(/deliveriesQueued\s+1/);
      expect(res.stdout).toContain(tenantEndpointId);
      expect(res.stdout).not.toContain(merchantEndpointId);
      expect(res.stdout).not.toMatch(NO_ESCAPES);
    });

    test('kyb.submitted: a new sandbox company and merchant whose KYB waits for review', async () => {
      const res = await cli('events', 'trigger', 'kyb.submitted', '--tenant', tenant.tenantId, '--json');
      expect(res.status).toBe(0);
      const out = res.json();
      expect(out).toMatchObject({ type: 'kyb.submitted', sample: false, tenantId: tenant.tenantId, kybSubmissionId: expect.any(String) });
      const submission = await s.rt.db.models.KybSubmission.findByPk(out.kybSubmissionId);
      expect(submission!.get({ plain: true })).toMatchObject({ status: 'submitted', tenantId: tenant.tenantId, companyId: out.companyId });
      const merchant = await s.rt.db.models.Merchant.findByPk(out.merchantId);
      expect(merchant!.get('companyId')).toBe(out.companyId);
      expect(out.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['merchant.created', 'kyb.submitted']));
    });

    test('refuses live mode, unknown types and a merchant event without a merchant', async () => {
      const before = await s.rt.db.models.Event.count();
      const [live, unknown, noMerchant, otherTenantsMerchant] = await Promise.all([
        cli('events', 'trigger', 'payment.succeeded', '--tenant', tenant.tenantId, '--merchant', tenant.merchantId, '--live', '--json'),
        cli('events', 'trigger', 'payment.teleported', '--tenant', tenant.tenantId, '--merchant', tenant.merchantId, '--json'),
        cli('events', 'trigger', 'refund.succeeded', '--tenant', tenant.tenantId, '--json'),
        cli('events', 'trigger', 'refund.succeeded', '--tenant', tenant.tenantId, '--merchant', sb.merchantId, '--json'),
      ]);
      expect(live.status).toBe(3);
      expect(live.json().error).toMatchObject({ code: 'SANDBOX_ONLY', status: 403 });
      expect(unknown.status).toBe(2);
      expect(unknown.json().error).toMatchObject({ code: 'UNKNOWN_EVENT_TYPE', errors: [{ path: 'TYPE' }] });
      expect(unknown.json().error.hint).toContain('payment.succeeded');
      expect(noMerchant.status).toBe(2);
      expect(noMerchant.json().error.errors[0].path).toBe('--merchant');
      expect(otherTenantsMerchant.status).toBe(4);
      expect(await s.rt.db.models.Event.count()).toBe(before);
    });

    test('the service refuses live mode with SANDBOX_ONLY, and every catalog type has sample data', async () => {
      const live = operatorContext(s.rt, { level: 'tenant', tenantId: tenant.tenantId, livemode: true });
      await expect(triggerSampleEvent(live, { type: 'payment.succeeded', merchantId: tenant.merchantId })).rejects.toMatchObject({
        code: 'SANDBOX_ONLY',
        exitCode: 3,
      });
      for (const { type } of eventCatalog()) {
        const data = sampleEventData(type, { tenantId: tenant.tenantId, merchantId: tenant.merchantId, now: new Date() });
        expect(data.sample).toBe(true);
        expect(Object.keys(data).length).toBeGreaterThan(3);
      }
    });

    test('routing.alert drives a real payment no terminal takes: the alert goes to tenant endpoints, at most once per 15 minutes', async () => {
      const alertEndpointId = (
        await createEndpoint(operatorContext(s.rt, { level: 'tenant', tenantId: tenant.tenantId, livemode: false }), {
          url: `${URL_A}/alerts`,
          events: ['routing.alert'],
        })
      ).id;
      const res = await cli('events', 'trigger', 'routing.alert', '--tenant', tenant.tenantId, '--merchant', tenant.merchantId, '--json');
      expect(res.status).toBe(0);
      const out = res.json();
      expect(out).toMatchObject({
        type: 'routing.alert',
        sample: false,
        paymentStatus: 'failed',
        deliveriesQueued: 1,
        deliveries: [{ endpointId: alertEndpointId }],
      });
      const event = (await s.rt.db.models.Event.findByPk(out.eventId))!.get({ plain: true }) as {
        data: Record<string, unknown>;
        tenantId: string;
      };
      expect(event.data).toMatchObject({
        reason: 'no_eligible_terminal',
        merchantId: tenant.merchantId,
        paymentId: out.paymentId,
        currency: 'GBP',
        brand: 'visa',
      });
      expect(event.data.sample).toBeUndefined();
      // the merchant endpoint (payment.*) had the failed payment's events, never the tenant-level alert
      expect(out.deliveries.map((d: { endpointId: string }) => d.endpointId)).not.toContain(merchantEndpointId);
      // within 15 minutes the same merchant's cause is not raised again: the command says so
      const again = await cli('events', 'trigger', 'routing.alert', '--tenant', tenant.tenantId, '--merchant', tenant.merchantId, '--json');
      expect(again.status).not.toBe(0);
      expect(again.json().error).toMatchObject({ code: 'EVENT_NOT_PRODUCED' });
      expect(again.json().error.message).toContain('at most once per cause per 15 minutes');
      await deleteEndpoint(operatorContext(s.rt, { level: 'tenant', tenantId: tenant.tenantId, livemode: false }), alertEndpointId);
    });
  });

  describe('deliveries replay', () => {
    let t: SandboxCredentials;
    let e1: string; // tenant endpoint, every event (test mode)
    let e2: string; // merchant endpoint, payment.* (test mode)
    let e3: string; // tenant endpoint, live mode
    const d: Record<string, string> = {};
    const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
    const replay = (...args: string[]) => cli('webhooks', 'deliveries', 'replay', '--status', 'failed', ...args);

    beforeAll(async () => {
      t = await createSandbox(s.rt, { name: 'Replay tenant' });
      const tenantTest = operatorContext(s.rt, { level: 'tenant', tenantId: t.tenantId, livemode: false });
      e1 = (await createEndpoint(tenantTest, { url: `${URL_A}/all`, events: ['*'] })).id;
      e2 = (
        await createEndpoint(
          operatorContext(s.rt, { level: 'merchant', tenantId: t.tenantId, merchantId: t.merchantId, livemode: false }),
          { url: `${URL_A}/shop`, events: ['payment.*'] },
        )
      ).id;
      e3 = (
        await createEndpoint(operatorContext(s.rt, { level: 'tenant', tenantId: t.tenantId, livemode: true }), {
          url: `${URL_A}/live`,
          events: ['*'],
        })
      ).id;

      const paid = await emit('payment.succeeded', { tenantId: t.tenantId, merchantId: t.merchantId });
      d.paidE1 = paid[e1];
      d.paidE2 = paid[e2];
      d.refundE1 = (await emit('refund.succeeded', { tenantId: t.tenantId, merchantId: t.merchantId }))[e1];
      d.oldE1 = (await emit('merchant.created', { tenantId: t.tenantId, merchantId: t.merchantId }))[e1];
      d.liveE3 = (await emit('payment.failed', { tenantId: t.tenantId, merchantId: t.merchantId, livemode: true }))[e3];
      d.pendingE1 = (await emit('payment.captured', { tenantId: t.tenantId, merchantId: t.merchantId }))[e1];
      expect(Object.values(d).every(Boolean)).toBe(true);
      await markFailed([d.paidE1, d.paidE2, d.refundE1, d.liveE3], minutesAgo(10));
      await markFailed([d.oldE1], minutesAgo(180)); // outside a 1h window
    });

    const inWindow = () => [d.paidE1, d.paidE2, d.refundE1, d.liveE3];

    test('--dry-run lists exactly the failed deliveries of the window and changes nothing', async () => {
      const res = await replay('--since', '1h', '--dry-run', '--json');
      expect(res.status).toBe(0);
      const out = res.json();
      expect(out).toMatchObject({ selected: 4, requeued: 0, skipped: 0, dryRun: true });
      expect([...out.deliveries].sort()).toEqual(inWindow().sort());
      for (const id of [...inWindow(), d.oldE1]) expect((await delivery(id)).status).toBe('failed');

      const text = await replay('--since', '1h', '--dry-run');
      expect(text.status).toBe(0);
      for (const id of inWindow()) expect(text.stdout).toContain(id);
      expect(text.stdout).not.toContain(d.oldE1);
      expect(text.stdout).toMatch(/Selected\s+│\s+Requeued\s+│\s+Skipped/);
      expect(text.stdout).toContain('nothing was changed');
      expect(text.stdout).not.toMatch(NO_ESCAPES);
    });

    test('--type and --endpoint narrow the selection', async () => {
      const [payments, paymentsToE1, wider] = await Promise.all([
        replay('--since', '1h', '--type', 'payment.*', '--dry-run', '--json'),
        replay('--since', '1h', '--endpoint', e1, '--type', 'payment.succeeded', '--dry-run', '--json'),
        replay('--since', '4h', '--endpoint', e1, '--dry-run', '--json'),
      ]);
      expect([...payments.json().deliveries].sort()).toEqual([d.paidE1, d.paidE2, d.liveE3].sort());
      expect(paymentsToE1.json()).toMatchObject({ selected: 1, deliveries: [d.paidE1] });
      // oldest failure first; the wider window also takes the one that failed 3 h ago
      expect(wider.json().deliveries[0]).toBe(d.oldE1);
      expect([...wider.json().deliveries].sort()).toEqual([d.oldE1, d.paidE1, d.refundE1].sort());
    });

    test('invalid flags are refused with the flag named', async () => {
      const [since, type, endpoint] = await Promise.all([
        replay('--since', 'yesterday', '--json'),
        replay('--since', '1h', '--type', 'teleport.*', '--json'),
        replay('--since', '1h', '--endpoint', 'nope', '--json'),
      ]);
      expect(since.status).toBe(2);
      expect(since.json().error.errors[0].path).toBe('--since');
      expect(type.status).toBe(2);
      expect(type.json().error.errors[0].path).toBe('--type');
      expect(endpoint.status).toBe(2);
      expect(endpoint.json().error.errors[0].path).toBe('--endpoint');
      for (const id of inWindow()) expect((await delivery(id)).status).toBe('failed');
    });

    test('--since 1h requeues exactly the failed deliveries of the window (each in its own mode); a second run requeues 0', async () => {
      const started = Date.now();
      const res = await replay('--since', '1h', '--json');
      expect(res.status).toBe(0);
      expect(res.stderr).toBe('');
      const out = res.json();
      expect(out).toMatchObject({ selected: 4, requeued: 4, skipped: 0, dryRun: false });
      expect([...out.deliveries].sort()).toEqual(inWindow().sort());
      for (const id of inWindow()) {
        const row = await delivery(id);
        expect(row).toMatchObject({ status: 'pending', failedAt: null, attemptCount: 10, maxAttempts: 11 });
        expect(row.nextAttemptAt).not.toBeNull();
        expect(new Date(row.nextAttemptAt!).getTime()).toBeGreaterThanOrEqual(started - 5_000);
      }
      expect((await delivery(d.liveE3)).livemode).toBe(true);
      expect(await delivery(d.oldE1)).toMatchObject({ status: 'failed', attemptCount: 10 });
      expect(await delivery(d.pendingE1)).toMatchObject({ status: 'pending', attemptCount: 0, maxAttempts: 10 });

      const again = await replay('--since', '1h');
      expect(again.status).toBe(0);
      expect(again.stdout).toMatch(/│ 0\s+│ 0\s+│ 0\s+│/);
      expect(again.stdout).toContain('No failed deliveries since');
      expect(again.stderr).toBe(''); // no progress bar on a pipe
      expect(again.stdout).not.toMatch(NO_ESCAPES);
    });

    test('a delivery whose endpoint is disabled is skipped; the summary table counts it', async () => {
      await markFailed([d.paidE2, d.refundE1], minutesAgo(5));
      await updateEndpoint(
        operatorContext(s.rt, { level: 'merchant', tenantId: t.tenantId, merchantId: t.merchantId, livemode: false }),
        e2,
        { status: 'disabled' },
      );
      const res = await replay('--since', '30m');
      expect(res.status).toBe(0);
      expect(res.stdout).toMatch(/Selected\s+│\s+Requeued\s+│\s+Skipped/);
      expect(res.stdout).toMatch(/│ 2\s+│ 1\s+│ 1\s+│/);
      expect(res.stdout).toContain('Requeued 1 of 2');
      expect(res.stdout).not.toMatch(NO_ESCAPES);
      expect((await delivery(d.refundE1)).status).toBe('pending');
      expect((await delivery(d.paidE2)).status).toBe('failed');
    });
  });

  describe('deliveries list, get and retry', () => {
    let t: SandboxCredentials;
    let endpointId: string;
    let failedId: string;
    let pendingId: string;

    beforeAll(async () => {
      t = await createSandbox(s.rt, { name: 'Deliveries tenant' });
      endpointId = (
        await createEndpoint(operatorContext(s.rt, { level: 'tenant', tenantId: t.tenantId, livemode: false }), {
          url: `${URL_A}/d`,
          events: ['refund.*', 'payout.*'],
        })
      ).id;
      failedId = (await emit('refund.failed', { tenantId: t.tenantId, merchantId: t.merchantId }))[endpointId];
      pendingId = (await emit('payout.created', { tenantId: t.tenantId, merchantId: t.merchantId }))[endpointId];
      await markFailed([failedId], new Date(Date.now() - 86_400_000 * 2));
      const started = new Date(Date.now() - 86_400_000 * 2);
      await s.rt.db.models.WebhookAttempt.create({
        id: '00000000-0000-4000-8000-0000000000a1',
        deliveryId: failedId,
        attempt: 1,
        workerId: 'w1',
        startedAt: started,
        durationMs: 120,
        statusCode: 503,
        success: false,
        error: 'HTTP 503',
        responseExcerpt: 'unavailable',
        createdAt: started,
      });
    });

    test('list filters by tenant, status, type and endpoint; get shows the attempts', async () => {
      const [all, byType, otherTenant, table, got, gotText] = await Promise.all([
        cli('webhooks', 'deliveries', 'list', '--tenant', t.tenantId, '--json'),
        cli('webhooks', 'deliveries', 'list', '--type', 'payout.created', '--endpoint', endpointId, '--json'),
        cli('webhooks', 'deliveries', 'list', '--tenant', sb.tenantId, '--endpoint', endpointId, '--json'),
        cli('webhooks', 'deliveries', 'list', '--tenant', t.tenantId, '--status', 'failed'),
        cli('webhooks', 'deliveries', 'get', failedId, '--json'),
        cli('webhooks', 'deliveries', 'get', failedId),
      ]);
      const ids = (res: { json(): { data: { id: string }[] } }) =>
        res
          .json()
          .data.map((x) => x.id)
          .sort();
      expect(ids(all)).toEqual([failedId, pendingId].sort());
      expect(ids(byType)).toEqual([pendingId]);
      // another tenant's endpoint is not found in this tenant's scope, as over the API (validateInput): 404 naming the flag
      expect([otherTenant.status, otherTenant.json().error.code, otherTenant.json().error.errors]).toEqual([
        4,
        'RESOURCE_NOT_FOUND',
        [{ path: '--endpoint', message: 'no such webhook endpoint' }],
      ]);
      expect(table.stdout).toContain(failedId);
      expect(table.stdout).toContain('refund.failed');
      expect(table.stdout).not.toContain(pendingId);
      expect(table.stdout).toMatch(/1 of 1/);
      expect(table.stdout).not.toMatch(NO_ESCAPES);
      expect(got.json()).toMatchObject({
        id: failedId,
        status: 'failed',
        eventType: 'refund.failed',
        attempts: [{ attempt: 1, statusCode: 503, success: false, error: 'HTTP 503', responseExcerpt: 'unavailable' }],
      });
      expect(gotText.stdout).toContain('HTTP 503');
      expect(gotText.stdout).toMatch(/status\s+failed/);
    });

    test('retry requeues a failed delivery once; a second retry is a conflict, an unknown id not found', async () => {
      const retried = await cli('webhooks', 'deliveries', 'retry', failedId, '--json');
      expect(retried.status).toBe(0);
      expect(retried.json()).toMatchObject({ id: failedId, status: 'pending', failedAt: null, maxAttempts: 11 });
      expect((await delivery(failedId)).status).toBe('pending');
      const [again, missing] = await Promise.all([
        cli('webhooks', 'deliveries', 'retry', failedId, '--json'),
        cli('webhooks', 'deliveries', 'retry', '00000000-0000-4000-8000-000000000000', '--json'),
      ]);
      expect(again.status).toBe(5);
      expect(again.json().error.code).toBe('DELIVERY_ALREADY_DUE');
      expect(missing.status).toBe(4);
    });
  });
});

describe('progress bar', () => {
  const stream = (isTTY: boolean) => {
    const chunks: string[] = [];
    return { isTTY, columns: 80, chunks, write: (c: string) => chunks.push(c) };
  };

  test('redraws one line on a terminal and ends it', () => {
    const tty = stream(true);
    const bar = new ProgressBar(4, { label: 'Replaying', stream: tty });
    for (let i = 0; i < 4; i++) bar.tick();
    bar.stop();
    const out = tty.chunks.join('');
    expect(out.startsWith('\rReplaying [')).toBe(true);
    expect(out).toContain('2/4 50%');
    expect(out.trimEnd().endsWith('4/4 100%')).toBe(true);
    expect(out.endsWith('\n')).toBe(true);
    expect(out).not.toMatch(NO_ESCAPES);
    expect(ProgressBar.render('X', 1, 4, 8)).toBe('X [##------] 1/4 25%');
  });

  test('draws nothing on a pipe, when disabled (--json) or with nothing to do', () => {
    for (const [s, enabled, total] of [
      [stream(false), true, 3],
      [stream(true), false, 3],
      [stream(true), true, 0],
    ] as const) {
      const bar = new ProgressBar(total, { label: 'Replaying', stream: s, enabled });
      bar.tick();
      bar.stop();
      expect(s.chunks).toEqual([]);
    }
  });
});

describe(`payplane webhooks listen and sandbox env at the terminal (${dialectName})`, () => {
  test('without a saved sandbox: sandbox env is 404 (exit 4), listen asks for --tenant (exit 2); a bad --forward-to names the flag', async () => {
    const env404 = await cli('sandbox', 'env', '--json');
    expect(env404.status).toBe(4);
    expect(env404.json().error).toMatchObject({ code: 'SANDBOX_NOT_FOUND' });
    const missing = await cli('webhooks', 'listen', '--json');
    expect(missing.status).toBe(2);
    expect(missing.json().error).toMatchObject({ code: 'MISSING_FLAG' });
    const sb = await createSandbox(s.rt);
    const badForward = await cli('webhooks', 'listen', '--tenant', sb.tenantId, '--forward-to', 'ftp://example.com/', '--json');
    expect(badForward.status).toBe(2);
    expect(badForward.json().error.errors).toEqual([{ path: '--forward-to', message: 'must be an http or https URL' }]);
  });

  test('a port in use stops listen before it registers anything (exit 8, one line naming the port); --json prints the endpoint, disabled, when it stops', async () => {
    const sb = await createSandbox(s.rt);
    const listenerRows = () =>
      s.rt.db.models.WebhookEndpoint.findAll({ where: { tenantId: sb.tenantId, description: 'payplane webhooks listen' } });
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    const inUse = await cli('webhooks', 'listen', '--tenant', sb.tenantId, '--port', String(port), '--json');
    await new Promise((resolve) => busy.close(resolve));
    expect(inUse.status).toBe(8);
    expect(inUse.json().error).toMatchObject({ code: 'PORT_IN_USE' });
    expect(inUse.json().error.detail ?? inUse.json().error.message).toContain(`port ${port} of 127.0.0.1`);
    expect(await listenerRows()).toHaveLength(0);

    const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--tenant', sb.tenantId, '--port', String(port), '--json'], {
      env: { ...process.env, ...s.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    for (let i = 0; i < 300 && !(await listenerRows()).some((r) => r.get('status') === 'enabled'); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const result = JSON.parse(out);
    expect(result).toMatchObject({
      endpoint: { level: 'tenant', url: `https://localhost:${port}/`, status: 'disabled' },
      forwardTo: null,
      deliveries: [],
      stoppedBy: 'SIGINT',
    });
    expect(result.secret).toMatch(/^whsec_/);
    expect((await listenerRows()).map((r) => r.get('status'))).toEqual(['disabled']);
  });
});
