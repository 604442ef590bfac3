import request from 'supertest';
import { useMoneyHarness, payWithCard } from '../helpers/money';
import { dialectName } from '../helpers/db';
import { ConnectorError, connectorFor, registerConnector, type ConnectorResult } from '../../src/connectors';
import type { PaymentRow } from '../../src/db/models';
import { newId } from '../../src/util/ids';
import { authorizationOutcome, notify, testAcquirer } from './test-acquirer';

/**
 * The return from a real acquirer's 3DS page (GET or POST /provider-returns/{attemptId}): the outcome read from the
 * acquirer (the test acquirer's completeAction, given what the return carried) and applied, then 303 to the merchant's
 * page; a repeated return asks the acquirer nothing again.
 */

const CARD = '4242424242424242';
const m = useMoneyHarness({ ledger: 'afterAll' });
const sandboxCard = connectorFor('sandbox-card');
const acquirer = testAcquirer(sandboxCard);

beforeAll(() => {
  acquirer.authorize = (r) => ({
    status: 'requires_action',
    providerReference: `pi_${r.reference}`,
    action: { type: 'redirect', url: `https://acquirer.example/3ds/${r.reference}` },
  });
  registerConnector('sandbox-card', acquirer.connector);
});
afterAll(() => registerConnector('sandbox-card', sandboxCard));

async function paymentRow(id: string): Promise<PaymentRow> {
  return (await m.rt.db.models.Payment.findByPk(id))!.get({ plain: true }) as PaymentRow;
}

/** A payment waiting for the customer on the acquirer's 3DS page. */
async function challenged(captureMethod: 'automatic' | 'manual' = 'automatic') {
  const { paymentId } = await payWithCard(m, CARD, { amount: 2_500, captureMethod, settle: false });
  const row = await paymentRow(paymentId);
  expect(row.status).toBe('requires_action');
  expect(row.returnUrl).toMatch(/^https:\/\/shop\.example\/ok/);
  return { paymentId, attemptId: row.currentAttemptId!, returnUrl: row.returnUrl!, providerReference: `pi_${row.currentAttemptId}` };
}

function answering(result: Omit<ConnectorResult, 'providerReference'>) {
  acquirer.completeAction = (r) => ({ providerReference: r.providerReference, ...result });
}

