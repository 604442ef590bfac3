import { useMoneyHarness, payWithCard } from '../helpers/money';
import { dialectName } from '../helpers/db';
import {
  ADYEN_PROVIDER,
  STRIPE_PROVIDER,
  acquirerConfig,
  attemptsOf,
  createAcquirerTerminal,
  pointProvider,
  priorityRule,
} from '../helpers/acquirers';
import { FakeStripe } from '../fakes/stripe';
import { AdyenFake } from '../fakes/adyen';
import { operatorContext } from '../../src/services/access/operators';
import { decideRoute, type RoutingInput } from '../../src/services/routing/decide';
import type { LedgerEntryRow } from '../../src/db/models';

/**
 * Orchestration across acquirers: one merchant, a Stripe terminal and an Adyen terminal (both on their local fakes) in
 * a priority rule [Stripe, Adyen], the merchant's integration profile cascading. A card Stripe soft-declines
 * (generic_decline: our card_declined) and Adyen approves (4111 1111 1111 1111) is captured at Adyen on a second
 * attempt; a hard decline (stolen_card, in the policy's neverRetryOn) is not sent on. The fee and the ledger entries do
 * not depend on the acquirer that took the money. Live and sandbox terminals never serve the other mode's payments.
 *
 * The routing dry run exists as the CLI `payplane routing-rules decide` (no /v1 operation), which prints
 * decideRoute's decision for the same input (test/cli/routing-cli.test.ts checks that): decideRoute is asked here.
 */

const stripe = new FakeStripe();
const liveStripe = new FakeStripe({ livemode: true });
const adyen = new AdyenFake();
const m = useMoneyHarness({ ledger: 'afterAll', config: acquirerConfig(2_000) });
const tenant = () => m.as(m.sandbox.tenantKey.secretKey);
let stripeTerminal: string;
let adyenTerminal: string;
let liveTerminal: string;
let ruleId: string;
let profileId: string;

const SOFT_AT_STRIPE_APPROVED_AT_ADYEN = '4111111111111111';
const STOLEN = '4000000000009979';

beforeAll(async () => {
  await Promise.all([stripe.start(), liveStripe.start(), adyen.start()]);
  await pointProvider(m, STRIPE_PROVIDER, stripe.baseUrl);
  await pointProvider(m, ADYEN_PROVIDER, adyen.baseUrl);
  stripeTerminal = await createAcquirerTerminal(m, STRIPE_PROVIDER, stripe.credentials, { name: 'Stripe (fake)' });
  adyenTerminal = await createAcquirerTerminal(m, ADYEN_PROVIDER, adyen.credentials(), {
    name: 'Adyen (fake)',
    supportedCurrencies: ['EUR'],
  });
  // a live Stripe terminal of the same tenant: never a candidate for a sandbox payment
  liveTerminal = await createAcquirerTerminal(m, STRIPE_PROVIDER, liveStripe.credentials, { name: 'Stripe live', livemode: true });
  // mastercard stays on the sandbox acquirer (the fee comparison), everything else goes Stripe then Adyen
  await priorityRule(m, [m.sandbox.terminalId], { name: 'Mastercard at the sandbox', priority: 5, conditions: { brands: ['mastercard'] } });
  ruleId = await priorityRule(m, [stripeTerminal, adyenTerminal, liveTerminal], { name: 'Stripe, then Adyen', priority: 10 });

  const profiles = await tenant().get(`/v1/admin/integration-profiles?merchantId=${m.sandbox.merchantId}`);
  const profile = profiles.body.data.find((p: { mode: string }) => p.mode === 'checkout') ?? profiles.body.data[0];
  profileId = profile.id;
  const patched = await tenant().patch(`/v1/admin/integration-profiles/${profileId}`, {
    cascadingEnabled: true,
    maxDeclineAttempts: 3,
    cascadePolicy: { neverRetryOn: ['stolen_card', 'lost_card'] },
  });
  if (patched.status !== 200) throw new Error(`profile: ${patched.status} ${JSON.stringify(patched.body)}`);
});
afterAll(async () => {
  await Promise.all([stripe.stop(), liveStripe.stop(), adyen.stop()]);
});

