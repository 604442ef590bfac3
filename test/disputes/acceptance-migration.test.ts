import { useMoneyHarness, payWithCard } from '../helpers/money';
import { dialectName } from '../helpers/db';

/**
 * Migration 0033_dispute_acquirer: disputes accepted before acceptances were sent to the acquirer are taken as sent
 * (at their closing), so the dispute-deadlines job does not send every past acceptance after the upgrade.
 */

const m = useMoneyHarness();

describe(`migration 0033_dispute_acquirer (${dialectName})`, () => {
  test('a dispute accepted before it is taken as sent at its closing; an open one is left alone', async () => {
    const merchant = m.as(m.sandbox.merchantKey.secretKey);
    const disputeOf = async (paymentId: string) =>
      (await merchant.get(`/v1/disputes?paymentId=${paymentId}`)).body.data[0] as { id: string };
    const accepted = await disputeOf((await payWithCard(m, '4000 0000 0000 0259', { amount: 3_000 })).paymentId);
    const open = await disputeOf((await payWithCard(m, '4000 0000 0000 0259', { amount: 2_000 })).paymentId);
    expect((await merchant.post(`/v1/disputes/${accepted.id}/accept`)).status).toBe(200);

    const migrator = m.rt.db.migrator();
    const names = (await migrator.executed()).map((x) => x.name);
    await migrator.down({ to: '0033_dispute_acquirer' });
    await migrator.up({ to: names[names.length - 1] });

    const rows = async () =>
      (await m.rt.db.models.Dispute.findAll({ where: { id: [accepted.id, open.id] }, raw: true })) as unknown as Array<{
        id: string;
        closedAt: Date | null;
        acceptanceSentAt: Date | null;
      }>;
    const byId = new Map((await rows()).map((r) => [r.id, r]));
    const was = byId.get(accepted.id)!;
    expect(was.acceptanceSentAt).not.toBeNull();
    expect(new Date(was.acceptanceSentAt!).getTime()).toBe(new Date(was.closedAt!).getTime());
    expect(byId.get(open.id)!.acceptanceSentAt).toBeNull();
  });
});
