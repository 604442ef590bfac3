import { z } from '../zod';
import { refersTo } from '../references';
import { Country, Currency, Email, NullableTimestamp, Timestamp, listQuery, queryBoolean } from '../common';

const WebUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);
const Text = (max: number) => z.string().trim().min(1).max(max);

// ---------------------------------------------------------------------------------------------- companies

export const CompanyStatus = z.enum(['active', 'disabled']);

export const CompanySchema = z
  .object({
    id: z.string().uuid(),
    tenantId: z.string().uuid(),
    livemode: z.boolean().openapi({ description: "The mode the company was created in (the creating caller's mode)." }),
    name: z.string(),
    legalName: z.string().nullable(),
    legalAddress: z.string().nullable(),
    country: z.string(),
    registrationNumber: z.string().nullable(),
    businessType: z.string().nullable(),
    contactPerson: z.string().nullable(),
    contactEmail: z.string().nullable(),
    contactPhone: z.string().nullable(),
    website: z.string().nullable(),
    status: CompanyStatus.openapi({ description: 'disabled companies keep their merchants but take no new ones.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('Company');

const companyFields = {
  legalName: Text(256).nullable().optional(),
  legalAddress: Text(1000).nullable().optional(),
  registrationNumber: Text(100).nullable().optional(),
  businessType: Text(100).nullable().optional(),
  contactPerson: Text(200).nullable().optional(),
  contactEmail: Email.nullable().optional(),
  contactPhone: z
    .string()
    .regex(/^\+?[0-9 ()./-]{3,32}$/, 'must be a phone number such as +49 30 1234567')
    .nullable()
    .optional(),
  website: WebUrl.nullable().optional(),
};

export const CreateCompanyBody = z
  .strictObject({
    name: Text(256),
    country: Country,
    ...companyFields,
    tenantId: refersTo('tenant', z.string().uuid())
      .optional()
      .openapi({ description: 'Required for platform callers; a tenant caller creates in its own tenant.' }),
  })
  .openapi('CreateCompanyRequest', { description: "The company is created in the caller's mode (livemode)." });

export const UpdateCompanyBody = z
  .strictObject({ name: Text(256).optional(), country: Country.optional(), ...companyFields })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one field to change' })
  .openapi('UpdateCompanyRequest');

export const ListCompaniesQuery = listQuery({
  search: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .openapi({ description: 'Case-insensitive substring of name or legalName (1 to 256 characters).' }),
  country: Country.optional(),
  livemode: queryBoolean.optional().openapi({
    type: 'string',
    enum: ['true', 'false'],
    description:
      'A company belongs to the mode it was created in, and the caller works in exactly one mode: the list holds ' +
      "the companies of the caller's mode; a value different from the caller's mode yields an empty page.",
  }),
  status: CompanyStatus.optional(),
  tenantId: refersTo('tenant', z.string().uuid()).optional().openapi({ description: "Platform callers: only this tenant's companies." }),
});

// ---------------------------------------------------------------------------------------------- merchants

export const MerchantStatus = z.enum(['active', 'suspended', 'disabled']);
export const LiveStatus = z.enum(['sandbox', 'pending_approval', 'approved']);
export const CheckoutHosting = z.enum(['self_hosted', 'provider_hosted']);
export const ProcessingMode = z.enum(['principal', 'passthrough']);
const ChallengePreference = z.enum(['no_preference', 'no_challenge', 'challenge_requested', 'challenge_mandated']);
const Exemption = z.enum(['low_value', 'transaction_risk_analysis', 'trusted_beneficiary', 'recurring', 'secure_corporate']);

export const ThreeDsConfigSchema = z
  .object({
    enabled: z.boolean(),
    challengePreference: ChallengePreference,
    exemptions: z.array(Exemption),
  })
  .strict()
  .openapi('MerchantThreeDsConfig', {
    description:
      "The merchant's 3DS wishes: whether 3DS is requested, the challenge preference sent to the ACS, and the SCA " +
      "exemptions the merchant asks for. The terminal's 3DS configuration decides how 3DS is executed.",
  });

export const MerchantSchema = z
  .object({
    id: z.string().uuid(),
    tenantId: z.string().uuid(),
    companyId: z.string().uuid(),
    name: z.string(),
    status: MerchantStatus,
    liveStatus: LiveStatus.openapi({
      description: 'sandbox: test mode only; pending_approval: live approval requested; approved: may hold live keys.',
    }),
    defaultCurrency: z.string().nullable(),
    mcc: z.string().nullable(),
    website: z.string().nullable(),
    checkoutHosting: CheckoutHosting,
    processingMode: ProcessingMode,
    threeDsConfig: ThreeDsConfigSchema,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('Merchant');

const Mcc = z
  .string()
  .regex(/^\d{4}$/, 'must be a 4-digit merchant category code')
  .openapi({ example: '5734' });

export const CreateMerchantBody = z
  .strictObject({
    companyId: refersTo('company', z.string().uuid()),
    name: Text(255),
    defaultCurrency: Currency.optional(),
    mcc: Mcc.optional(),
    website: WebUrl.optional(),
  })
  .openapi('CreateMerchantRequest', { description: 'The merchant starts active and in sandbox (liveStatus sandbox).' });

export const UpdateMerchantBody = z
  .strictObject({
    name: Text(255).optional(),
    defaultCurrency: Currency.nullable().optional(),
    mcc: Mcc.nullable().optional(),
    website: WebUrl.nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one of name, defaultCurrency, mcc, website' })
  .openapi('UpdateMerchantRequest');

export const ListMerchantsQuery = listQuery({
  companyId: refersTo('company', z.string().uuid()).optional(),
  status: MerchantStatus.optional(),
  liveStatus: LiveStatus.optional(),
});

export const ListCompanyMerchantsQuery = listQuery({
  status: MerchantStatus.optional(),
  liveStatus: LiveStatus.optional(),
});

export const PutThreeDsConfigBody = z
  .strictObject({
    enabled: z.boolean(),
    challengePreference: ChallengePreference.optional().openapi({ description: 'Default no_preference.' }),
    exemptions: z.array(Exemption).max(5).optional().openapi({ description: 'Default none; each at most once.' }),
  })
  .superRefine((b, ctx) => {
    const seen = new Set<string>();
    (b.exemptions ?? []).forEach((e, i) => {
      if (seen.has(e)) ctx.addIssue({ code: 'custom', path: ['exemptions', i], message: 'is listed twice' });
      seen.add(e);
    });
    if (!b.enabled && b.challengePreference === 'challenge_mandated') {
      ctx.addIssue({ code: 'custom', path: ['challengePreference'], message: 'cannot be challenge_mandated while 3DS is disabled' });
    }
  })
  .openapi('PutMerchantThreeDsConfigRequest', { description: 'Replaces the whole configuration.' });

export const PutCheckoutHostingBody = z.strictObject({ checkoutHosting: CheckoutHosting }).openapi('PutCheckoutHostingRequest');
export const PutProcessingModeBody = z.strictObject({ processingMode: ProcessingMode }).openapi('PutProcessingModeRequest');
