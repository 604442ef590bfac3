import { useCliSandbox } from '../helpers/cli';
import { dialectName } from '../helpers/db';
import { startServe, stopAllServes, type ServeProcess } from '../helpers/serve';
import { eventCatalog } from '../../src/services/webhooks/catalog';

// Issue 32, item 1: a new user runs `npm start` (serve, with its jobs) and, in another terminal, `events trigger
// <type>`. serve's jobs (the sandbox acquirer's answers, balance releases, settlements) race the command for the same
// work: every type of the catalog must still be produced (the command waits for the event, whoever did the work), the
// past-day payment of settlement.finalized and balance.available dated its day and paying the schedule's fee, and
// payouts on a fresh sandbox paid to an active method, for the amount the help says. One sandbox and one serve for all.

const t = useCliSandbox();
let serve: ServeProcess;

beforeAll(async () => {
  serve = await startServe(t.db, { PAYPLANE_HOME: t.db.home });
}, 120_000);
t.beforeDrop(() => stopAllServes());

const SAMPLES = ['fraud.alert', 'webhook.delivery_failed', 'webhook.endpoint_disabled', 'dispute.late_decision'];

describe(`events trigger beside a running serve (${dialectName})`, () => {
  test('every type of the catalog is produced, by real records but for the samples', async () => {
    const failures: string[] = [];
    const results = new Map<string, any>();
    for (const { type } of eventCatalog()) {
      const run = await t.cli('events', 'trigger', type, '--json');
      if (run.status !== 0) {
        failures.push(`${type}: exit ${run.status} ${run.stdout}${run.stderr}`);
        continue;
      }
      const result = run.json();
      results.set(type, result);
      if (
        result.type !== type ||
        (result.sample ?? result.data?.sample ?? false) !== SAMPLES.includes(type) ||
        typeof result.eventId !== 'string'
      )
        failures.push(`${type}: ${run.stdout.slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
    expect(serve.child.exitCode).toBeNull();

    // the past-day payments: captured on their day, paying the sandbox's fee as every payment does
    for (const type of ['settlement.finalized', 'balance.available']) {
      const { paymentId } = results.get(type);
      const payment = (await t.cli('payments', 'get', paymentId, '--tenant', t.sandbox.tenantId, '--json')).json();
      expect(payment.status).toBe('captured');
      expect(payment.amountBreakdown.fee.valueMinor).toBeGreaterThan(0);
      expect(payment.createdAt.slice(0, 10) < new Date().toISOString().slice(0, 10)).toBe(true);
    }
    // its ledger entries are of that day: on that day's statement, the fee line included
    const statement = results.get('settlement.finalized');
    const finalized = (await t.cli('settlements', 'get', statement.statementId, '--tenant', t.sandbox.tenantId, '--json')).json();
    expect(finalized).toMatchObject({ id: statement.statementId, status: 'finalized' });
    expect(finalized.totals.fees.valueMinor).toBeGreaterThan(0);
    const lines = (await t.cli('settlements', 'lines', statement.statementId, '--tenant', t.sandbox.tenantId, '--all', '--json')).json();
    const own = (Array.isArray(lines) ? lines : lines.data).filter((l: any) => l.sourceId === statement.paymentId);
    expect(own.length).toBeGreaterThan(0);
    expect(own.some((l: any) => l.fee.valueMinor > 0)).toBe(true);
    for (const line of own) expect(line.occurredAt.slice(0, 10)).toBe(statement.periodStart.slice(0, 10));

    // the payouts: paid to an active method, what the funding payment made available beyond a negative balance
    const checkPayout = async (type: string, result: any): Promise<number> => {
      const payout = (await t.cli('payouts', 'get', result.payoutId, '--tenant', t.sandbox.tenantId, '--json')).json();
      const funding = (await t.cli('payments', 'get', result.paymentId, '--tenant', t.sandbox.tenantId, '--json')).json();
      const deficit = funding.amount.valueMinor - 2500;
      expect(deficit).toBeGreaterThanOrEqual(0);
      expect(payout.amount.valueMinor + payout.fee.valueMinor).toBe(funding.amountBreakdown.net.valueMinor - deficit);
      if (type !== 'payout.created') expect(payout.status).toBe(type === 'payout.failed' ? 'failed' : 'paid');
      return deficit;
    };
    for (const type of ['payout.created', 'payout.succeeded', 'payout.failed']) await checkPayout(type, results.get(type));
    // below zero (balance.negative just took it there): the funding payment covers the deficit, the payout is as said
    expect((await t.cli('events', 'trigger', 'balance.negative', '--json')).status).toBe(0);
    const after = await t.cli('events', 'trigger', 'payout.succeeded', '--json');
    expect(after.status).toBe(0);
    expect(await checkPayout('payout.succeeded', after.json())).toBeGreaterThan(0);
  }, 600_000);

  test('when no endpoint subscribes, every kind of trigger says so (balance.negative as fraud.alert)', async () => {
    for (const type of [
      'balance.negative',
      'fraud.alert',
      'payment.succeeded',
      'payout.succeeded',
      'merchant.created',
      'balance.available',
    ]) {
      const run = await t.cli('events', 'trigger', type);
      expect(`${type}: ${run.status}`).toBe(`${type}: 0`);
      expect(run.stdout).toMatch(/deliveriesQueued\s+0/);
      expect(run.stdout).toContain(`No endpoint subscribes to this event (${type})`);
    }
  }, 300_000);

  test('a trigger that cannot pay says so before it makes anything: no payment is left behind', async () => {
    const other = (await t.cli('sandbox', 'init', '--no-save', '--name', 'No terminal', '--json')).json();
    expect((await t.cli('terminals', 'disable', other.terminalId, '--yes', '--json')).status).toBe(0);
    for (const type of ['payment.succeeded', 'settlement.finalized', 'balance.available', 'payout.succeeded', 'withdrawal.created']) {
      const run = await t.cli('events', 'trigger', type, '--tenant', other.tenantId, '--merchant', other.merchantId, '--json');
      expect(`${type}: ${run.status}`).toBe(`${type}: 6`);
      expect(run.json().error).toMatchObject({ code: 'EVENT_NOT_PRODUCED', message: expect.stringContaining('Nothing was made') });
    }
    const payments = (await t.cli('payments', 'list', '--tenant', other.tenantId, '--json')).json();
    expect(payments.data).toEqual([]);
    const methods = (
      await t.cli('withdrawal-methods', 'list', '--tenant', other.tenantId, '--merchant', other.merchantId, '--json')
    ).json();
    expect(methods.data).toEqual([]);
  }, 120_000);
});
