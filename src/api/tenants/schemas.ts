import { z } from '../zod';
import { Country, Currency, Email, Locale, NullableTimestamp, Timestamp, listQuery } from '../common';

const TenantStatus = z.enum(['active', 'suspended', 'disabled']);

const WebUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);

export const TenantSchema = z
  .object({
    id: z.string().uuid(),
    tenantId: z.string().uuid(),
    platformId: z.string().uuid(),
    livemode: z.boolean().openapi({ description: 'false for a sandbox-only tenant, which cannot hold live keys.' }),
    name: z.string(),
    status: TenantStatus,
    defaultCurrency: z.string().nullable(),
    defaultLocale: z.string().nullable(),
    allowedCurrencies: z.array(z.string()),
    allowedCountries: z.array(z.string()),
    featureFlags: z.record(z.string(), z.boolean()),
    doorRateLimitPerMinute: z.number().int(),
    contactEmail: z.string().nullable(),
    supportUrl: z.string().nullable(),
    logoUrl: z.string().nullable(),
    termsUrl: z.string().nullable(),
    privacyPolicyUrl: z.string().nullable(),
    withdrawalCoolingPeriodHours: z.number().int().nullable().openapi({
      description:
        'Hours a new withdrawal method, or a method with new details, stays in cooling before it can be used; null: the platform default (24 unless configured).',
    }),
    withdrawalMakerChecker: z.boolean().openapi({
      description:
        'Four eyes on withdrawals: the actor who created a withdrawal cannot approve it, and its approver cannot start its execution.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('Tenant');

const mutableFields = {
  defaultCurrency: Currency.nullable().optional(),
  defaultLocale: Locale.nullable().optional(),
  allowedCurrencies: z.array(Currency).max(200).optional(),
  allowedCountries: z.array(Country).max(300).optional(),
  featureFlags: z.record(z.string().min(1).max(100), z.boolean()).optional(),
  doorRateLimitPerMinute: z.number().int().min(1).max(1_000_000).optional(),
  contactEmail: Email.nullable().optional(),
  supportUrl: WebUrl.nullable().optional(),
  logoUrl: WebUrl.nullable().optional(),
  termsUrl: WebUrl.nullable().optional(),
  privacyPolicyUrl: WebUrl.nullable().optional(),
  withdrawalCoolingPeriodHours: z
    .number()
    .int()
    .min(0)
    .max(24 * 90)
    .nullable()
    .optional(),
  withdrawalMakerChecker: z.boolean().optional(),
};

export const CreateTenantBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    livemode: z.boolean().optional().openapi({ description: 'false creates a sandbox-only tenant; default true.' }),
    ...mutableFields,
  })
  .openapi('CreateTenantRequest');

export const UpdateTenantBody = z
  .strictObject({ name: z.string().trim().min(1).max(200).optional(), ...mutableFields })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one field to change' })
  .openapi('UpdateTenantRequest', {
    description: 'allowedCurrencies, allowedCountries, featureFlags and doorRateLimitPerMinute can only be changed by the platform.',
  });

export const ListTenantsQuery = listQuery({ status: TenantStatus.optional() });
