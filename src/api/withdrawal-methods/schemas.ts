import { z } from '../zod';
import { refersTo } from '../references';
import { NullableTimestamp, Timestamp, listQuery, queryBoolean, Uuid } from '../common';
import { DETAIL_FORMATS } from '../../services/withdrawal-methods/types';

// Withdrawal method types (the catalog) and merchants' saved withdrawal methods.

export const WITHDRAWAL_METHOD_STATUSES = ['cooling', 'active', 'suspended'] as const;

const MASKING =
  'Details are masked in every read: a masked detail (IBAN, account number) shows only its last characters behind bullets (••••••••••••••••••3000); the full value is kept sealed and is never shown back.';

export const COOLING_RULE =
  "A new method, and a method given new details, is `cooling` until activatesAt = now + the tenant's withdrawalCoolingPeriodHours (default 24 h; 0 makes it `active` at once); it becomes `active` then, and only an active method can be paid to.";

export const WithdrawalDetailSpecSchema = z
  .object({
    key: z.string().openapi({ description: 'The key of the details object.', example: 'iban' }),
    label: z.string(),
    required: z.boolean(),
    format: z.enum(DETAIL_FORMATS).openapi({
      description:
        'iban: country code, length per country and mod-97 check digits (spaces allowed, stored upper-case without them); bic: 8 or 11 characters; aba_routing: 9 digits with the 3-7-1 check digit; digits: digits only, within minLength..maxLength; enum: one of values; text: free text up to maxLength.',
    }),
    masked: z.boolean().openapi({ description: 'Shown masked (last characters only) in every read.' }),
    minLength: z.number().int().optional(),
    maxLength: z.number().int().optional(),
    values: z.array(z.string()).optional().openapi({ description: 'The allowed values of an enum detail.' }),
  })
  .strict()
  .openapi('WithdrawalDetailSpec');

export const WithdrawalMethodTypeSchema = z
  .object({
    type: z.string().openapi({ description: 'The catalog key, given as methodType.', example: 'bank_account' }),
    name: z.string(),
    description: z.string(),
    currencies: z.array(z.string()).openapi({ description: 'Currencies a withdrawal to this type may be in; empty: any.' }),
    requiredDetails: z.array(z.string()).openapi({ description: 'The detail keys a method of this type must give.' }),
    details: z.array(WithdrawalDetailSpecSchema).openapi({ description: 'Every detail key the type takes, with how it is checked.' }),
  })
  .strict()
  .openapi('WithdrawalMethodType');

const Details = z.record(z.string(), z.string());

export const WithdrawalMethodSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    merchantId: Uuid,
    livemode: z.boolean(),
    methodType: z.string().openapi({ description: 'A catalog type key (GET /v1/withdrawal-method-types).' }),
    label: z.string(),
    details: Details.openapi({ description: MASKING }),
    status: z.enum(WITHDRAWAL_METHOD_STATUSES),
    activatesAt: NullableTimestamp.openapi({ description: 'When the cooling period of the current details ends (kept once active).' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('MerchantWithdrawalMethod', { description: `${COOLING_RULE} ${MASKING}` });

const Label = z.string().trim().min(1).max(200);
const DetailsInput = z
  .record(z.string().min(1).max(64), z.string().max(256))
  .refine((d) => Object.keys(d).length <= 32, 'must have at most 32 keys')
  .openapi({
    description:
      'The detail keys of the type (string to string), e.g. { "iban": "DE89 3704 0044 0532 0130 00", "accountHolderName": "Jane Doe" }.',
  });

export const CreateWithdrawalMethodBody = z
  .strictObject({
    methodType: z.string().min(1).max(64).openapi({ description: 'A catalog type key.', example: 'bank_account' }),
    label: Label,
    details: DetailsInput,
    merchantId: refersTo('merchant', Uuid)
      .optional()
      .openapi({ description: 'Required for tenant callers; a merchant caller saves its own.' }),
  })
  .openapi('CreateWithdrawalMethodRequest');

export const UpdateWithdrawalMethodBody = z
  .strictObject({
    label: Label.optional(),
    details: DetailsInput.optional().openapi({
      description: 'The complete new details; when they differ from the current ones, cooling restarts.',
    }),
  })
  .refine((b) => b.label !== undefined || b.details !== undefined, { message: 'provide label, details or both' })
  .openapi('UpdateWithdrawalMethodRequest');

export const ListWithdrawalMethodsQuery = listQuery({
  merchantId: refersTo('merchant', Uuid).optional(),
  methodType: z.string().min(1).max(64).optional().openapi({ description: 'A catalog type key.' }),
  status: z.enum(WITHDRAWAL_METHOD_STATUSES).optional(),
  livemode: queryBoolean.optional().openapi({ description: "Accepted for compatibility: rows always belong to the caller's mode." }),
});
