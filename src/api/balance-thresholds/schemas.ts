import { z } from '../zod';
import { refersTo } from '../references';
import { Currency, Money, NullableTimestamp, Timestamp, Uuid, listQuery } from '../common';

// Balance thresholds: balance.threshold_reached when a merchant's balance crosses one.

export const THRESHOLD_BALANCE_TYPES = ['available', 'pending'] as const;
export const THRESHOLD_DIRECTIONS = ['above', 'below'] as const;

export const THRESHOLD_RULE =
  'A ledger posting that brings the merchant\'s balance of balanceType in the threshold\'s currency and mode to the amount or beyond it in its direction (above: balance ≥ amount; below: balance ≤ amount) raises balance.threshold_reached to the merchant\'s endpoints (data: the threshold, the balance, currency, the available and pending balances, the posting\'s source), once per crossing: crossed stays true until a posting brings the balance back (above: under the amount; below: over it), and only then can it be reached again. A threshold created while the balance is already beyond it starts crossed, without an event.';

export const BalanceThresholdSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    merchantId: Uuid,
    livemode: z.boolean(),
    currency: Currency,
    balanceType: z.enum(THRESHOLD_BALANCE_TYPES),
    direction: z.enum(THRESHOLD_DIRECTIONS),
    amount: Money.openapi({ description: 'The threshold, in the currency.' }),
    crossed: z.boolean().openapi({ description: 'The balance is at or beyond the threshold: no new event until it has come back.' }),
    crossedAt: NullableTimestamp.openapi({ description: 'When a posting last brought the balance to the threshold (the last balance.threshold_reached).' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('BalanceThreshold', { description: THRESHOLD_RULE });

const ThresholdAmount = z
  .strictObject({
    currency: Currency,
    valueMinor: z.number().int('must be an integer amount in minor units').positive('must be a positive amount in minor units').safe(),
  })
  .openapi({ description: 'A Money with a positive valueMinor: the threshold, its currency the balance\'s.' });

export const CreateBalanceThresholdBody = z
  .strictObject({
    merchantId: refersTo('merchant', Uuid).optional().openapi({ description: 'Required for tenant callers; a merchant caller sets its own.' }),
    balanceType: z.enum(THRESHOLD_BALANCE_TYPES),
    direction: z.enum(THRESHOLD_DIRECTIONS),
    amount: ThresholdAmount,
  })
  .openapi('CreateBalanceThresholdRequest', { description: THRESHOLD_RULE });

export const ListBalanceThresholdsQuery = listQuery({
  merchantId: refersTo('merchant', Uuid).optional().openapi({ description: 'Tenant callers: one merchant\'s thresholds. Merchant callers see their own only.' }),
  currency: Currency.optional(),
  balanceType: z.enum(THRESHOLD_BALANCE_TYPES).optional(),
  direction: z.enum(THRESHOLD_DIRECTIONS).optional(),
});