describe(`the return from an acquirer's 3DS page (${dialectName})`, () => {
  test('passed: the payment is captured and the customer sent on (303) to the merchant; a second return asks nothing again', async () => {
    answering({ status: 'succeeded' });
    const p = await challenged();
    const calls = acquirer.returns.length;
    const res = await request(m.app).get(`/provider-returns/${p.attemptId}?redirectResult=abc123&other=x`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(p.returnUrl);
    expect(acquirer.returns.slice(calls)).toEqual([
      {
        reference: p.attemptId,
        providerReference: p.providerReference,
        tenantId: m.sandbox.tenantId,
        livemode: false,
        params: { redirectResult: 'abc123', other: 'x' },
      },
    ]);
    expect(await paymentRow(p.paymentId)).toMatchObject({ status: 'captured', providerReference: p.providerReference });

    const again = await request(m.app).get(`/provider-returns/${p.attemptId}?redirectResult=abc123`);
    expect([again.status, again.headers.location]).toEqual([303, p.returnUrl]);
    expect(acquirer.returns.length).toBe(calls + 1);
  });

  test('passed on a manual-capture payment (a POSTed form): authorized, waiting for its capture', async () => {
    answering({ status: 'succeeded' });
    const p = await challenged('manual');
    const res = await request(m.app).post(`/provider-returns/${p.attemptId}`).type('form').send({ MD: 'md-value', PaRes: 'pares-value' });
    expect(res.status).toBe(303);
    expect(acquirer.returns.at(-1)!.params).toEqual({ MD: 'md-value', PaRes: 'pares-value' });
    expect((await paymentRow(p.paymentId)).status).toBe('requires_capture');
  });

  test('failed: the payment fails (no other terminal to cascade to), and the customer still goes back to the merchant', async () => {
    answering({ status: 'declined', declineCode: 'authentication_failed', message: '3DS authentication failed.' });
    const p = await challenged();
    const res = await request(m.app).get(`/provider-returns/${p.attemptId}`);
    expect([res.status, res.headers.location]).toEqual([303, p.returnUrl]);
    expect(await paymentRow(p.paymentId)).toMatchObject({ status: 'failed', errorCode: 'authentication_failed' });
  });

  test('failed with a soft decline and cascading on: the next terminal is tried (its own 3DS page), the customer back to the merchant', async () => {
    const tenant = () => m.as(m.sandbox.tenantKey.secretKey);
    const second = await tenant().post('/v1/admin/terminals', {
      providerIntegrationId: '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01',
      name: 'Second EU cards',
      credentials: { merchantAccount: 'SecondAccount', apiKey: 'apikey-second-terminal-0001' },
      supportedCurrencies: ['EUR', 'USD'],
      supportedBrands: ['visa', 'mastercard'],
    });
    expect(second.status).toBe(201);
    const profileId = (await tenant().get(`/v1/admin/integration-profiles?merchantId=${m.sandbox.merchantId}`)).body.data[0].id;
    expect(
      (await tenant().patch(`/v1/admin/integration-profiles/${profileId}`, { cascadingEnabled: true, maxDeclineAttempts: 2 })).status,
    ).toBe(200);
    try {
      answering({ status: 'declined', declineCode: 'do_not_honor' });
      const p = await challenged();
      const sent = acquirer.authorizations.length;
      const res = await request(m.app).get(`/provider-returns/${p.attemptId}`);
      expect([res.status, res.headers.location]).toEqual([303, p.returnUrl]);
      // the next attempt was sent, and waits on its own 3DS page
      expect(acquirer.authorizations.length).toBe(sent + 1);
      const payment = await paymentRow(p.paymentId);
      expect(payment.status).toBe('requires_action');
      expect(payment.currentAttemptId).not.toBe(p.attemptId);
      const attempts = await m.rt.db.models.PaymentAttempt.findAll({
        where: { paymentId: p.paymentId },
        order: [['sequence', 'ASC']],
        raw: true,
      });
      expect(attempts.map((a) => (a as unknown as { status: string }).status)).toEqual(['declined', 'requires_action']);
      // the next attempt's return completes it
      answering({ status: 'succeeded' });
      expect((await request(m.app).get(`/provider-returns/${payment.currentAttemptId}`)).status).toBe(303);
      expect((await paymentRow(p.paymentId)).status).toBe('captured');
      // the declined attempt's own return asks nothing
      const calls = acquirer.returns.length;
      expect((await request(m.app).get(`/provider-returns/${p.attemptId}`)).status).toBe(303);
      expect(acquirer.returns.length).toBe(calls);
    } finally {
      await tenant().patch(`/v1/admin/integration-profiles/${profileId}`, { cascadingEnabled: false });
      await tenant().post(`/v1/admin/terminals/${second.body.data.id}/disable`);
    }
  });

  test('still pending at the acquirer: left for its notification, which settles it; then a return asks nothing', async () => {
    answering({ status: 'pending' });
    const p = await challenged();
    const calls = acquirer.returns.length;
    expect((await request(m.app).get(`/provider-returns/${p.attemptId}`)).status).toBe(303);
    expect((await paymentRow(p.paymentId)).status).toBe('requires_action');
    expect(acquirer.returns.length).toBe(calls + 1);
    const approved = await notify(m.app, m.sandbox.terminalId, [authorizationOutcome(`evt_${newId()}`, p.providerReference, p.attemptId)]);
    expect(approved.status).toBe(200);
    expect((await paymentRow(p.paymentId)).status).toBe('captured');
    expect((await request(m.app).get(`/provider-returns/${p.attemptId}`)).status).toBe(303);
    expect(acquirer.returns.length).toBe(calls + 1);
  });

  test('an acquirer out of reach: the payment is left as it is (for its notification), the customer still sent on', async () => {
    acquirer.completeAction = () => {
      throw new ConnectorError('timed out', true);
    };
    const p = await challenged();
    const res = await request(m.app).get(`/provider-returns/${p.attemptId}`);
    expect([res.status, res.headers.location]).toEqual([303, p.returnUrl]);
    expect(await paymentRow(p.paymentId)).toMatchObject({ status: 'requires_action', currentAttemptId: p.attemptId });
  });

  test("an answer about another authorization (the return's fields are the customer's) is not applied", async () => {
    acquirer.completeAction = () => ({ status: 'succeeded', providerReference: 'pi_someone_else' });
    const p = await challenged();
    const res = await request(m.app).get(`/provider-returns/${p.attemptId}?redirectResult=borrowed`);
    expect([res.status, res.headers.location]).toEqual([303, p.returnUrl]);
    expect(await paymentRow(p.paymentId)).toMatchObject({ status: 'requires_action', providerReference: p.providerReference });
  });

  test('without a returnUrl: a small page of ours; an unknown attempt: a 404 page', async () => {
    answering({ status: 'succeeded' });
    const p = await challenged();
    await m.rt.db.models.Payment.update({ returnUrl: null }, { where: { id: p.paymentId } });
    const res = await request(m.app).get(`/provider-returns/${p.attemptId}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('The payment was processed.');
    expect((await paymentRow(p.paymentId)).status).toBe('captured');

    for (const id of [newId(), 'not-an-attempt']) {
      const missing = await request(m.app).get(`/provider-returns/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.text).toContain('Payment not found');
    }
  });
});
