import { withRuntimeOf, dialectName } from '../helpers/db';
import { runOnTerminal, useCliSandbox, type TerminalStep } from '../helpers/cli';
import { expectLedgerInvariant } from '../helpers/ledger';
import { TEST_IBAN } from '../helpers/withdrawals';
import { fundByAdjustment } from '../helpers/funding';
import type { Runtime } from '../../src/runtime';
import { updateTenant } from '../../src/services/tenants/tenants';
import { createWithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { approveWithdrawal, createWithdrawal, getWithdrawal, startExecution } from '../../src/services/withdrawals';
import { balancesOf } from '../../src/services/ledger/balances';
import { operatorContext, operatorUserId as op } from '../../src/services/access/operators';

/**
 * The operators' withdrawals CLI on withdrawals requested through the services (a sandbox merchant with an active
 * bank_account method and funds): list and get, approve, reject, cancel, and execute in its three forms: the flags
 * (--complete / --fail, checked before anything changes), --via-provider (the sandbox payout provider), and the
 * interactive prompts on a pseudo-terminal given by script(1). Balances are checked to the minor unit.
 */

jest.setTimeout(240_000);

const s = useCliSandbox();
let methodId: string;
const cli = s.cli;

const FUNDS = 100_000; // 1000.00 EUR
const FEE = 50; // the sandbox fee schedule's withdrawal fee: 0.50 EUR
const NO_ESCAPES = /\u001b\[/;

const tenantOperator = (rt: Runtime, operator?: string) =>
  operatorContext(rt, { level: 'tenant', tenantId: s.sandbox.tenantId, livemode: false, operator });
const merchantCaller = (rt: Runtime) =>
  operatorContext(rt, {
    level: 'merchant',
    tenantId: s.sandbox.tenantId,
    merchantId: s.sandbox.merchantId,
    livemode: false,
    operator: 'merchant-admin',
  });

let requests = 0;
/** A pending withdrawal of the sandbox merchant, requested as the merchant (approved too when asked). */
async function requestWithdrawal(valueMinor: number, options: { approve?: boolean; currency?: string } = {}): Promise<string> {
  return withRuntimeOf(s.db, async (rt) => {
    requests += 1;
    const amount = { currency: options.currency ?? 'EUR', valueMinor };
    const w = await createWithdrawal(merchantCaller(rt), { amount, withdrawalMethodId: methodId }, `cli-test-${requests}`);
    if (options.approve) await approveWithdrawal(tenantOperator(rt, 'approver'), w.id);
    return w.id;
  });
}

const stored = (id: string) => withRuntimeOf(s.db, (rt) => getWithdrawal(tenantOperator(rt), id));

async function balance(currency = 'EUR') {
  return withRuntimeOf(s.db, async (rt) => {
    const [b] = await balancesOf(tenantOperator(rt), { merchantId: s.sandbox.merchantId, currency });
    return { available: b?.available.valueMinor ?? 0, payable: b?.payable.valueMinor ?? 0 };
  });
}

/** The operator names recorded in the audit trail for one withdrawal, action by action. */
async function auditActors(id: string): Promise<[string, string][]> {
  return withRuntimeOf(s.db, async (rt) => {
    const rows = await rt.db.models.AuditEntry.findAll({
      where: { targetId: id },
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
    });
    // the actor is the operator's user; the entry names the OS account too
    for (const r of rows) expect(r.get('actorId')).toBe(op(String(r.get('actorName')).replace(/^os:/, '')));
    return rows.map((r) => [r.get('action') as string, r.get('actorName') as string]);
  });
}

/** Runs payplane on a pseudo-terminal and answers its prompts (each step waits for its text, then types its keys). */
const onTerminal = (args: string[], steps: TerminalStep[]) => runOnTerminal(args, { env: { ...s.env, NODE_ENV: undefined }, steps });

const DOWN = '\u001b[B';
const ENTER = '\r';
const CTRL_C = '\u0003';

beforeAll(async () => {
  await withRuntimeOf(s.db, async (rt) => {
    const tenant = tenantOperator(rt);
    await updateTenant(tenant, s.sandbox.tenantId, { withdrawalCoolingPeriodHours: 0 });
    const method = await createWithdrawalMethod(merchantCaller(rt), {
      methodType: 'bank_account',
      label: 'Main account',
      details: { iban: TEST_IBAN, accountHolderName: 'Sandbox Merchant GmbH' },
    });
    expect(method.status).toBe('active');
    methodId = method.id;
    for (const currency of ['EUR', 'USD']) {
      await fundByAdjustment(tenant, { tenantId: s.sandbox.tenantId, merchantId: s.sandbox.merchantId, valueMinor: FUNDS, currency });
    }
  });
});

s.beforeDrop(async () => {
  // no read and no flag-driven command shows the full IBAN: only the interactive execute does (checked below)
  for (const out of s.outputs) expect(out.stdout + out.stderr).not.toContain(TEST_IBAN);
  await withRuntimeOf(s.db, (rt) => expectLedgerInvariant(rt));
});

describe(`payplane withdrawals (${dialectName})`, () => {
  test('help lists the commands with examples and the --operator flag', async () => {
    const [topic, execute] = await Promise.all([cli('withdrawals', '--help'), cli('withdrawals', 'execute', '--help')]);
    for (const cmd of ['list', 'get', 'approve', 'reject', 'execute', 'cancel']) expect(topic.stdout).toContain(`withdrawals ${cmd}`);
    expect(execute.stdout).toContain('EXAMPLES');
    for (const flag of ['--operator', '--complete', '--fail', '--reference', '--comment', '--via-provider', 'PAYPLANE_OPERATOR'])
      expect(execute.stdout).toContain(flag);
  });

  test('list: filters, --json records and a table with amounts formatted by currency; get shows one masked', async () => {
    const eur = await requestWithdrawal(4000);
    const usd = await requestWithdrawal(1250, { currency: 'USD' });

    const [all, pending, eurOnly, otherMerchant, live, table, got, text] = await Promise.all([
      cli('withdrawals', 'list', '--tenant', s.sandbox.tenantId, '--json'),
      cli('withdrawals', 'list', '--tenant', s.sandbox.tenantId, '--status', 'pending', '--merchant', s.sandbox.merchantId, '--json'),
      cli('withdrawals', 'list', '--tenant', s.sandbox.tenantId, '--currency', 'EUR', '--json'),
      cli('withdrawals', 'list', '--tenant', s.sandbox.tenantId, '--merchant', s.sandbox.payoutChannelId, '--json'),
      cli('withdrawals', 'list', '--tenant', s.sandbox.tenantId, '--live', '--json'),
      cli('withdrawals', 'list', '--tenant', s.sandbox.tenantId),
      cli('withdrawals', 'get', eur, '--json'),
      cli('withdrawals', 'get', eur),
    ]);
    expect(all.status).toBe(0);
    expect(all.json().data.map((w: { id: string }) => w.id)).toEqual([usd, eur]);
    expect(all.json().pagination.totalCount).toBe(2);
    expect(pending.json().data).toHaveLength(2);
    expect(eurOnly.json().data.map((w: { id: string }) => w.id)).toEqual([eur]);
    // --merchant naming no merchant (a channel's id) is refused as the API refuses query.entityId (validateInput)
    expect([otherMerchant.status, otherMerchant.json().error.code, otherMerchant.json().error.errors]).toEqual([
      4,
      'RESOURCE_NOT_FOUND',
      [{ path: '--merchant', message: 'no such merchant' }],
    ]);
    expect(live.json().data).toEqual([]);

    expect(table.status).toBe(0);
    expect(table.stdout).not.toMatch(NO_ESCAPES);
    const eurRow = table.stdout.split('\n').find((line) => line.includes(eur))!;
    const usdRow = table.stdout.split('\n').find((line) => line.includes(usd))!;
    expect(eurRow).toMatch(new RegExp(`${s.sandbox.merchantId}\\s+│\\s+40\\.00 EUR\\s+│\\s+0\\.50 EUR\\s+│\\s+pending`));
    expect(usdRow).toMatch(/12\.50 USD\s+│\s+0\.50 USD\s+│\s+pending/);
    expect(eurRow).toContain('Bank account (IBAN)');
    expect(eurRow).toContain('3000');
    expect(table.stdout).toMatch(/2 of 2/);

    expect(got.status).toBe(0);
    expect(got.json()).toEqual(await stored(eur));
    expect(got.json()).toMatchObject({
      id: eur,
      tenantId: s.sandbox.tenantId,
      entityId: s.sandbox.merchantId,
      status: 'pending',
      amount: { currency: 'EUR', valueMinor: 4000 },
      fee: { currency: 'EUR', valueMinor: FEE },
      createdBy: op('merchant-admin'),
      withdrawalChannelId: s.sandbox.payoutChannelId,
    });
    expect(text.stdout).toMatch(/amount\s+40\.00 EUR/);
    expect(text.stdout).toMatch(/fee\s+0\.50 EUR/);
    expect(text.stdout).toMatch(/debited\s+40\.50 EUR/);
    expect(text.stdout).toMatch(new RegExp(`created\\s+\\S+ by merchant-admin \\(${op('merchant-admin')}\\)`));

    // bad input names its flag; an unknown or another tenant's withdrawal is 404
    const [badMerchant, noTenant, badId, unknown, wrongTenant] = await Promise.all([
      cli('withdrawals', 'list', '--tenant', s.sandbox.tenantId, '--merchant', 'nope', '--json'),
      cli('withdrawals', 'list', '--json'),
      cli('withdrawals', 'get', 'nope', '--json'),
      cli('withdrawals', 'get', '00000000-0000-4000-8000-000000000000', '--json'),
      cli('withdrawals', 'get', eur, '--tenant', '00000000-0000-4000-8000-000000000000', '--json'),
    ]);
    expect(badMerchant.status).toBe(2);
    expect(badMerchant.json().error.errors[0].path).toBe('--merchant');
    expect(noTenant.status).toBe(2);
    expect(noTenant.json().error.message).toContain('Missing required flag tenant');
    expect(badId.status).toBe(2);
    expect(badId.json().error.errors[0].path).toBe('ID');
    expect(unknown.status).toBe(4);
    expect(wrongTenant.status).toBe(4);

    // both are closed by other commands: cancel (needs --yes without a terminal) releases the holds
    const before = await balance('USD');
    const unconfirmed = await cli('withdrawals', 'cancel', usd);
    expect(unconfirmed.status).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    expect((await stored(usd)).status).toBe('pending');
    const canceled = await cli('withdrawals', 'cancel', usd, '--yes', '--operator', 'carol', '--json');
    expect(canceled.status).toBe(0);
    expect(canceled.json()).toMatchObject({ status: 'canceled', canceledBy: op('carol') });
    expect(await balance('USD')).toEqual({ available: before.available + 1250 + FEE, payable: before.payable - 1250 - FEE });
    expect(await balance('USD')).toEqual({ available: FUNDS, payable: 0 });
    const again = await cli('withdrawals', 'cancel', usd, '--yes', '--json');
    expect(again.status).toBe(5);
    expect(again.json().error.code).toBe('INVALID_STATE_TRANSITION');
    const cleanup = await cli('withdrawals', 'reject', eur, '--reason', 'test set-up', '--json');
    expect(cleanup.status).toBe(0);
  });

  test('approve records the operator; reject needs a reason (named when missing) and releases the hold', async () => {
    const toApprove = await requestWithdrawal(4000);
    const approved = await cli('withdrawals', 'approve', toApprove, '--operator', 'alice', '--json');
    expect(approved.status).toBe(0);
    expect(approved.json()).toMatchObject({ id: toApprove, status: 'approved', approvedBy: op('alice') });
    expect(approved.json().approvedAt).not.toBeNull();
    expect(await auditActors(toApprove)).toEqual([
      ['withdrawal.created', 'os:merchant-admin'],
      [expect.stringMatching(/^withdrawal\.approve/), 'os:alice'],
    ]);
    // PAYPLANE_OPERATOR names the operator when --operator does not
    const twice = await s.cliWith({ PAYPLANE_OPERATOR: 'bob' }, 'withdrawals', 'approve', toApprove, '--json');
    expect(twice.status).toBe(5);

    const before = await balance();
    const toReject = await requestWithdrawal(2500);
    expect(await balance()).toEqual({ available: before.available - 2500 - FEE, payable: before.payable + 2500 + FEE });
    const missing = await cli('withdrawals', 'reject', toReject, '--operator', 'alice');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('--reason');
    const missingJson = await cli('withdrawals', 'reject', toReject, '--json');
    expect(missingJson.status).toBe(2);
    expect(missingJson.json().error.errors).toEqual([{ path: '--reason', message: 'is required' }]);
    const blank = await cli('withdrawals', 'reject', toReject, '--reason', '   ', '--json');
    expect(blank.status).toBe(2);
    expect(blank.json().error.errors[0].path).toBe('--reason');
    expect((await stored(toReject)).status).toBe('pending');

    const rejected = await s.cliWith(
      { PAYPLANE_OPERATOR: 'bob' },
      'withdrawals',
      'reject',
      toReject,
      '--reason',
      'Destination not verified',
      '--json',
    );
    expect(rejected.status).toBe(0);
    expect(rejected.json()).toMatchObject({ status: 'rejected', rejectionReason: 'Destination not verified', rejectedBy: op('bob') });
    expect(await balance()).toEqual(before);

    const text = await cli('withdrawals', 'get', toReject);
    expect(text.stdout).toMatch(/rejectionReason\s+Destination not verified/);
    expect(text.stdout).toMatch(new RegExp(`rejected\\s+\\S+ by bob \\(${op('bob')}\\)`));

    const blankOperator = await cli('withdrawals', 'approve', toApprove, '--operator', ' ', '--json');
    expect(blankOperator.status).toBe(2);
    expect(blankOperator.json().error.errors[0].path).toBe('--operator');
  });

  test('execute --complete --reference: approved → executing → completed, paid out of payable', async () => {
    const before = await balance();
    const id = await requestWithdrawal(4000, { approve: true });
    const noReference = await cli('withdrawals', 'execute', id, '--complete', '--operator', 'bob', '--json');
    expect(noReference.status).toBe(2);
    expect(noReference.json().error.errors[0].path).toBe('--reference');
    const neither = await cli('withdrawals', 'execute', id, '--operator', 'bob', '--json');
    expect(neither.status).toBe(2);
    expect(neither.json().error.errors[0].path).toBe('--complete');
    const both = await cli('withdrawals', 'execute', id, '--complete', '--fail', '--reference', 'R', '--comment', 'C', '--json');
    expect(both.status).toBe(2);
    expect((await stored(id)).status).toBe('approved');

    const done = await cli(
      'withdrawals',
      'execute',
      id,
      '--complete',
      '--reference',
      'SEPA-2024-000123',
      '--comment',
      'Paid from the EUR account',
      '--operator',
      'bob',
      '--json',
    );
    expect(done.status).toBe(0);
    expect(done.json()).toMatchObject({
      id,
      status: 'completed',
      providerReference: 'SEPA-2024-000123',
      executionComment: 'Paid from the EUR account',
      approvedBy: op('approver'),
      executedBy: op('bob'),
      completedBy: op('bob'),
    });
    expect(done.json().completedAt).not.toBeNull();
    expect(await stored(id)).toEqual(done.json());
    expect(await balance()).toEqual({ available: before.available - 4000 - FEE, payable: before.payable });
    // the audit trail names each step's operator
    expect((await auditActors(id)).map(([, actor]) => actor)).toEqual(['os:merchant-admin', 'os:approver', 'os:bob', 'os:bob']);

    const again = await cli('withdrawals', 'execute', id, '--complete', '--reference', 'X', '--operator', 'bob', '--json');
    expect(again.status).toBe(5);
    const text = await cli('withdrawals', 'get', id);
    expect(text.stdout).toMatch(/providerReference\s+SEPA-2024-000123/);
    expect(text.stdout).toMatch(new RegExp(`completed\\s+\\S+ by bob \\(${op('bob')}\\)`));
  });

  test('execute --fail: without --comment nothing changes; with it the funds are available again', async () => {
    const before = await balance();
    const id = await requestWithdrawal(3000, { approve: true });
    const held = { available: before.available - 3000 - FEE, payable: before.payable + 3000 + FEE };
    expect(await balance()).toEqual(held);

    const noComment = await cli('withdrawals', 'execute', id, '--fail', '--operator', 'bob', '--json');
    expect(noComment.status).toBe(2);
    expect(noComment.json().error.errors).toEqual([{ path: '--comment', message: 'is required' }]);
    const text = await cli('withdrawals', 'execute', id, '--fail', '--operator', 'bob');
    expect(text.status).toBe(2);
    expect(text.stderr).toContain('--comment');
    const blank = await cli('withdrawals', 'execute', id, '--fail', '--comment', '  ', '--operator', 'bob', '--json');
    expect(blank.status).toBe(2);
    expect(blank.json().error.errors[0].path).toBe('--comment');
    const unchanged = await stored(id);
    expect(unchanged).toMatchObject({ status: 'approved', executedBy: null, executedAt: null });
    expect(await balance()).toEqual(held);

    const failed = await cli(
      'withdrawals',
      'execute',
      id,
      '--fail',
      '--comment',
      'Bank returned it: account closed',
      '--operator',
      'bob',
      '--json',
    );
    expect(failed.status).toBe(0);
    expect(failed.json()).toMatchObject({
      status: 'failed',
      executionComment: 'Bank returned it: account closed',
      failureReason: 'Bank returned it: account closed',
      executedBy: op('bob'),
      failedBy: op('bob'),
    });
    expect(await balance()).toEqual(before);
  });

  test('execute --via-provider: the sandbox payout provider completes it with an sbpo_ reference', async () => {
    const before = await balance();
    const id = await requestWithdrawal(1999, { approve: true });
    const mixed = await cli('withdrawals', 'execute', id, '--via-provider', '--complete', '--json');
    expect(mixed.status).toBe(2);
    const sent = await cli('withdrawals', 'execute', id, '--via-provider', '--operator', 'bob', '--json');
    expect(sent.status).toBe(0);
    expect(sent.json()).toMatchObject({ id, status: 'completed', executedBy: op('bob'), completedBy: op('bob') });
    expect(sent.json().providerReference).toMatch(/^sbpo_/);
    expect(await balance()).toEqual({ available: before.available - 1999 - FEE, payable: before.payable });
  });

  test('another operator cannot take over an execution (409, exit 5); its own operator continues it', async () => {
    const id = await requestWithdrawal(1500, { approve: true });
    await withRuntimeOf(s.db, (rt) => startExecution(tenantOperator(rt, 'carol'), id));

    const [complete, fail, viaProvider] = await Promise.all([
      cli('withdrawals', 'execute', id, '--complete', '--reference', 'R-1', '--operator', 'dave', '--json'),
      cli('withdrawals', 'execute', id, '--fail', '--comment', 'not mine', '--operator', 'dave', '--json'),
      cli('withdrawals', 'execute', id, '--via-provider', '--operator', 'dave', '--json'),
    ]);
    for (const res of [complete, fail, viaProvider]) {
      expect(res.status).toBe(5);
      expect(res.json().error).toMatchObject({ code: 'EXECUTION_OWNED_BY_OTHER', status: 409 });
      expect(res.json().error.message).toContain(op('carol'));
    }
    expect(await stored(id)).toMatchObject({ status: 'executing', executedBy: op('carol') });

    const pending = await requestWithdrawal(1000);
    const notApproved = await cli('withdrawals', 'execute', pending, '--complete', '--reference', 'R-2', '--operator', 'carol', '--json');
    expect(notApproved.status).toBe(5);
    expect((await stored(pending)).status).toBe('pending');
    expect((await cli('withdrawals', 'cancel', pending, '--yes', '--json')).status).toBe(0);

    const mine = await cli('withdrawals', 'execute', id, '--complete', '--reference', 'R-1', '--operator', 'carol', '--json');
    expect(mine.status).toBe(0);
    expect(mine.json()).toMatchObject({ status: 'completed', executedBy: op('carol'), completedBy: op('carol'), providerReference: 'R-1' });
  });

  test('maker-checker: --operator tells the approver from the executor', async () => {
    await withRuntimeOf(s.db, (rt) => updateTenant(tenantOperator(rt), s.sandbox.tenantId, { withdrawalMakerChecker: true }));
    try {
      const id = await requestWithdrawal(1200);
      expect((await cli('withdrawals', 'approve', id, '--operator', 'gina', '--json')).status).toBe(0);
      const sameOperator = await cli('withdrawals', 'execute', id, '--complete', '--reference', 'R-3', '--operator', 'gina', '--json');
      expect(sameOperator.status).toBe(3);
      expect(sameOperator.json().error.code).toBe('MAKER_CHECKER_VIOLATION');
      expect(await stored(id)).toMatchObject({ status: 'approved', executedBy: null });
      const other = await cli('withdrawals', 'execute', id, '--complete', '--reference', 'R-3', '--operator', 'hugo', '--json');
      expect(other.status).toBe(0);
      expect(other.json()).toMatchObject({ status: 'completed', approvedBy: op('gina'), executedBy: op('hugo') });
    } finally {
      await withRuntimeOf(s.db, (rt) => updateTenant(tenantOperator(rt), s.sandbox.tenantId, { withdrawalMakerChecker: false }));
    }
  });

  describe('interactive execute on a pseudo-terminal', () => {
    const selectShown = 'Did the payout complete?';

    test('Ctrl-C and "Not yet" leave it executing; the same operator then records it as completed', async () => {
      const before = await balance();
      const id = await requestWithdrawal(4000, { approve: true });

      // Ctrl-C at the question exits 130, as at every prompt (test/cli/prompts.test.ts), saying the execution stays
      const interrupted = await onTerminal(
        ['withdrawals', 'execute', id, '--operator', 'erin'],
        [{ waitFor: selectShown, keys: [CTRL_C] }],
      );
      expect(interrupted.status).toBe(130);
      expect(interrupted.text).toContain('Interrupted.');
      // what the operator must pay, and to where: the full IBAN, the amount, the fee and the merchant
      expect(interrupted.text).toContain(TEST_IBAN);
      expect(interrupted.text).toContain('Sandbox Merchant GmbH');
      expect(interrupted.text).toMatch(/pay out\s+40\.00 EUR/);
      expect(interrupted.text).toMatch(/fee\s+0\.50 EUR/);
      expect(interrupted.text).toContain(`Sandbox Merchant (${s.sandbox.merchantId})`);
      expect(interrupted.text).toContain('stays executing');
      expect(await stored(id)).toMatchObject({ status: 'executing', executedBy: op('erin') });

      const later = await onTerminal(
        ['withdrawals', 'execute', id, '--operator', 'erin'],
        [{ waitFor: selectShown, keys: [DOWN, DOWN, ENTER] }],
      );
      expect(later.status).toBe(0);
      expect(later.text).toContain(TEST_IBAN);
      expect(later.text).toContain('stays executing');
      expect(await stored(id)).toMatchObject({ status: 'executing', executedBy: op('erin') });

      // another operator does not even see the destination: the execution is erin's
      const other = await onTerminal(['withdrawals', 'execute', id, '--operator', 'frank'], []);
      expect(other.status).toBe(5);
      expect(other.text).not.toContain(TEST_IBAN);
      expect(other.text).toContain(op('erin'));

      const completed = await onTerminal(
        ['withdrawals', 'execute', id, '--operator', 'erin'],
        [
          { waitFor: selectShown, keys: [ENTER] },
          { waitFor: 'Provider reference:', keys: ['BANK-REF-77', ENTER] },
          { waitFor: 'Comment (optional):', keys: ['sent from the EUR account', ENTER] },
        ],
      );
      expect(completed.status).toBe(0);
      expect(completed.text).toContain(TEST_IBAN);
      expect(completed.text).toMatch(/status\s+completed/);
      expect(await stored(id)).toMatchObject({
        status: 'completed',
        providerReference: 'BANK-REF-77',
        executionComment: 'sent from the EUR account',
        executedBy: op('erin'),
        completedBy: op('erin'),
      });
      expect(await balance()).toEqual({ available: before.available - 4000 - FEE, payable: before.payable });
    });

    test('Failed asks why (required) and returns the funds to available', async () => {
      const before = await balance();
      const id = await requestWithdrawal(2000, { approve: true });
      const failed = await onTerminal(
        ['withdrawals', 'execute', id, '--operator', 'erin'],
        [
          { waitFor: selectShown, keys: [DOWN, ENTER] },
          // an empty answer is refused by the prompt, which asks again
          { waitFor: 'Why did it fail?', keys: [ENTER] },
          { waitFor: 'You must provide a value', keys: ['Account closed at the bank', ENTER] },
        ],
      );
      expect(failed.status).toBe(0);
      expect(failed.text).toContain(TEST_IBAN);
      expect(failed.text).toMatch(/pay out\s+20\.00 EUR/);
      expect(failed.text).toMatch(/status\s+failed/);
      expect(await stored(id)).toMatchObject({
        status: 'failed',
        executionComment: 'Account closed at the bank',
        failureReason: 'Account closed at the bank',
        executedBy: op('erin'),
        failedBy: op('erin'),
      });
      expect(await balance()).toEqual(before);
    });

    test('with --json on a terminal the flags are required, as in a script', async () => {
      const id = await requestWithdrawal(1000, { approve: true });
      const res = await onTerminal(['withdrawals', 'execute', id, '--json'], []);
      expect(res.status).toBe(2);
      expect(res.text).toContain('--complete');
      expect(res.text).not.toContain(TEST_IBAN);
      expect((await stored(id)).status).toBe('approved');
    });
  });
});
