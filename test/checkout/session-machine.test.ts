import fs from 'node:fs';
import path from 'node:path';
import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { systemContext } from '../../src/domain/authority';
import { withTransaction, type CallerContext } from '../../src/domain/context';
import type { CheckoutSessionRow } from '../../src/db/models';
import { moveSession, SESSION_STATUS } from '../../src/services/checkout/record';
import { recordSessionPayment } from '../../src/services/checkout/payment-report';
import { expireRow } from '../../src/services/checkout/expiry';
import { getSessionForPayment } from '../../src/services/checkout/sessions';

// A checkout session's status moves only through its declared machine (SESSION_STATUS and transition()): a move the
// machine refuses is its 409 and writes nothing; every move is audited by the record's helper and announces its event.

let merchantKey: string;

const BASE = '/v1/checkout-sessions';
const PAYMENT = '55555555-5555-4555-8555-555555555555';

const h = useApiHarness();
beforeAll(async () => {
  merchantKey = h.sandbox.merchantKey.secretKey;
});

const sys = () => systemContext(h.rt, false);
/** runs `work` in a transaction of the system context, as the payment path and the expiry job do */
const inTx = <T>(work: (tx: CallerContext) => Promise<T>) =>
  h.rt.db.transaction((transaction) => work(withTransaction(sys(), transaction)));

const auditOf = async (targetId: string) =>
  (
    await h.rt.db.models.AuditEntry.findAll({
      where: { targetId },
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
    })
  ).map((r) => r.get({ plain: true }));
const eventsOf = async (sessionId: string) =>
  (
    await h.rt.db.models.Event.findAll({
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
    })
  )
    .map((r) => r.get({ plain: true }))
    .filter((e) => (e.data as { id?: string }).id === sessionId);

