import { useApiHarness } from '../helpers/api';
import { expectLedgerInvariant } from '../helpers/ledger';
import { operatorContext } from '../../src/services/access/operators';
import { inTransaction } from '../../src/domain/context';
import { resolveFees } from '../../src/services/fees/schedules';
import { balancesOf } from '../../src/services/ledger/balances';
import { postCapture } from '../../src/services/ledger/postings/capture';
import { ledgerReleaseJob } from '../../src/jobs/ledger-release';
import { backgroundJobs } from '../../src/jobs';
import { newId } from '../../src/util/ids';

const h = useApiHarness();

test('the ledger-release job of serve moves due pending funds when it starts and stops cleanly', async () => {
  expect(backgroundJobs).toContain(ledgerReleaseJob);
  const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  const breakdown = await resolveFees(ctx, {
    type: 'payment',
    outcome: 'successful',
    amount: { currency: 'EUR', valueMinor: 2500 },
    method: 'card',
    merchantId: h.sandbox.merchantId,
    at: h.clock.now(),
  });
  await inTransaction(ctx, (t) =>
    postCapture(t, {
      tenantId: h.sandbox.tenantId,
      livemode: false,
      merchantId: h.sandbox.merchantId,
      paymentId: newId(),
      providerIntegrationId: newId(),
      partnerId: null,
      breakdown,
      availableImmediately: false,
    }),
  );
  // not yet due: a run moves nothing
  let job = ledgerReleaseJob.start(h.rt);
  await job.stop();
  const [before] = await balancesOf(ctx, { merchantId: h.sandbox.merchantId });
  expect(before.pending.valueMinor).toBe(breakdown.net);
  expect(before.available.valueMinor).toBe(0);

  h.clock.advance(h.rt.config.holdingPeriodHours * 3_600_000);
  job = ledgerReleaseJob.start(h.rt);
  await job.stop();
  const [after] = await balancesOf(ctx, { merchantId: h.sandbox.merchantId });
  expect(after.pending.valueMinor).toBe(0);
  expect(after.available.valueMinor).toBe(breakdown.net);
  await expectLedgerInvariant(h.rt);
});
