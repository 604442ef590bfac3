import { useMoneyHarness, payWithCard } from '../helpers/money';
import { createSecondMerchant, expectProblem } from '../helpers/api';
import { expectLedgerInvariant } from '../helpers/ledger';
import { storedEvents } from '../helpers/events';
import { operatorContext } from '../../src/services/access/operators';
import { processingContext } from '../../src/domain/authority';
import { balancesOf } from '../../src/services/ledger/balances';
import { createSandbox } from '../../src/services/sandbox/provision';
import {
  SUBMISSION_STALL_MS,
  acceptDispute,
  decideDispute,
  expireDueDisputes,
  openDispute,
  resendStalledAcceptances,
  resendStalledSubmissions,
  submitDispute,
} from '../../src/services/disputes/disputes';
import { disputeDeadlinesJob } from '../../src/jobs/dispute-deadlines';
import { backgroundJobs } from '../../src/jobs';
import type { DisputeRow, LedgerEntryRow } from '../../src/db/models';
import type { SandboxOperationRow } from '../../src/db/models/sandbox';
import { ConnectorError, connectorFor, registerConnector, type Connector } from '../../src/connectors';
import { newId } from '../../src/util/ids';

/**
 * Disputes end to end on the sandbox acquirer (answering at once, through its asynchronous path): the dispute cards
 * are captured and then disputed; evidence, submission, the acquirer's decision, acceptance and the evidence deadline;
 * the ledger (amount + fee debited, the amount back when won, balance.negative), refunds of a disputed payment, and
 * who sees what.
 */

const FRAUD_CARD = '4000 0000 0000 0259';
const NOT_RECEIVED_CARD = '4000 0000 0000 2685';
const SUCCESS_CARD = '4242424242424242';
const FEE = 1500;

const m = useMoneyHarness({ ledger: 'afterAll' });
const merchant = () => m.as(m.sandbox.merchantKey.secretKey);
const tenant = () => m.as(m.sandbox.tenantKey.secretKey);
/** a platform user's token, issued now (the clock moves past a token's lifetime in these tests) */
const platform = async () => m.as((await m.rt.tokens.issue(m.sandbox.platformUserId, 3600, false)).token);
const tenantCtx = () => operatorContext(m.rt, { level: 'tenant', tenantId: m.sandbox.tenantId, livemode: false });

async function available(currency = 'EUR'): Promise<number> {
  const [balance] = await balancesOf(tenantCtx(), { merchantId: m.sandbox.merchantId, currency });
  return balance?.available.valueMinor ?? 0;
}

async function disputeOf(paymentId: string) {
  const res = await merchant().get(`/v1/disputes?paymentId=${paymentId}`);
  expect(res.status).toBe(200);
  expect(res.body.data).toHaveLength(1);
  return res.body.data[0];
}

async function entriesOf(sourceId: string): Promise<LedgerEntryRow[]> {
  return (await m.rt.db.models.LedgerEntry.findAll({ where: { sourceId } })).map((r) => r.get({ plain: true }) as LedgerEntryRow);
}

