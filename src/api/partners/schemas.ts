import { z } from '../zod';
import { refersTo } from '../references';
import { Currency, Email, FutureDateInput, Money, NullableTimestamp, Timestamp, listQuery } from '../common';

// Partners, partner assignments, channels and limit records.

const Uuid = z.string().uuid();
const Name = z.string().trim().min(1).max(200);
const TenantIdInput = refersTo('tenant', Uuid).optional().openapi({ description: 'The tenant of the new record: required for platform callers; a tenant caller may only name its own.' });
const Metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'must have at most 50 keys')
  .openapi({ description: 'String to string, at most 50 keys (40 characters) and values of 500 characters.' });

// Partners

const PartnerStatus = z.enum(['active', 'suspended', 'disabled']);

export const PartnerSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    name: z.string(),
    contactEmail: z.string().nullable(),
    status: PartnerStatus,
    metadata: z.record(z.string(), z.string()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('Partner', { description: 'A reseller or referrer of a tenant that earns a commission on the volume of the merchants assigned to it.' });

export const CreatePartnerBody = z
  .strictObject({ name: Name, contactEmail: Email.nullable().optional(), metadata: Metadata.optional(), tenantId: TenantIdInput })
  .openapi('CreatePartnerRequest');

export const UpdatePartnerBody = z
  .strictObject({
    name: Name.optional(),
    contactEmail: Email.nullable().optional(),
    metadata: Metadata.optional().openapi({ description: 'Replaces the whole map.' }),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one of name, contactEmail, metadata' })
  .openapi('UpdatePartnerRequest');

export const ListPartnersQuery = listQuery({
  status: PartnerStatus.optional(),
  tenantId: refersTo('tenant', Uuid).optional().openapi({ description: 'Platform callers: only this tenant\'s partners.' }),
});

// Partner assignments

const CommissionRate = z
  .number()
  .int('must be an integer number of millionths')
  .min(0)
  .max(1_000_000)
  .openapi({ description: 'Commission on the merchant\'s volume as a rate in millionths: 10000 is 1%, 1000000 is 100%.', example: 15000 });
const CommissionFixed = Money.refine((m) => m.valueMinor >= 0, { message: 'must not be negative', path: ['valueMinor'] }).openapi('CommissionFixed');

const AssignmentStatus = z.enum(['active', 'suspended']);
const COMMISSION_DESCRIPTION =
  'The commission is stored as a rate, not a fee schedule reference: commissionRate in millionths of the volume (10000 = 1%) plus an optional fixed amount per transaction (commissionFixed, Money). One active assignment per partner and merchant.';

export const PartnerAssignmentSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    partnerId: Uuid,
    merchantId: Uuid,
    commissionRate: z.number().int().openapi({ description: 'Millionths of the volume: 10000 is 1%.' }),
    commissionFixed: z.object({ currency: z.string(), valueMinor: z.number().int() }).strict().nullable().openapi({ description: 'Fixed amount per transaction, in minor units.' }),
    status: AssignmentStatus,
    effectiveFrom: Timestamp,
    effectiveTo: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('PartnerAssignment', { description: COMMISSION_DESCRIPTION });

const EffectiveFrom = FutureDateInput.openapi({ description: 'Start of the commission; default now.' });
const EffectiveTo = FutureDateInput.nullable().openapi({ description: 'End of the commission (after effectiveFrom); null for open-ended.' });

export const CreateAssignmentBody = z
  .strictObject({
    partnerId: refersTo('partner', Uuid),
    merchantId: refersTo('merchant', Uuid),
    commissionRate: CommissionRate,
    commissionFixed: CommissionFixed.nullable().optional(),
    effectiveFrom: EffectiveFrom.optional(),
    effectiveTo: EffectiveTo.optional(),
  })
  .openapi('CreatePartnerAssignmentRequest', { description: COMMISSION_DESCRIPTION });

export const UpdateAssignmentBody = z
  .strictObject({
    commissionRate: CommissionRate.optional(),
    commissionFixed: CommissionFixed.nullable().optional(),
    effectiveFrom: EffectiveFrom.optional(),
    effectiveTo: EffectiveTo.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one of commissionRate, commissionFixed, effectiveFrom, effectiveTo' })
  .openapi('UpdatePartnerAssignmentRequest');

export const ListAssignmentsQuery = listQuery({
  partnerId: refersTo('partner', Uuid).optional(),
  merchantId: refersTo('merchant', Uuid).optional(),
  status: AssignmentStatus.optional(),
  tenantId: refersTo('tenant', Uuid).optional().openapi({ description: 'Platform callers: only this tenant\'s assignments.' }),
});

// Channels

const Direction = z.enum(['payin', 'payout']);
const ChannelStatus = z.enum(['active', 'disabled']);
const Currencies = z.array(Currency).min(1).max(200);
const Description = z.string().max(1000).nullable();

export const ChannelSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    name: z.string(),
    direction: Direction,
    currencies: z.array(z.string()),
    providerIntegrationId: Uuid.nullable(),
    status: ChannelStatus,
    description: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('Channel', { description: 'A named processing route: pay-in or payout, in a set of currencies, through a provider integration.' });

const ProviderIntegrationId = refersTo('providerIntegration', Uuid).nullable().openapi({ description: 'The provider integration this channel routes through (stored as given until provider integrations land).' });

export const CreateChannelBody = z
  .strictObject({
    name: Name,
    direction: Direction,
    currencies: Currencies,
    providerIntegrationId: ProviderIntegrationId.optional(),
    description: Description.optional(),
    tenantId: TenantIdInput,
  })
  .openapi('CreateChannelRequest');

export const UpdateChannelBody = z
  .strictObject({
    name: Name.optional(),
    currencies: Currencies.optional().openapi({ description: 'Replaces the list.' }),
    providerIntegrationId: ProviderIntegrationId.optional(),
    description: Description.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one of name, currencies, providerIntegrationId, description' })
  .openapi('UpdateChannelRequest', { description: 'The direction of a channel is fixed at creation.' });

export const ListChannelsQuery = listQuery({
  direction: Direction.optional(),
  status: ChannelStatus.optional(),
  tenantId: refersTo('tenant', Uuid).optional().openapi({ description: 'Platform callers: only this tenant\'s channels.' }),
});

// Limits

const PeriodUnit = z.enum(['minute', 'hour', 'day', 'week', 'month']);
const Metric = z.enum(['volume', 'count']);
const TransactionType = z.enum(['payment', 'refund', 'payout', 'withdrawal']);
const Narrowing = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,49}$/, 'must be a lower-case identifier such as card or visa (letters, digits, _ and -; at most 50)');

const LIMIT_DESCRIPTION =
  'Caps, per period, the volume (sum of amounts) or count of transactions of its entity. threshold is a positive integer: for metric volume an amount in minor units of currency (currency then required), for metric count a number of transactions. currency, paymentMethod, brand and transactionType (default payment) narrow what is counted. Enforced: payment limits on checkout (merchant and channel limits refuse with 422 LIMIT_EXCEEDED; terminal limits make routing skip the terminal) and withdrawal limits on withdrawal requests (merchant and payout channel; rejected, canceled and failed withdrawals consume nothing). refund, payout and chargeback limits are kept but not enforced yet.';

export const LimitSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    entityId: Uuid,
    entityType: z.enum(['merchant', 'channel', 'terminal']),
    period: z.object({ value: z.number().int(), unit: PeriodUnit }).strict(),
    metric: Metric,
    threshold: z.number().int(),
    currency: z.string().nullable(),
    paymentMethod: z.string().nullable(),
    brand: z.string().nullable(),
    transactionType: TransactionType,
    status: z.enum(['active', 'disabled']),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('Limit', { description: LIMIT_DESCRIPTION });

export const CreateLimitBody = z
  .strictObject({
    period: z.strictObject({ value: z.number().int().min(1).max(1000), unit: PeriodUnit }),
    metric: Metric,
    threshold: z.number().int('must be an integer (minor units for volume, transactions for count)').positive().max(Number.MAX_SAFE_INTEGER),
    currency: Currency.nullable().optional().openapi({ description: 'Required for metric volume.' }),
    paymentMethod: Narrowing.nullable().optional(),
    brand: Narrowing.nullable().optional(),
    transactionType: TransactionType.optional().openapi({ description: 'Default payment.' }),
  })
  .openapi('CreateLimitRequest', { description: LIMIT_DESCRIPTION });

export const ListLimitsQuery = listQuery({ status: z.enum(['active', 'disabled']).optional() });

export const limitParams = z.object({
  id: z.string().min(1).openapi({ description: 'Owner id (uuid).' }),
  limitId: z.string().min(1).openapi({ description: 'Limit id (uuid).' }),
});
