import { z } from '../zod';
import { refersTo, notChecked } from '../references';
import { Country, Currency, NullableTimestamp, Timestamp, listQuery, Uuid, RecordName as Name } from '../common';

const Code = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,49}$/, 'must be a lower-case identifier such as card or visa (letters, digits, _ and -; at most 50)');
const Mcc = z.string().regex(/^\d{4}$/, 'must be a 4-digit merchant category code');
const Descriptor = z.string().trim().min(1).max(22).openapi({ description: 'Statement descriptor (at most 22 characters).' });

// ---------------------------------------------------------------------------------------------- provider integrations

export const ProviderStatus = z.enum(['available', 'maintenance', 'deprecated']);
const Flag = z.object({ supported: z.boolean(), implemented: z.boolean() }).strict();
const FlagAdjust = { supported: z.boolean().optional(), implemented: z.boolean().optional() };
const CutoffTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a UTC time HH:MM');

const OverlaySchema = z
  .object({
    paymentMethods: z
      .record(
        z.string(),
        z
          .object({
            supported: z.boolean().optional(),
            implemented: z.boolean().optional(),
            brands: z.array(z.string()).optional(),
            currencies: z.array(z.string()).optional(),
            countries: z.array(z.string()).optional(),
            operations: z.record(z.string(), z.object(FlagAdjust).strict()).optional(),
          })
          .strict(),
      )
      .optional(),
    features: z.record(z.string(), z.object(FlagAdjust).strict()).optional(),
    storedCredential: z.record(z.string(), z.object(FlagAdjust).strict()).optional(),
    testModeAvailable: z.boolean().optional(),
    cutoffTimeUtc: z.string().optional(),
  })
  .strict()
  .openapi('ProviderCapabilityOverlay', {
    description: "The platform's adjustments, keyed by payment method, operation, feature and stored-credential capability.",
  });

