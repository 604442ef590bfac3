import { z } from '../zod';
import { refersTo } from '../references';
import { tenantOnly } from '../visibility';
import { Email, FutureDateInput, Money, NullableTimestamp, Timestamp, listQuery, Uuid, RecordName as Name } from '../common';

// Partners and partner assignments.

const TenantIdInput = refersTo('tenant', Uuid)
  .optional()
  .openapi({ description: 'The tenant of the new record: required for platform callers; a tenant caller may only name its own.' });
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
  .openapi('Partner', {
    description: 'A reseller or referrer of a tenant that earns a commission on the volume of the merchants assigned to it.',
  });

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
  tenantId: refersTo('tenant', Uuid).optional().openapi({ description: "Platform callers: only this tenant's partners." }),
});

// Partner assignments

const CommissionRate = z
  .number()
  .int('must be an integer number of millionths')
  .min(0)
  .max(1_000_000)
  .openapi({ description: "Commission on the merchant's volume as a rate in millionths: 10000 is 1%, 1000000 is 100%.", example: 15000 });
const CommissionFixed = Money.refine((m) => m.valueMinor >= 0, { message: 'must not be negative', path: ['valueMinor'] }).openapi(
  'CommissionFixed',
);

const AssignmentStatus = z.enum(['active', 'suspended']);
const COMMISSION_DESCRIPTION =
  'The commission is stored as a rate, not a fee schedule reference: commissionRate in millionths of the volume (10000 = 1%) plus an optional fixed amount per transaction (commissionFixed, Money). One active assignment per partner and merchant.';

export const PartnerAssignmentSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    partnerId: Uuid,
    merchantId: Uuid,
    commissionRate: tenantOnly(z.number().int(), 'Millionths of the volume: 10000 is 1%.'),
    commissionFixed: z
      .object({ currency: z.string(), valueMinor: z.number().int() })
      .strict()
      .nullable()
      .openapi({ description: 'Fixed amount per transaction, in minor units.' }),
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
const EffectiveTo = FutureDateInput.nullable().openapi({
  description: 'End of the commission (after effectiveFrom); null for open-ended.',
});

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
  .refine((b) => Object.keys(b).length > 0, {
    message: 'provide at least one of commissionRate, commissionFixed, effectiveFrom, effectiveTo',
  })
  .openapi('UpdatePartnerAssignmentRequest');

export const ListAssignmentsQuery = listQuery({
  partnerId: refersTo('partner', Uuid).optional(),
  merchantId: refersTo('merchant', Uuid).optional(),
  status: AssignmentStatus.optional(),
  tenantId: refersTo('tenant', Uuid).optional().openapi({ description: "Platform callers: only this tenant's assignments." }),
});