describe('the sandbox dispute cards', () => {
  test('4000 0000 0000 0259 is captured, then disputed as fraudulent: amount + 15.00 EUR fee debited from available; won evidence credits the amount back', async () => {
    const before = await available();
    const { paymentId, payment } = await payWithCard(m, FRAUD_CARD, { amount: 10_000 });
    expect(payment.status).toBe('captured');
    const dispute = await disputeOf(paymentId);
    expect(dispute).toMatchObject({
      paymentId,
      merchantId: m.sandbox.merchantId,
      tenantId: m.sandbox.tenantId,
      livemode: false,
      reason: 'fraudulent',
      status: 'needs_response',
      amount: { currency: 'EUR', valueMinor: 10_000 },
      fee: { currency: 'EUR', valueMinor: FEE },
      evidence: {},
      submittedAt: null,
      closedAt: null,
      closedReason: null,
    });
    // merchants see no provider details nor the fee's split; tenants do
    expect(dispute).not.toHaveProperty('providerReference');
    expect(dispute).not.toHaveProperty('feeBreakdown');
    const asTenant = (await tenant().get(`/v1/disputes/${dispute.id}`)).body.data;
    expect(asTenant.providerReference).toMatch(/^sbxdp_/);
    expect(asTenant.feeBreakdown).toMatchObject({ merchantFee: FEE, tenantFee: FEE });
    expect(new Date(dispute.evidenceDueBy).getTime()).toBeGreaterThan(m.clock.now().getTime() + 6 * 86_400_000);

    expect(await available()).toBe(before - 10_000 - FEE);
    const opening = await entriesOf(dispute.id);
    expect(opening.every((e) => e.sourceType === 'dispute')).toBe(true);
    expect(opening.find((e) => e.account === 'merchant_available')?.amountMinor).toBe(-(10_000 + FEE));
    expect(opening.find((e) => e.account === 'provider_clearing')?.amountMinor).toBe(10_000);
    expect(opening.find((e) => e.account === 'tenant_revenue')?.amountMinor).toBe(FEE);
    // the balance went below zero: balance.negative to tenant endpoints, naming the dispute
    const negative = await storedEvents(m.rt, { type: 'balance.negative' }, (d) => d.disputeId === dispute.id);
    expect(negative).toHaveLength(1);
    expect(negative[0].data).toMatchObject({ reason: 'dispute', paymentId, merchantId: m.sandbox.merchantId, currency: 'EUR' });

    // evidence while needs_response (dispute.updated), then submitted (under_review); the acquirer decides: won
    const patched = await merchant().patch(`/v1/disputes/${dispute.id}`, {
      evidence: { productDescription: 'A blue bicycle', customerName: 'Ada' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.evidence).toEqual({ productDescription: 'A blue bicycle', customerName: 'Ada' });
    const submitted = await merchant().post(`/v1/disputes/${dispute.id}/submit`, {
      evidence: { uncategorizedText: 'signed delivery: winning_evidence', customerName: '' },
    });
    expect(submitted.status).toBe(200);
    expect(submitted.body.data).toMatchObject({
      status: 'under_review',
      evidence: { productDescription: 'A blue bicycle', uncategorizedText: 'signed delivery: winning_evidence' },
    });
    expect(submitted.body.data.evidence).not.toHaveProperty('customerName');
    expect(submitted.body.data.submittedAt).toBe(m.clock.now().toISOString());
    await m.settle();
    const won = (await merchant().get(`/v1/disputes/${dispute.id}`)).body.data;
    expect(won).toMatchObject({ status: 'won', closedReason: 'acquirer_won', closedAt: expect.any(String) });
    // the amount back, the fee stays
    expect(await available()).toBe(before - FEE);
    const reversal = (await entriesOf(dispute.id)).filter((e) => e.sourceType === 'dispute_reversal');
    expect(reversal.find((e) => e.account === 'merchant_available')?.amountMinor).toBe(10_000);
    expect(reversal.find((e) => e.account === 'provider_clearing')?.amountMinor).toBe(-10_000);

    // the merchant endpoint got each event, its data the dispute as the merchant sees it
    // (delivered in parallel: in any order)
    const types = m
      .events()
      .filter((e) => e.data.id === dispute.id)
      .map((e) => e.type)
      .sort();
    expect(types).toEqual(['dispute.created', 'dispute.updated', 'dispute.updated', 'dispute.won']);
    const created = m.events().find((e) => e.type === 'dispute.created' && e.data.id === dispute.id)!;
    expect(created.data).toMatchObject({
      object: 'dispute',
      status: 'needs_response',
      amount: { currency: 'EUR', valueMinor: 10_000 },
      fee: { currency: 'EUR', valueMinor: FEE },
    });
    expect(created.data).not.toHaveProperty('providerReference');
    expect(created.data).not.toHaveProperty('feeBreakdown');

    // the audit trail of the moves
    const audit = await tenant().get(`/v1/audit-entries?targetId=${dispute.id}&limit=50`);
    expect(audit.status).toBe(200);
    expect(audit.body.data.map((a: { action: string }) => a.action).sort()).toEqual(
      ['dispute.created', 'dispute.submitted', 'dispute.updated', 'dispute.won'].sort(),
    );
    await expectLedgerInvariant(m.rt);
  });

  test('4000 0000 0000 2685 is disputed as product_not_received; losing evidence loses it and nothing more is posted', async () => {
    const { paymentId } = await payWithCard(m, NOT_RECEIVED_CARD, { amount: 4_000, currency: 'USD' });
    const dispute = await disputeOf(paymentId);
    expect(dispute).toMatchObject({
      reason: 'product_not_received',
      status: 'needs_response',
      amount: { currency: 'USD', valueMinor: 4_000 },
      fee: { currency: 'USD', valueMinor: FEE },
    });
    const afterOpening = await available('USD');
    const res = await tenant().post(`/v1/disputes/${dispute.id}/submit`, {
      evidence: { uncategorizedText: 'we have losing_evidence only' },
    });
    expect(res.status).toBe(200);
    await m.settle();
    expect((await merchant().get(`/v1/disputes/${dispute.id}`)).body.data).toMatchObject({ status: 'lost', closedReason: 'acquirer_lost' });
    expect(await available('USD')).toBe(afterOpening);
    expect((await entriesOf(dispute.id)).every((e) => e.sourceType === 'dispute')).toBe(true);
    expect(
      m
        .events()
        .filter((e) => e.data.id === dispute.id)
        .map((e) => e.type)
        .sort(),
    ).toEqual(['dispute.created', 'dispute.lost', 'dispute.updated']);
    // a lost dispute keeps its amount from refunds: the payment is wholly disputed
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/refunds`, {}), 409, 'PAYMENT_DISPUTED');
  });

  test('evidence that says nothing either way wins; a manual capture is disputed once captured', async () => {
    const { paymentId, payment } = await payWithCard(m, FRAUD_CARD, { amount: 8_000, captureMethod: 'manual' });
    expect(payment.status).toBe('requires_capture');
    expect((await merchant().get(`/v1/disputes?paymentId=${paymentId}`)).body.data).toEqual([]);
    expect((await merchant().post(`/v1/payments/${paymentId}/capture`, { amount: { currency: 'EUR', valueMinor: 6_000 } })).status).toBe(
      200,
    );
    await m.settle();
    const dispute = await disputeOf(paymentId);
    expect(dispute.amount).toEqual({ currency: 'EUR', valueMinor: 6_000 });
    expect(
      (await merchant().post(`/v1/disputes/${dispute.id}/submit`, { evidence: { refundPolicy: 'No refunds after 30 days' } })).status,
    ).toBe(200);
    await m.settle();
    expect((await merchant().get(`/v1/disputes/${dispute.id}`)).body.data.status).toBe('won');
  });

  test('accept concedes: lost, dispute.lost, nothing posted; moves from any other state are 409', async () => {
    const { paymentId } = await payWithCard(m, FRAUD_CARD, { amount: 3_000 });
    const dispute = await disputeOf(paymentId);
    const before = await available();
    const accepted = await merchant().post(`/v1/disputes/${dispute.id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ status: 'lost', closedReason: 'accepted', closedAt: m.clock.now().toISOString() });
    expect(await available()).toBe(before);
    expectProblem(await merchant().post(`/v1/disputes/${dispute.id}/accept`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await merchant().post(`/v1/disputes/${dispute.id}/submit`, {}), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await merchant().patch(`/v1/disputes/${dispute.id}`, { evidence: { customerName: 'Ada' } }), 409, 'DISPUTE_NOT_EDITABLE');

    // under review: neither editable nor acceptable, nor submitted twice
    const second = await disputeOf((await payWithCard(m, FRAUD_CARD, { amount: 3_100 })).paymentId);
    const under = await merchant().post(`/v1/disputes/${second.id}/submit`, { evidence: { uncategorizedText: 'winning_evidence' } });
    expect(under.body.data.status).toBe('under_review');
    expectProblem(await merchant().post(`/v1/disputes/${second.id}/submit`, {}), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await merchant().post(`/v1/disputes/${second.id}/accept`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await merchant().patch(`/v1/disputes/${second.id}`, { evidence: { customerName: 'Ada' } }), 409, 'DISPUTE_NOT_EDITABLE');
    await m.settle();
  });

  test('two submits at once: one moves it, the other is 409', async () => {
    const dispute = await disputeOf((await payWithCard(m, FRAUD_CARD, { amount: 3_150 })).paymentId);
    const answers = await Promise.all(
      [0, 1].map(() => merchant().post(`/v1/disputes/${dispute.id}/submit`, { evidence: { uncategorizedText: 'winning_evidence' } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(await storedEvents(m.rt, { type: 'dispute.updated' }, (d) => d.id === dispute.id)).toHaveLength(1);
    await m.settle();
    expect((await merchant().get(`/v1/disputes/${dispute.id}`)).body.data.status).toBe('won');
  });

  test('an Idempotency-Key replays the first submit', async () => {
    const dispute = await disputeOf((await payWithCard(m, FRAUD_CARD, { amount: 3_200 })).paymentId);
    const body = { evidence: { uncategorizedText: 'winning_evidence' } };
    const first = await merchant().post(`/v1/disputes/${dispute.id}/submit`, body).set('Idempotency-Key', `submit-${dispute.id}`);
    const again = await merchant().post(`/v1/disputes/${dispute.id}/submit`, body).set('Idempotency-Key', `submit-${dispute.id}`);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expectProblem(
      await merchant()
        .post(`/v1/disputes/${dispute.id}/submit`, { evidence: { uncategorizedText: 'other' } })
        .set('Idempotency-Key', `submit-${dispute.id}`),
      409,
      'IDEMPOTENCY_KEY_REUSED',
    );
    await m.settle();
  });
});

describe('the acquirer refusing the evidence', () => {
  const sandboxCard = connectorFor('sandbox-card');
  afterEach(() => registerConnector('sandbox-card', sandboxCard));

  test('a refusal returns the dispute to needs_response (422 DISPUTE_EVIDENCE_REFUSED); an unreachable acquirer too (503); then it can be submitted again', async () => {
    const dispute = await disputeOf((await payWithCard(m, FRAUD_CARD, { amount: 3_300 })).paymentId);
    const refusing = Object.create(sandboxCard) as Connector;
    refusing.disputeEvidence = async () => ({
      status: 'declined',
      providerReference: null,
      declineCode: 'too_late',
      message: 'The evidence window closed.',
    });
    registerConnector('sandbox-card', refusing);
    const refused = await merchant().post(`/v1/disputes/${dispute.id}/submit`, { evidence: { uncategorizedText: 'winning_evidence' } });
    expectProblem(refused, 422, 'DISPUTE_EVIDENCE_REFUSED');
    expect((await merchant().get(`/v1/disputes/${dispute.id}`)).body.data).toMatchObject({
      status: 'needs_response',
      submittedAt: null,
      evidence: { uncategorizedText: 'winning_evidence' },
    });

    const unreachable = Object.create(sandboxCard) as Connector;
    unreachable.disputeEvidence = async () => {
      throw new ConnectorError('timed out', true);
    };
    registerConnector('sandbox-card', unreachable);
    expectProblem(await merchant().post(`/v1/disputes/${dispute.id}/submit`, {}), 503, 'PROVIDER_UNAVAILABLE');
    expect((await merchant().get(`/v1/disputes/${dispute.id}`)).body.data.status).toBe('needs_response');

    registerConnector('sandbox-card', sandboxCard);
    expect((await merchant().post(`/v1/disputes/${dispute.id}/submit`, {})).body.data.status).toBe('under_review');
    await m.settle();
    expect((await merchant().get(`/v1/disputes/${dispute.id}`)).body.data.status).toBe('won');
    const audit = await tenant().get(`/v1/audit-entries?targetId=${dispute.id}&limit=50`);
    expect(audit.body.data.filter((a: { action: string }) => a.action === 'dispute.submission_refused')).toHaveLength(2);
  });

  test('a submission whose sending died with its process is sent again by the dispute-deadlines job', async () => {
    const dispute = await disputeOf((await payWithCard(m, FRAUD_CARD, { amount: 3_350 })).paymentId);
    const dying = Object.create(sandboxCard) as Connector;
    dying.disputeEvidence = async () => {
      throw new Error('process died');
    };
    registerConnector('sandbox-card', dying);
    await expect(
      submitDispute(
        operatorContext(m.rt, { level: 'merchant', tenantId: m.sandbox.tenantId, merchantId: m.sandbox.merchantId, livemode: false }),
        dispute.id,
        { evidence: { uncategorizedText: 'losing_evidence' } },
      ),
    ).rejects.toThrow('process died');
    registerConnector('sandbox-card', sandboxCard);
    expect((await merchant().get(`/v1/disputes/${dispute.id}`)).body.data.status).toBe('under_review');
    expect(await resendStalledSubmissions(m.rt)).toBe(0); // not stalled yet
    m.clock.advance(SUBMISSION_STALL_MS + 1_000);
    const job = disputeDeadlinesJob.start(m.rt);
    await job.stop();
    expect(await resendStalledSubmissions(m.rt)).toBe(0); // sent once
    await m.settle();
    expect((await merchant().get(`/v1/disputes/${dispute.id}`)).body.data).toMatchObject({ status: 'lost', closedReason: 'acquirer_lost' });
  });

  test('the database holds at most one open dispute per payment (a partial unique index)', async () => {
    const dispute = await disputeOf((await payWithCard(m, FRAUD_CARD, { amount: 3_400 })).paymentId);
    const row = (await m.rt.db.models.Dispute.findByPk(dispute.id))!.get({ plain: true }) as unknown as DisputeRow;
    const copy = { ...row, id: newId(), providerReference: `copy_${newId()}` };
    await expect(m.rt.db.models.Dispute.create(copy)).rejects.toThrow();
    // a closed one may sit beside it
    await m.rt.db.models.Dispute.create({ ...copy, status: 'lost' });
    expect(await m.rt.db.models.Dispute.count({ where: { paymentId: dispute.paymentId } })).toBe(2);
    await m.rt.db.models.Dispute.destroy({ where: { id: copy.id }, force: true });
  });
});

/** The sandbox acquirer's own record of what it heard about a dispute (kind dispute_acceptance, dispute_decision, dispute_deadline). */
async function acquirerHeard(kind: string, reference: string): Promise<SandboxOperationRow | null> {
  const row = await m.rt.db.models.SandboxOperation.findOne({ where: { kind, reference } });
  return row ? (row.get({ plain: true }) as SandboxOperationRow) : null;
}

async function rowOf(id: string): Promise<DisputeRow> {
  return (await m.rt.db.models.Dispute.findByPk(id))!.get({ plain: true }) as unknown as DisputeRow;
}

const merchantCtx = () =>
  operatorContext(m.rt, { level: 'merchant', tenantId: m.sandbox.tenantId, merchantId: m.sandbox.merchantId, livemode: false });

describe('accepting tells the acquirer', () => {
  const sandboxCard = connectorFor('sandbox-card');
  afterEach(() => registerConnector('sandbox-card', sandboxCard));

  test('an acceptance is sent to the acquirer once the move committed: it closes the dispute on its side and calls off its deadline decision', async () => {
    const dispute = await disputeOf((await payWithCard(m, FRAUD_CARD, { amount: 3_500 })).paymentId);
    expect(await acquirerHeard('dispute_acceptance', dispute.id)).toBeNull();
    const accepted = await merchant().post(`/v1/disputes/${dispute.id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ status: 'lost', closedReason: 'accepted', acquirerOutcome: null });
    expect(await acquirerHeard('dispute_acceptance', dispute.id)).toMatchObject({ tenantId: m.sandbox.tenantId, status: 'done' });
    expect((await rowOf(dispute.id)).acceptanceSentAt).not.toBeNull();
    // the acquirer's deadline decision is called off: past the deadline nothing more arrives
    expect(await acquirerHeard('dispute_deadline', (await rowOf(dispute.id)).providerReference)).toMatchObject({
      status: 'done',
      lastError: 'answered before the deadline',
    });
    expect(await resendStalledAcceptances(m.rt)).toBe(0);
  });

  test('an acquirer that cannot be reached, or a sending that died with its process: the acceptance holds and the dispute-deadlines job sends it again, once', async () => {
    const unreachable = await disputeOf((await payWithCard(m, FRAUD_CARD, { amount: 3_550 })).paymentId);
    const dying = await disputeOf((await payWithCard(m, FRAUD_CARD, { amount: 3_560 })).paymentId);
    const timingOut = Object.create(sandboxCard) as Connector;
    timingOut.disputeAccept = async () => {
      throw new ConnectorError('timed out', true);
    };
    registerConnector('sandbox-card', timingOut);
    const answer = await merchant().post(`/v1/disputes/${unreachable.id}/accept`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ status: 'lost', closedReason: 'accepted' });
    const killed = Object.create(sandboxCard) as Connector;
    killed.disputeAccept = async () => {
      throw new Error('process died');
    };
    registerConnector('sandbox-card', killed);
    await expect(acceptDispute(merchantCtx(), dying.id)).rejects.toThrow('process died');
    registerConnector('sandbox-card', sandboxCard);
    for (const id of [unreachable.id, dying.id]) {
      expect(await rowOf(id)).toMatchObject({ status: 'lost', closedReason: 'accepted', acceptanceSentAt: null });
      expect(await acquirerHeard('dispute_acceptance', id)).toBeNull();
    }
    expect(await storedEvents(m.rt, { type: 'dispute.lost' }, (d) => d.id === dying.id)).toHaveLength(1);
    expect(await resendStalledAcceptances(m.rt)).toBe(0); // not stalled yet
    m.clock.advance(SUBMISSION_STALL_MS + 1_000);
    const job = disputeDeadlinesJob.start(m.rt);
    await job.stop();
    for (const id of [unreachable.id, dying.id]) {
      expect((await rowOf(id)).acceptanceSentAt).not.toBeNull();
      expect(await acquirerHeard('dispute_acceptance', id)).toMatchObject({ status: 'done' });
    }
    expect(await resendStalledAcceptances(m.rt)).toBe(0); // sent once
    expect(await storedEvents(m.rt, { type: 'dispute.lost' }, (d) => d.id === dying.id)).toHaveLength(1);
  });

  test('an acceptance the acquirer refuses is kept (the merchant conceded), recorded in the audit trail and not sent again', async () => {
    const dispute = await disputeOf((await payWithCard(m, FRAUD_CARD, { amount: 3_570 })).paymentId);
    const refusing = Object.create(sandboxCard) as Connector;
    refusing.disputeAccept = async () => ({
      status: 'declined',
      providerReference: null,
      declineCode: 'dispute_closed',
      message: 'Closed already.',
    });
    registerConnector('sandbox-card', refusing);
    expect((await merchant().post(`/v1/disputes/${dispute.id}/accept`)).body.data).toMatchObject({
      status: 'lost',
      closedReason: 'accepted',
    });
    registerConnector('sandbox-card', sandboxCard);
    expect((await rowOf(dispute.id)).acceptanceSentAt).not.toBeNull();
    const audit = await tenant().get(`/v1/audit-entries?targetId=${dispute.id}&limit=50`);
    expect(audit.body.data.map((a: { action: string }) => a.action)).toContain('dispute.acceptance_refused');
    m.clock.advance(SUBMISSION_STALL_MS + 1_000);
    expect(await resendStalledAcceptances(m.rt)).toBe(0);
  });
});

describe('a decision for a dispute already closed', () => {
  test('is kept on the dispute, audited and told to the tenant (dispute.late_decision); the status and the money stay; delivered again, nothing more', async () => {
    const dispute = await disputeOf((await payWithCard(m, FRAUD_CARD, { amount: 3_600 })).paymentId);
    expect((await merchant().post(`/v1/disputes/${dispute.id}/accept`)).status).toBe(200);
    const before = await available();
    const entries = (await entriesOf(dispute.id)).length;
    const pctx = processingContext(m.rt, m.sandbox.tenantId, false);
    const late = await decideDispute(pctx, { dispute, outcome: 'won' });
    expect(late).toMatchObject({ status: 'lost', closedReason: 'accepted', acquirerOutcome: 'won' });
    expect(await available()).toBe(before);
    expect(await entriesOf(dispute.id)).toHaveLength(entries);
    const shown = (await tenant().get(`/v1/disputes/${dispute.id}`)).body.data;
    expect(shown).toMatchObject({ status: 'lost', acquirerOutcome: 'won', acquirerDecidedAt: m.clock.now().toISOString() });
    const told = await storedEvents(m.rt, { type: 'dispute.late_decision' }, (d) => d.id === dispute.id);
    expect(told).toHaveLength(1);
    expect(told[0].data).toMatchObject({ status: 'lost', closedReason: 'accepted', acquirerOutcome: 'won' });
    const audit = await tenant().get(`/v1/audit-entries?targetId=${dispute.id}&limit=50`);
    expect(audit.body.data.filter((a: { action: string }) => a.action === 'dispute.late_decision')).toHaveLength(1);
    // the same decision delivered again changes nothing
    await decideDispute(pctx, { dispute, outcome: 'won' });
    expect(await storedEvents(m.rt, { type: 'dispute.late_decision' }, (d) => d.id === dispute.id)).toHaveLength(1);
    await m.settle();
    // tenant-level: the merchant's endpoint never gets it
    expect(m.events().some((e) => e.type === 'dispute.late_decision')).toBe(false);
  });

  test('the sandbox acquirer closes a dispute nobody answered at its deadline: when the job lost it first, that decision is kept as late', async () => {
    const dispute = await disputeOf((await payWithCard(m, NOT_RECEIVED_CARD, { amount: 3_650 })).paymentId);
    m.clock.set(new Date(new Date(dispute.evidenceDueBy).getTime() + 1_000));
    expect(await expireDueDisputes(m.rt)).toBeGreaterThanOrEqual(1);
    expect(await rowOf(dispute.id)).toMatchObject({ status: 'lost', closedReason: 'evidence_deadline', acquirerOutcome: null });
    await m.settle();
    expect(await rowOf(dispute.id)).toMatchObject({ status: 'lost', closedReason: 'evidence_deadline', acquirerOutcome: 'lost' });
    expect(await storedEvents(m.rt, { type: 'dispute.late_decision' }, (d) => d.id === dispute.id)).toHaveLength(1);
    expect(await storedEvents(m.rt, { type: 'dispute.lost' }, (d) => d.id === dispute.id)).toHaveLength(1);
    // the acquirer's deadline decision was delivered, not called off
    expect(await acquirerHeard('dispute_deadline', (await rowOf(dispute.id)).providerReference)).toMatchObject({
      status: 'done',
      lastError: null,
    });
  });
});

describe('the evidence deadline', () => {
  test('the dispute-deadlines job loses a needs_response dispute past evidenceDueBy, once, by the injected clock', async () => {
    expect(backgroundJobs).toContain(disputeDeadlinesJob);
    const open = await disputeOf((await payWithCard(m, NOT_RECEIVED_CARD, { amount: 2_000 })).paymentId);
    const reviewed = await disputeOf((await payWithCard(m, NOT_RECEIVED_CARD, { amount: 2_100 })).paymentId);
    // under review (the acquirer's decision not delivered yet): the deadline no longer applies
    expect(
      (await merchant().post(`/v1/disputes/${reviewed.id}/submit`, { evidence: { uncategorizedText: 'winning_evidence' } })).status,
    ).toBe(200);
    // not yet due
    let job = disputeDeadlinesJob.start(m.rt);
    await job.stop();
    expect((await merchant().get(`/v1/disputes/${open.id}`)).body.data.status).toBe('needs_response');

    m.clock.set(new Date(new Date(open.evidenceDueBy).getTime() + 60_000));
    job = disputeDeadlinesJob.start(m.rt);
    await job.stop();
    const lost = (await merchant().get(`/v1/disputes/${open.id}`)).body.data;
    expect(lost).toMatchObject({ status: 'lost', closedReason: 'evidence_deadline' });
    expect((await merchant().get(`/v1/disputes/${reviewed.id}`)).body.data.status).toBe('under_review');
    // once: two more runs (as two processes) close nothing
    expect(await Promise.all([expireDueDisputes(m.rt), expireDueDisputes(m.rt)])).toEqual([0, 0]);
    expect(await storedEvents(m.rt, { type: 'dispute.lost' }, (d) => d.id === open.id)).toHaveLength(1);
    await m.settle();
    expect((await merchant().get(`/v1/disputes/${reviewed.id}`)).body.data.status).toBe('won');
  });
});

describe('the connector interface and refunds of a disputed payment', () => {
  test("openDispute and decideDispute are idempotent on the acquirer's reference; refunds stop at what the dispute left (409 PAYMENT_DISPUTED)", async () => {
    const { paymentId, payment } = await payWithCard(m, SUCCESS_CARD, { amount: 10_000 });
    const pctx = processingContext(m.rt, m.sandbox.tenantId, false);
    const input = {
      paymentId,
      amount: { currency: 'EUR', valueMinor: 4_000 },
      reason: 'duplicate',
      providerReference: `ext_${paymentId}`,
      evidenceDueBy: new Date(m.clock.now().getTime() + 86_400_000),
    };
    const first = await openDispute(pctx, input);
    const again = await openDispute(pctx, input);
    expect(again.id).toBe(first.id);
    expect(await entriesOf(first.id)).toHaveLength(3);
    // a second open dispute of the payment is refused
    await expect(openDispute(pctx, { ...input, providerReference: `ext2_${paymentId}` })).rejects.toMatchObject({
      code: 'DISPUTE_ALREADY_OPEN',
    });
    // captured 10,000; disputed 4,000: 6,000 remain refundable
    expectProblem(
      await merchant().post(`/v1/payments/${paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 6_001 } }),
      409,
      'PAYMENT_DISPUTED',
    );
    expectProblem(
      await merchant().post(`/v1/payments/${paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 10_001 } }),
      422,
      'REFUND_EXCEEDS_REFUNDABLE',
    );
    expect((await merchant().post(`/v1/payments/${paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 5_000 } })).status).toBe(
      201,
    );
    await m.settle();
    expectProblem(
      await merchant().post(`/v1/payments/${paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 1_001 } }),
      409,
      'PAYMENT_DISPUTED',
    );
    // won: the disputed amount is refundable again; a decision delivered twice changes nothing
    const won = await decideDispute(pctx, { dispute: first, outcome: 'won' });
    expect(won.status).toBe('won');
    expect((await decideDispute(pctx, { dispute: first, outcome: 'lost' })).status).toBe('won');
    // a different decision after it: kept (acquirerOutcome) and told to the tenant, the money as it was
    expect(await storedEvents(m.rt, { type: 'dispute.late_decision' }, (d) => d.id === first.id)).toHaveLength(1);
    expect((await entriesOf(first.id)).filter((e) => e.sourceType === 'dispute_reversal')).toHaveLength(2);
    expect((await merchant().post(`/v1/payments/${paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 5_000 } })).status).toBe(
      201,
    );
    await m.settle();
    expect(payment.status).toBe('captured');
    await expectLedgerInvariant(m.rt);
  });
});

describe('reads, filters, validation and visibility', () => {
  let disputeId: string;
  let paymentId: string;
  beforeAll(async () => {
    ({ paymentId } = await payWithCard(m, FRAUD_CARD, { amount: 5_000 }));
    disputeId = (await disputeOf(paymentId)).id;
  });

  test('lists filter by status, paymentId, merchantId and reason, newest first, with cursor pagination', async () => {
    const all = await tenant().get('/v1/disputes?limit=100');
    expect(all.status).toBe(200);
    expect(all.body.data.length).toBeGreaterThan(5);
    expect(all.body.data[0].id).toBe(disputeId);
    const open = await tenant().get('/v1/disputes?status=needs_response&limit=100');
    expect(open.body.data.every((d: { status: string }) => d.status === 'needs_response')).toBe(true);
    expect(open.body.data.map((d: { id: string }) => d.id)).toContain(disputeId);
    const fraud = await tenant().get(`/v1/disputes?reason=product_not_received&merchantId=${m.sandbox.merchantId}&limit=100`);
    expect(fraud.body.data.length).toBeGreaterThan(0);
    expect(fraud.body.data.every((d: { reason: string }) => d.reason === 'product_not_received')).toBe(true);
    const page1 = await merchant().get('/v1/disputes?limit=2');
    expect(page1.body.pagination.hasMore).toBe(true);
    const page2 = await merchant().get(`/v1/disputes?limit=2&cursor=${page1.body.pagination.nextCursor}`);
    expect(page2.status).toBe(200);
    expect(page2.body.data[0].id).not.toBe(page1.body.data[0].id);
    expect((await (await platform()).get(`/v1/disputes/${disputeId}`)).status).toBe(200);
  });

  test('bad input is a 400 naming the field', async () => {
    expectProblem(await merchant().get('/v1/disputes?status=open'), 400);
    expectProblem(await merchant().get('/v1/disputes?reason=bored'), 400);
    expectProblem(await merchant().get('/v1/disputes?paymentId=nope'), 400);
    const unknown = await merchant().patch(`/v1/disputes/${disputeId}`, { evidence: { shoeSize: '42' } });
    expectProblem(unknown, 400);
    expect(JSON.stringify(unknown.body.errors)).toContain('evidence');
    expectProblem(await merchant().patch(`/v1/disputes/${disputeId}`, { evidence: { customerName: 42 } }), 400);
    expectProblem(await merchant().patch(`/v1/disputes/${disputeId}`, { evidence: { customerName: 'x'.repeat(20_001) } }), 400);
    expectProblem(await merchant().patch(`/v1/disputes/${disputeId}`, {}), 400);
    expectProblem(await merchant().post(`/v1/disputes/${disputeId}/submit`, { evidence: 'all of it' }), 400);
    expect((await merchant().get(`/v1/disputes/${disputeId}`)).body.data.evidence).toEqual({});
  });

  test('another merchant and another tenant get 404; the platform may read but not answer', async () => {
    const other = await createSecondMerchant(m, 'Dispute bystander');
    const bystander = m.as(other.secretKey);
    expectProblem(await bystander.get(`/v1/disputes/${disputeId}`), 404);
    expectProblem(await bystander.post(`/v1/disputes/${disputeId}/accept`), 404);
    expectProblem(await bystander.patch(`/v1/disputes/${disputeId}`, { evidence: { customerName: 'x' } }), 404);
    expect((await bystander.get('/v1/disputes')).body.data).toEqual([]);
    const stranger = await createSandbox(m.rt, { name: 'Dispute stranger' });
    expectProblem(await m.as(stranger.tenantKey.secretKey).get(`/v1/disputes/${disputeId}`), 404);
    expectProblem(await m.as(stranger.tenantKey.secretKey).post(`/v1/disputes/${disputeId}/submit`, {}), 404);
    expect((await m.as(stranger.tenantKey.secretKey).get('/v1/disputes')).body.data).toEqual([]);
    expectProblem(await (await platform()).post(`/v1/disputes/${disputeId}/accept`), 403);
    expectProblem(await m.as('sk_test_nonsense').get('/v1/disputes'), 401);
    expect((await merchant().get(`/v1/disputes/${disputeId}`)).body.data.status).toBe('needs_response');
  });
});