export const ProviderIntegrationSchema = z
  .object({
    id: Uuid,
    name: z.string(),
    code: z.string(),
    protocol: z.string(),
    category: z.string(),
    credentialSchema: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'JSON-schema-like description of the credentials a terminal of this provider needs.' }),
    connectorBaseUrl: z.string().openapi({ description: "The base URL its connector calls: the platform's (PATCH), else the catalog's." }),
    connectorReleaseNonce: Uuid,
    testModeAvailable: z.boolean(),
    status: ProviderStatus,
    documentationUrl: z.string(),
    supportedPaymentMethods: z.array(
      z
        .object({
          method: z.string(),
          brands: z.array(z.string()),
          currencies: z.array(z.string()),
          countries: z.array(z.string()),
          supported: z.boolean(),
          implemented: z.boolean(),
          operations: z.array(z.object({ operation: z.string(), supported: z.boolean(), implemented: z.boolean() }).strict()),
        })
        .strict(),
    ),
    supportedFeatures: z.array(z.object({ feature: z.string(), supported: z.boolean(), implemented: z.boolean() }).strict()),
    supportedThreeDSVersions: z.array(z.string()),
    threeDsCapabilities: z
      .object({
        executionModels: z.array(z.object({ model: z.string(), supported: z.boolean(), implemented: z.boolean() }).strict()),
        protocolVersions: z.array(z.object({ version: z.string(), supported: z.boolean(), implemented: z.boolean() }).strict()),
        controls: z
          .object({
            forceSkip: Flag,
            challengePreference: Flag,
            scaExemption: Flag,
            browserData: Flag,
            preAuthenticated: Flag,
            storedCredentialIndicator: Flag,
            supportedExemptions: z.array(z.string()),
          })
          .strict(),
        challengeFlows: z.array(z.object({ flow: z.string(), supported: z.boolean(), implemented: z.boolean() }).strict()),
      })
      .strict(),
    storedCredentialCapabilities: z
      .object({ cardOnFile: Flag, recurringMit: Flag, installmentMit: Flag, oneClickCit: Flag, unscheduledMit: Flag })
      .strict(),
    cutoffTimeUtc: z.string(),
    capabilityOverlay: OverlaySchema.nullable().openapi({
      description: "The platform's adjustments merged into this record; null when none.",
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .strict()
  .openapi('ProviderIntegration', {
    description:
      "A connector of the platform catalog: its own declaration of what it supports, with the platform's status and capability adjustments applied. Platform-wide (no tenant).",
  });

export const ListProvidersQuery = listQuery({
  status: ProviderStatus.optional(),
  category: z.string().min(1).max(50).optional(),
  code: z.string().min(1).max(50).optional(),
});

export const SetProviderStatusBody = z.strictObject({ status: ProviderStatus }).openapi('SetProviderStatusRequest');

export const UpdateProviderBody = z
  .strictObject({
    connectorBaseUrl: z
      .string()
      .min(1)
      .max(2048)
      .nullable()
      .openapi({
        description:
          "The base URL the provider's connector calls (a regional host, a proxy, the acquirer's test host): https only; a loopback or " +
          "private address only when PAYPLANE_CONNECTOR_ALLOW_CIDRS lists its range. null: back to the catalog's.",
        example: 'https://checkout-test.adyen.com',
      }),
  })
  .openapi('UpdateProviderIntegrationRequest');

export const AdjustCapabilitiesBody = z
  .strictObject({
    supportedPaymentMethods: z
      .array(
        z.strictObject({
          method: Code,
          ...FlagAdjust,
          brands: z.array(Code).optional().openapi({ description: 'Narrows the declared brands.' }),
          currencies: z.array(Currency).optional().openapi({ description: 'Narrows the declared currencies.' }),
          countries: z.array(Country).optional(),
          operations: z.array(z.strictObject({ operation: Code, ...FlagAdjust })).optional(),
        }),
      )
      .optional(),
    supportedFeatures: z.array(z.strictObject({ feature: Code, ...FlagAdjust })).optional(),
    storedCredentialCapabilities: z
      .strictObject({
        cardOnFile: z.strictObject(FlagAdjust).optional(),
        recurringMit: z.strictObject(FlagAdjust).optional(),
        installmentMit: z.strictObject(FlagAdjust).optional(),
        oneClickCit: z.strictObject(FlagAdjust).optional(),
        unscheduledMit: z.strictObject(FlagAdjust).optional(),
      })
      .optional(),
    testModeAvailable: z.boolean().optional(),
    cutoffTimeUtc: CutoffTime.optional(),
    reset: z.boolean().optional().openapi({ description: 'Drop every earlier adjustment before applying these.' }),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one adjustment' })
  .openapi('AdjustProviderCapabilitiesRequest', {
    description:
      "Overlays adjustments on the connector's declaration (merged with earlier ones). An adjustment may switch off, or back on, " +
      'what the connector declares, and narrow its brands, currencies and countries; it can never claim more than the connector declares.',
  });

// ---------------------------------------------------------------------------------------------- terminals

const Direction = z.enum(['payin', 'payout']);
const TerminalStatus = z.enum(['active', 'disabled']);
const Credentials = z
  .record(z.string().min(1).max(100), z.string().min(1).max(4096))
  .openapi({ description: "The provider's credentialSchema fields, string values. Stored encrypted and never returned." });

const MpiAccountSchema = z
  .object({
    brand: z.string(),
    enabled: z.boolean(),
    merchantName: z.string().nullable(),
    merchantId: z.string().nullable(),
    merchantCountry: z.string().nullable(),
    acquirerBin: z.string().nullable(),
    mcc: z.string().nullable().openapi({ description: "The account's own, else the terminal's mcc." }),
    preferredVersion: z.string().nullable().openapi({ description: "The account's own, else the provider's first supported 3DS version." }),
  })
  .strict()
  .openapi('MpiAccount');

const RulesSchema = z
  .object({ processOnly3dsCards: z.boolean(), declineOnAttemptStatus: z.boolean(), allowMerchantDisable: z.boolean() })
  .strict();

export const ThreeDsConfigSchema = z
  .object({ enabled: z.boolean(), executionModel: z.string(), mpiAccounts: z.array(MpiAccountSchema), rules: RulesSchema })
  .strict()
  .openapi('TerminalThreeDsConfig');

export const TerminalSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    providerIntegrationId: Uuid,
    credentialBindingId: Uuid.openapi({ description: "The sealed credentials' binding; the credentials themselves are never returned." }),
    providerCostScheduleId: Uuid.nullable(),
    name: z.string(),
    mcc: z.string().nullable(),
    descriptor: z.string().nullable(),
    direction: Direction,
    status: TerminalStatus,
    livemode: z.boolean().openapi({
      description: 'Which environment of its acquirer the terminal talks to (live or test credentials); payments of that mode only.',
    }),
    supportedCurrencies: z.array(z.string()),
    supportedBrands: z.array(z.string()),
    supportedPaymentMethodTypes: z.array(z.string()),
    threeDsConfig: ThreeDsConfigSchema,
    notificationUrl: z
      .string()
      .nullable()
      .openapi({
        description:
          "Where the terminal's acquirer sends its notifications (absolute; register it at the acquirer): " +
          '`{public base}/v1/provider-notifications/{id}` for a real acquirer, null for one that does not notify. Read-only.',
      }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('Terminal');

const Currencies = z.array(Currency).min(1).max(200);
const Brands = z.array(Code).max(50);
const Methods = z.array(Code).min(1).max(50);
const Text = (max: number) => z.string().trim().min(1).max(max);

const MpiFields = {
  enabled: z.boolean().optional().openapi({ description: 'Default true.' }),
  merchantName: Text(200).nullable().optional(),
  merchantId: notChecked('the merchant id a card scheme gave for 3DS (text)', Text(100)).nullable().optional(),
  merchantCountry: Country.nullable().optional(),
  acquirerBin: z
    .string()
    .regex(/^\d{6,11}$/, 'must be 6 to 11 digits')
    .nullable()
    .optional(),
  mcc: Mcc.nullable().optional().openapi({ description: "Default: the terminal's mcc." }),
  preferredVersion: z
    .string()
    .min(1)
    .max(20)
    .nullable()
    .optional()
    .openapi({ description: "Default: the provider's first supported 3DS version." }),
};

export const MpiAccountBody = z.strictObject({ brand: Code, ...MpiFields }).openapi('AddMpiAccountRequest');
export const UpdateMpiAccountBody = z
  .strictObject(MpiFields)
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one field to change' })
  .openapi('UpdateMpiAccountRequest', { description: "The brand is the path's." });

export const PutThreeDsConfigBody = z
  .strictObject({
    enabled: z.boolean(),
    executionModel: z
      .string()
      .min(1)
      .max(50)
      .openapi({ description: 'One the provider supports (threeDsCapabilities.executionModels), e.g. gateway_full.' }),
    mpiAccounts: z.array(MpiAccountBody).max(50).optional().openapi({ description: 'One per brand; replaces the list (default empty).' }),
    rules: z.strictObject({ processOnly3dsCards: z.boolean(), declineOnAttemptStatus: z.boolean(), allowMerchantDisable: z.boolean() }),
  })
  .openapi('PutTerminalThreeDsConfigRequest', { description: 'Replaces the whole 3DS configuration.' });

export const CreateTerminalBody = z
  .strictObject({
    providerIntegrationId: refersTo('providerIntegration', Uuid),
    name: Name,
    credentials: Credentials,
    mcc: Mcc.nullable().optional(),
    descriptor: Descriptor.nullable().optional(),
    direction: Direction.optional().openapi({
      description: 'Default: payout for a payout provider, payin otherwise (and it must be that).',
    }),
    supportedCurrencies: Currencies,
    supportedBrands: Brands.optional().openapi({ description: 'Default: every brand the provider supports for the chosen methods.' }),
    supportedPaymentMethodTypes: Methods.optional().openapi({
      description: 'Default: every method the provider supports for the direction.',
    }),
    providerCostScheduleId: refersTo('feeSchedule', Uuid)
      .nullable()
      .optional()
      .openapi({ description: "The fee schedule of the provider's costs: one of the terminal's tenant, or a platform schedule." }),
    threeDsConfig: PutThreeDsConfigBody.optional(),
    livemode: z.boolean().optional().openapi({
      description:
        "Which environment of its acquirer the terminal talks to, with which credentials (a Stripe sk_live_ key on a live terminal). Default: the caller's mode.",
    }),
    tenantId: refersTo('tenant', Uuid)
      .optional()
      .openapi({ description: 'Required for platform callers; a tenant caller creates in its own tenant.' }),
  })
  .openapi('CreateTerminalRequest', { description: 'currencies, brands and methods must be ones the provider integration supports.' });

export const UpdateTerminalBody = z
  .strictObject({
    name: Name.optional(),
    mcc: Mcc.nullable().optional(),
    descriptor: Descriptor.nullable().optional(),
    supportedCurrencies: Currencies.optional(),
    supportedBrands: Brands.optional(),
    supportedPaymentMethodTypes: Methods.optional(),
    providerCostScheduleId: refersTo('feeSchedule', Uuid).nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one field to change' })
  .openapi('UpdateTerminalRequest', {
    description:
      'Lists replace the old ones. The provider, direction and credentials are fixed (rotate-credentials replaces the credentials); status moves by disable; 3DS by its own operations.',
  });

export const RotateCredentialsBody = z.strictObject({ credentials: Credentials }).openapi('RotateTerminalCredentialsRequest');

export const ListTerminalsQuery = listQuery({
  status: TerminalStatus.optional(),
  direction: Direction.optional(),
  providerIntegrationId: refersTo('providerIntegration', Uuid).optional(),
  tenantId: refersTo('tenant', Uuid).optional().openapi({ description: "Platform callers: only this tenant's terminals." }),
});

// ---------------------------------------------------------------------------------------------- restrictions

const RestrictionAction = z.enum(['allow', 'deny']);
const RestrictionStatus = z.enum(['active', 'disabled']);
const RestrictionTransactionType = z.enum(['payment', 'refund', 'payout']);

export const RestrictionSchema = z
  .object({
    id: Uuid,
    terminalId: Uuid,
    action: RestrictionAction,
    paymentMethod: z.string().nullable(),
    brand: z.string().nullable(),
    transactionType: RestrictionTransactionType,
    status: RestrictionStatus,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .strict()
  .openapi('TerminalRestriction', {
    description: 'allow or deny the terminal for a payment method and/or brand of a transaction type (null matches any).',
  });

const restrictionFields = {
  paymentMethod: Code.nullable().optional().openapi({ description: "One of the terminal's supportedPaymentMethodTypes; null for any." }),
  brand: Code.nullable().optional().openapi({ description: "One of the terminal's supportedBrands; null for any." }),
  transactionType: RestrictionTransactionType.optional(),
};

export const CreateRestrictionBody = z
  .strictObject({ action: RestrictionAction, ...restrictionFields })
  .openapi('CreateTerminalRestrictionRequest', { description: 'transactionType defaults to payment (payout for a payout terminal).' });

export const UpdateRestrictionBody = z
  .strictObject({ action: RestrictionAction.optional(), ...restrictionFields })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one field to change' })
  .openapi('UpdateTerminalRestrictionRequest');

export const ListRestrictionsQuery = listQuery({ status: RestrictionStatus.optional() });

export const restrictionParams = z.object({
  id: z.string().min(1).openapi({ description: 'Terminal id (uuid).' }),
  restrictionId: z.string().min(1).openapi({ description: 'Restriction id (uuid).' }),
});

export const brandParams = z.object({
  id: z.string().min(1).openapi({ description: 'Terminal id (uuid).' }),
  brand: z.string().min(1).max(50).openapi({ description: 'Card brand of the MPI account, e.g. visa.' }),
});