const visaInput = (): RoutingInput => ({
  merchantId: m.sandbox.merchantId,
  amount: { currency: 'EUR', valueMinor: 10_000 },
  paymentMethod: 'card',
  brand: 'visa',
  cardCountry: null,
  channelId: null,
  transactionType: 'payment',
  at: m.clock.now(),
});

async function entriesOf(paymentId: string): Promise<LedgerEntryRow[]> {
  const rows = await m.rt.db.models.LedgerEntry.findAll({ where: { sourceId: paymentId } as never });
  return rows.map((r) => r.get({ plain: true }) as LedgerEntryRow);
}

/** A payment's ledger entries as comparable across payments: account, owner (the provider's named as such), amount. */
async function bookedFor(paymentId: string) {
  const rows = await entriesOf(paymentId);
  return rows
    .map((r) => ({
      account: r.account,
      owner: r.ownerId === r.merchantId ? 'merchant' : r.account.startsWith('provider') ? 'provider' : r.ownerId,
      currency: r.currency,
      amountMinor: Number(r.amountMinor),
      sourceType: r.sourceType,
    }))
    .sort((a, b) => `${a.account}${a.amountMinor}`.localeCompare(`${b.account}${b.amountMinor}`));
}

describe(`cascading from Stripe to Adyen (${dialectName})`, () => {
  test('routing decide lists Stripe then Adyen; the live terminal is excluded as terminal_mode_mismatch', async () => {
    const ctx = operatorContext(m.rt, { level: 'tenant', tenantId: m.sandbox.tenantId, livemode: false });
    const decision = await decideRoute(ctx, visaInput());
    expect(decision).toMatchObject({ ruleId, strategy: 'priority', terminals: [stripeTerminal, adyenTerminal] });
    expect(decision.candidates.map((c) => [c.terminalId, c.providerIntegrationId, c.eligible])).toEqual([
      [stripeTerminal, STRIPE_PROVIDER, true],
      [adyenTerminal, ADYEN_PROVIDER, true],
      [liveTerminal, STRIPE_PROVIDER, false],
    ]);
    expect(decision.candidates[2]!.reasons).toEqual(['terminal_mode_mismatch']);

    // a live payment: only the live terminal; the sandbox ones (and the sandbox acquirer) are the other mode's
    const live = await decideRoute({ ...ctx, livemode: true }, visaInput());
    expect(live.terminals).toEqual([liveTerminal]);
    const reasons = Object.fromEntries(live.candidates.map((c) => [c.terminalId, c.reasons]));
    expect(reasons[stripeTerminal]).toEqual(['terminal_mode_mismatch']);
    expect(reasons[adyenTerminal]).toEqual(['terminal_mode_mismatch']);
    const sandboxLive = await decideRoute({ ...ctx, livemode: true }, { ...visaInput(), brand: 'mastercard' });
    expect(sandboxLive.terminals).toEqual([]);
    expect(sandboxLive.candidates[0]!.reasons).toEqual(['terminal_mode_mismatch', 'provider_sandbox_only']);
  });

  test("a soft decline at Stripe is captured at Adyen: two attempts, the first keeps Stripe's raw code", async () => {
    const paid = await payWithCard(m, SOFT_AT_STRIPE_APPROVED_AT_ADYEN);
    expect(paid.payment).toMatchObject({
      status: 'captured',
      terminalId: adyenTerminal,
      providerIntegrationId: ADYEN_PROVIDER,
      amountBreakdown: { captured: { valueMinor: 10_000 } },
    });
    expect(paid.payment.providerReference).toMatch(/^[0-9A-F]{16}$/);
    expect(paid.payment.routingDecision.terminals).toEqual([stripeTerminal, adyenTerminal]);
    const [first, second, ...more] = await attemptsOf(m, paid.paymentId);
    expect(more).toEqual([]);
    expect(first).toMatchObject({
      sequence: 1,
      terminalId: stripeTerminal,
      status: 'declined',
      declineCode: 'card_declined',
      providerDeclineCode: 'generic_decline',
    });
    expect(first!.providerReference).toMatch(/^pi_/);
    expect(second).toMatchObject({
      sequence: 2,
      terminalId: adyenTerminal,
      status: 'succeeded',
      providerReference: paid.payment.providerReference,
    });
    // each acquirer saw the card once, under the attempt's own reference
    expect(stripe.requestsTo('POST', '/v1/payment_intents').filter((r) => r.params.metadata.payplane_reference === first!.id)).toHaveLength(
      1,
    );
    expect(adyen.requestsTo(/\/payments$/).filter((r) => r.body.reference === second!.id)).toHaveLength(1);
    expect(await m.eventTypesAbout(paid.paymentId)).toEqual(expect.arrayContaining(['payment.captured']));
  });

  test('the same fee and the same ledger entries whichever acquirer took the money', async () => {
    const cascaded = await payWithCard(m, SOFT_AT_STRIPE_APPROVED_AT_ADYEN);
    const atStripe = await payWithCard(m, '4242424242424242');
    const atSandbox = await payWithCard(m, '5555555555554444');
    expect(cascaded.payment.terminalId).toBe(adyenTerminal);
    expect(atStripe.payment).toMatchObject({ status: 'captured', terminalId: stripeTerminal });
    expect(atSandbox.payment).toMatchObject({ status: 'captured', terminalId: m.sandbox.terminalId });
    const fees = [cascaded, atStripe, atSandbox].map((p) => ({ fee: p.payment.amountBreakdown.fee, feeBreakdown: p.payment.feeBreakdown }));
    expect(fees[0]!.fee.valueMinor).toBeGreaterThan(0);
    expect(fees[1]).toEqual(fees[0]);
    expect(fees[2]).toEqual(fees[0]);
    const booked = await bookedFor(cascaded.paymentId);
    expect(booked.length).toBeGreaterThan(0);
    expect(await bookedFor(atStripe.paymentId)).toEqual(booked);
    expect(await bookedFor(atSandbox.paymentId)).toEqual(booked);
  });

  test('a hard decline at Stripe (stolen_card), or a soft one the policy names in neverRetryOn, is not sent to Adyen', async () => {
    const adyenCalls = adyen.requestsTo(/\/payments$/).length;
    const paid = await payWithCard(m, STOLEN);
    expect(paid.payment).toMatchObject({ status: 'failed', errorCode: 'stolen_card', terminalId: stripeTerminal });
    const attempts = await attemptsOf(m, paid.paymentId);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ terminalId: stripeTerminal, declineCode: 'stolen_card', providerDeclineCode: 'stolen_card' });
    expect(adyen.requestsTo(/\/payments$/)).toHaveLength(adyenCalls);

    // a soft code the policy names in neverRetryOn stays at Stripe too
    const policy = (cascadePolicy: object) => tenant().patch(`/v1/admin/integration-profiles/${profileId}`, { cascadePolicy });
    expect((await policy({ neverRetryOn: ['stolen_card', 'lost_card', 'card_declined'] })).status).toBe(200);
    try {
      const kept = await payWithCard(m, SOFT_AT_STRIPE_APPROVED_AT_ADYEN);
      expect(kept.payment).toMatchObject({ status: 'failed', errorCode: 'card_declined', terminalId: stripeTerminal });
      expect(await attemptsOf(m, kept.paymentId)).toHaveLength(1);
      expect(adyen.requestsTo(/\/payments$/)).toHaveLength(adyenCalls);
    } finally {
      expect((await policy({ neverRetryOn: ['stolen_card', 'lost_card'] })).status).toBe(200);
    }
  });

  test('a soft decline at both acquirers fails after two attempts, the live terminal never tried', async () => {
    // 4000 0000 0000 0119: processing_error at Stripe, Error (Acquirer Error) at Adyen
    const paid = await payWithCard(m, '4000000000000119');
    expect(paid.payment).toMatchObject({ status: 'failed', errorCode: 'processing_error' });
    const attempts = await attemptsOf(m, paid.paymentId);
    expect(attempts.map((a) => [a.terminalId, a.status])).toEqual([
      [stripeTerminal, 'declined'], // Stripe's card_error processing_error
      [adyenTerminal, 'failed'], // Adyen's resultCode Error
    ]);
    expect(liveStripe.requestsTo('POST', '/v1/payment_intents')).toEqual([]);
  });
});