async function create(): Promise<string> {
  const res = await h.as(merchantKey).post(BASE, { amount: { currency: 'EUR', valueMinor: 1500 } });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

describe(`the checkout session's status machine (${dialectName})`, () => {
  test('declares every status a session has: open -> complete, open -> expired', () => {
    const moves = Object.entries(SESSION_STATUS.moves).map(([name, m]) => ({ name, from: m.from, to: m.to, action: m.action }));
    expect(moves).toEqual([
      { name: 'complete', from: ['open'], to: 'complete', action: 'checkout_session.completed' },
      { name: 'expire', from: ['open'], to: 'expired', action: 'checkout_session.expired' },
    ]);
  });

  test('expire: audited (before open, after expired) and announced, expiredAt set', async () => {
    const id = await create();
    const res = await h.as(merchantKey).post(`${BASE}/${id}/expire`);
    expect(res.status).toBe(200);
    const audit = await auditOf(id);
    expect(audit.map((a) => a.action)).toEqual(['checkout_session.created', 'checkout_session.expired']);
    expect(audit[1]).toMatchObject({ targetType: 'checkout_session', before: { status: 'open' }, after: { status: 'expired' } });
    const events = await eventsOf(id);
    expect(events.map((e) => e.type)).toEqual(['checkout.session.created', 'checkout.session.expired']);
    expect(events[1].data).toMatchObject({ object: 'checkout.session', id, status: 'expired' });
    expect((await getSessionForPayment(sys(), id)).expiredAt).not.toBeNull();
  });

  test('complete: the approved payment completes the session in one audited move, announced, completedAt set', async () => {
    const id = await create();
    await recordSessionPayment(sys(), id, { paymentId: PAYMENT, paymentStatus: 'captured' });
    const audit = await auditOf(id);
    expect(audit.map((a) => a.action)).toEqual(['checkout_session.created', 'checkout_session.completed']);
    expect(audit[1]).toMatchObject({
      before: { status: 'open', paymentId: null, paymentStatus: null },
      after: { status: 'complete', paymentId: PAYMENT, paymentStatus: 'captured' },
    });
    const events = await eventsOf(id);
    expect(events.map((e) => e.type)).toEqual(['checkout.session.created', 'checkout.session.completed']);
    expect(events[1].data).toMatchObject({ id, status: 'complete', paymentStatus: 'captured' });
    expect((await getSessionForPayment(sys(), id)).completedAt).not.toBeNull();
  });

  test('a move the machine refuses is its 409 and writes nothing', async () => {
    const paid = await create();
    await recordSessionPayment(sys(), paid, { paymentId: PAYMENT, paymentStatus: 'captured' });
    const expired = await create();
    expect((await h.as(merchantKey).post(`${BASE}/${expired}/expire`)).status).toBe(200);
    const before = { paid: (await auditOf(paid)).length, expired: (await auditOf(expired)).length };

    expectProblem(await h.as(merchantKey).post(`${BASE}/${paid}/expire`), 409, 'CHECKOUT_SESSION_COMPLETE');
    expectProblem(await h.as(merchantKey).post(`${BASE}/${expired}/expire`), 409, 'CHECKOUT_SESSION_EXPIRED');
    const move = (id: string, name: 'complete' | 'expire') => inTx(async (tx) => moveSession(tx, await getSessionForPayment(tx, id), name));
    await expect(move(paid, 'complete')).rejects.toMatchObject({ status: 409, code: 'CHECKOUT_SESSION_COMPLETE' });
    await expect(move(expired, 'complete')).rejects.toMatchObject({ status: 409, code: 'CHECKOUT_SESSION_EXPIRED' });
    await expect(move(paid, 'expire')).rejects.toMatchObject({ status: 409, code: 'CHECKOUT_SESSION_COMPLETE' });

    expect({ paid: (await auditOf(paid)).length, expired: (await auditOf(expired)).length }).toEqual(before);
    expect((await eventsOf(paid)).map((e) => e.type)).toEqual(['checkout.session.created', 'checkout.session.completed']);
    expect((await eventsOf(expired)).map((e) => e.type)).toEqual(['checkout.session.created', 'checkout.session.expired']);
  });

  test('a payment in flight holds the session: expire refused (409); a move read before the payment started loses its race', async () => {
    const id = await create();
    const stale: CheckoutSessionRow = await getSessionForPayment(sys(), id);
    await recordSessionPayment(sys(), id, { paymentId: PAYMENT, paymentStatus: 'processing' });
    expectProblem(await h.as(merchantKey).post(`${BASE}/${id}/expire`), 409, 'CHECKOUT_PAYMENT_IN_FLIGHT');
    // read while open with no payment: the move is allowed from its status, but the row no longer matches
    await expect(inTx((tx) => moveSession(tx, stale, 'expire'))).rejects.toMatchObject({ status: 409, code: 'CHECKOUT_SESSION_CHANGED' });
    const row = await getSessionForPayment(sys(), id);
    expect(row).toMatchObject({ status: 'open', paymentStatus: 'processing' });
    // the expiry job's move: skipped, nothing written
    expect(await inTx((tx) => expireRow(tx, stale))).toBeNull();
    expect((await auditOf(id)).map((a) => a.action)).toEqual(['checkout_session.created', 'checkout_session.payment_updated']);
    expect((await eventsOf(id)).map((e) => e.type)).toEqual(['checkout.session.created']);
  });

  test('no code of the checkout area writes a session status but the machine', () => {
    const dir = path.join(__dirname, '../../src/services/checkout');
    const writes = fs
      .readdirSync(dir)
      .filter((file) => file !== 'record.ts')
      .flatMap((file) =>
        fs
          .readFileSync(path.join(dir, file), 'utf8')
          .split('\n')
          .map((line, i) => ({ at: `${file}:${i + 1}`, line }))
          .filter(({ line }) => /\bstatus: '(complete|expired)'/.test(line)),
      );
    expect(writes).toEqual([]);
  });
});
