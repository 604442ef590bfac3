import { operatorContext } from '../../src/services/access/operators';
import { balancesOf } from '../../src/services/ledger/balances';
import { createApiKey } from '../../src/services/api-keys/keys';
import type { ApiHarness } from './api';
import { withRuntimeOf, type TestDatabase } from './db';
import { fundByAdjustment } from './funding';
import type { Runtime } from '../../src/runtime';
import { updateTenant } from '../../src/services/tenants/tenants';
import { createWithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { createWithdrawal } from '../../src/services/withdrawals';

/** A valid German IBAN (checksum 89). */
export const TEST_IBAN = 'DE89370400440532013000';

/** The sandbox merchant's balances in `currency` (zeros when it has none). */
export async function merchantBalance(h: ApiHarness, currency = 'EUR', merchantId = h.sandbox.merchantId) {
  const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  const [balance] = await balancesOf(ctx, { merchantId, currency });
  const of = (b: typeof balance | undefined, f: 'available' | 'payable' | 'pending' | 'reserved') => b?.[f].valueMinor ?? 0;
  return {
    available: of(balance, 'available'),
    payable: of(balance, 'payable'),
    pending: of(balance, 'pending'),
    reserved: of(balance, 'reserved'),
  };
}

/** Sets the sandbox tenant's withdrawal settings through the API (cooling hours, maker-checker). */
export async function withdrawalSettings(
  h: ApiHarness,
  settings: { withdrawalCoolingPeriodHours?: number | null; withdrawalMakerChecker?: boolean },
): Promise<void> {
  const res = await h.as(h.sandbox.tenantKey.secretKey).patch(`/v1/admin/tenants/${h.sandbox.tenantId}`, settings);
  if (res.status !== 200) throw new Error(`tenant settings: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Saves a bank_account method for the sandbox merchant (merchant key); active at once when the tenant's cooling is 0. */
export async function saveMethod(h: ApiHarness, label = 'Main account', iban = TEST_IBAN): Promise<{ id: string; status: string }> {
  const res = await h.as(h.sandbox.merchantKey.secretKey).post('/v1/merchant-withdrawal-methods', {
    methodType: 'bank_account',
    label,
    details: { iban, accountHolderName: 'Sandbox Merchant GmbH' },
  });
  if (res.status !== 201) throw new Error(`method: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Another tenant-owned sandbox key (another operator, for maker-checker and concurrent executions). */
export async function anotherTenantKey(h: ApiHarness, name = 'Second operator'): Promise<{ id: string; secretKey: string }> {
  const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  const key = await createApiKey(ctx, { name, ownerType: 'tenant', livemode: false });
  return { id: key.id, secretKey: key.secretKey };
}

/**
 * Withdrawals a CLI test can move at the terminal, on the sandbox `sb` of `db` (made by `payplane sandbox init`):
 * cooling off for the tenant, a saved bank account of the merchant, 1,000.00 EUR available. `requestWithdrawal`
 * requests one as the merchant (in process, an operator of the merchant's level), under keys `<prefix>-1`, `-2`, ….
 */
export async function withdrawalsOfSandbox(db: TestDatabase, sb: { tenantId: string; merchantId: string }, prefix: string) {
  const merchantOf = (rt: Runtime) =>
    operatorContext(rt, {
      level: 'merchant',
      tenantId: sb.tenantId,
      merchantId: sb.merchantId,
      livemode: false,
      operator: 'merchant-admin',
    });
  const methodId = await withRuntimeOf(db, async (rt) => {
    const tenant = operatorContext(rt, { level: 'tenant', tenantId: sb.tenantId, livemode: false });
    await updateTenant(tenant, sb.tenantId, { withdrawalCoolingPeriodHours: 0 });
    const { id } = await createWithdrawalMethod(merchantOf(rt), {
      methodType: 'bank_account',
      label: 'Main',
      details: { iban: TEST_IBAN, accountHolderName: 'Sandbox Merchant GmbH' },
    });
    await fundByAdjustment(tenant, {
      tenantId: sb.tenantId,
      merchantId: sb.merchantId,
      valueMinor: 100_000,
      sourceId: `${prefix}-funding`,
    });
    return id;
  });
  let requests = 0;
  const requestWithdrawal = (valueMinor: number) =>
    withRuntimeOf(db, async (rt) => {
      requests += 1;
      return (
        await createWithdrawal(
          merchantOf(rt),
          { amount: { currency: 'EUR', valueMinor }, withdrawalMethodId: methodId },
          `${prefix}-${requests}`,
        )
      ).id;
    });
  return { requestWithdrawal };
}
