import { z } from '../zod';
import { refersTo, notChecked } from '../references';
import { Country, Currency, FutureDateInput, listQuery, Locale, Money, NullableTimestamp, Timestamp } from '../common';

// Checkout sessions: the specification's record, the pinned create and complete bodies.

const Uuid = z.string().uuid();
const Str = (max = 255) => z.string().max(max);
/** where the customer is sent: an http(s) URL (a sandbox shop may run on http://localhost) */
const WebUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048);
const Metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'must have at most 50 keys')
  .openapi({ description: 'String to string, at most 50 keys.' });

export const SESSION_STATUSES = ['open', 'complete', 'expired'] as const;
export const CAPTURE_METHODS = ['automatic', 'manual'] as const;
export const MAX_LINE_ITEMS = 100;
export const MAX_FULFILLMENT_OPTIONS = 20;

/**
 * The largest amount one checkout may take, in minor units (10^12: ten billion of a two-decimal currency). Money
 * enters only through payments, so this keeps every balance, the sum of its entries, far inside the integers a
 * JSON number holds exactly (2^53).
 */
export const MAX_PAYMENT_MINOR = 1_000_000_000_000;
const minorUnits = (min: number) =>
  z
    .number()
    .int('must be an integer amount in minor units')
    .min(min, `must be at least ${min}`)
    .max(MAX_PAYMENT_MINOR, `must be at most ${MAX_PAYMENT_MINOR}`);

/** a positive amount in minor units */
const PositiveMoney = z
  .strictObject({ currency: Currency, valueMinor: minorUnits(1) })
  .openapi({ description: 'A positive amount: upper-case ISO 4217 currency and integer minor units.' });
const NonNegativeMoney = z.strictObject({ currency: Currency, valueMinor: minorUnits(0) });

// ---- line items, totals, fulfillment -------------------------------------------------------------------------

const LineItemFields = {
  productId: notChecked("the merchant's own product reference (text)", Str()).optional(),
  label: Str(500),
  description: Str(2000).optional(),
  imageUrl: WebUrl.optional(),
  unitAmount: NonNegativeMoney,
  quantity: z.number().int('must be an integer').min(1).max(1_000_000),
  taxRate: z.number().min(0).max(1).optional().openapi({ description: 'Fraction, e.g. 0.19 for 19%.' }),
  taxAmount: NonNegativeMoney.optional().openapi({ description: 'Tax of the whole line (already included in the total of the line).' }),
  metadata: Metadata.optional(),
};

export const LineItemInput = z
  .strictObject({ id: Str(100).min(1).optional().openapi({ description: 'Default: generated.' }), ...LineItemFields })
  .openapi('CheckoutLineItemInput');

export const LineItemSchema = z
  .object({ id: z.string(), ...LineItemFields, imageUrl: z.string().optional(), unitAmount: Money, taxAmount: Money.optional() })
  .strict()
  .openapi('CheckoutLineItem', { description: 'A line of the order: unitAmount × quantity + taxAmount.' });

export const TotalSchema = z
  .object({
    type: z.enum(['subtotal', 'tax', 'fulfillment', 'total']),
    displayText: z.string(),
    amount: Money,
    description: z.string().optional(),
  })
  .strict()
  .openapi('CheckoutTotal', { description: 'Computed by the server from the line items and the selected fulfillment.' });

const EstimatedDelivery = z.strictObject({ earliest: FutureDateInput.optional(), latest: FutureDateInput.optional() });

export const FulfillmentOptionInput = z
  .strictObject({
    id: Str(100).min(1),
    type: Str(50).min(1).openapi({ example: 'shipping' }),
    title: Str(500).min(1),
    description: Str(2000).optional(),
    price: NonNegativeMoney,
    estimatedDelivery: EstimatedDelivery.optional(),
  })
  .openapi('CheckoutFulfillmentOptionInput');

export const FulfillmentOptionSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    title: z.string(),
    description: z.string().optional(),
    price: Money,
    estimatedDelivery: z.object({ earliest: z.string().optional(), latest: z.string().optional() }).strict().optional(),
  })
  .strict()
  .openapi('CheckoutFulfillmentOption');

export const SelectedFulfillmentInput = z
  .strictObject({
    fulfillmentOptionId: notChecked("one of the session's own fulfillmentOptions (text)", Str(100).min(1)).openapi({
      description: "The id of one of the session's fulfillmentOptions.",
    }),
  })
  .openapi('CheckoutSelectFulfillment');

export const SelectedFulfillmentSchema = z
  .object({ fulfillmentOptionId: z.string(), type: z.string(), title: z.string(), price: Money })
  .strict()
  .openapi('CheckoutSelectedFulfillment');

// ---- customer info and agentic context -----------------------------------------------------------------------

const AddressBase = {
  streetName: Str().optional(),
  buildingNumber: Str(50).optional(),
  buildingName: Str().optional(),
  unit: Str(50).optional(),
  floor: Str(50).optional(),
  addressLine1: Str().optional(),
  addressLine2: Str().optional(),
  city: Str().optional(),
  region: Str().optional(),
  postalCode: Str(32).optional(),
  country: Country.optional(),
};
const BillingAddress = z.strictObject({ ...AddressBase, department: Str().optional() });
const ShippingAddress = z.strictObject({
  ...AddressBase,
  dependentLocality: Str().optional(),
  sortingCode: Str(32).optional(),
  organization: Str().optional(),
  recipient: Str().optional(),
  phone: Str(50).optional(),
  email: Str(254).optional(),
});
const BrowserInfo = z.strictObject({
  userAgent: Str(1000).optional(),
  acceptHeader: Str(1000).optional(),
  language: Str(35).optional(),
  colorDepth: z.number().int().optional(),
  screenHeight: z.number().int().optional(),
  screenWidth: z.number().int().optional(),
  timezoneOffset: z.number().int().optional(),
  javaEnabled: z.boolean().optional(),
  javaScriptEnabled: z.boolean().optional(),
});

export const CustomerInfoSchema = z
  .strictObject({
    email: z.email('must be an email address').max(254).optional(),
    phone: Str(50).optional(),
    name: Str().optional(),
    firstName: Str().optional(),
    lastName: Str().optional(),
    companyName: Str().optional(),
    dateOfBirth: Str(32).optional(),
    taxId: notChecked("a customer's tax or national id (text)", Str(64)).optional(),
    nationalId: notChecked("a customer's national id (text)", Str(64)).optional(),
    locale: Str(35).optional(),
    language: Str(35).optional(),
    customerReference: Str().optional(),
    ipAddress: Str(64).optional(),
    emailFingerprint: Str().optional(),
    phoneFingerprint: Str().optional(),
    emailDomain: Str().optional(),
    taxIds: z
      .array(z.strictObject({ type: Str(50), country: Country.optional(), value: Str(64) }))
      .max(10)
      .optional(),
    billingAddress: BillingAddress.optional(),
    shippingAddress: ShippingAddress.optional(),
    browserInfo: BrowserInfo.optional(),
  })
  .openapi('CheckoutCustomerInfo', {
    description: 'The customer, as the merchant or the customer states it. Updates merge field by field.',
  });

export const AgenticContextSchema = z
  .strictObject({
    channel: Str(50).optional().openapi({ example: 'acp' }),
    trustLayers: z.array(Str(100)).max(20).optional(),
    agentVerification: z
      .strictObject({
        status: Str(50).optional(),
        keyId: notChecked("an agent's key id (text of the agent's protocol)", Str()).optional(),
        tag: Str().optional(),
        provider: Str().optional(),
        verifiedAt: Str(64).optional(),
      })
      .optional(),
    consumerRecognition: z
      .object({ recognized: z.boolean().optional(), hasSavedCards: z.boolean().optional() })
      .catchall(z.union([z.string().max(255), z.boolean()]))
      .optional()
      .openapi({ description: 'recognized, <card_network>SubjectId, matchedCustomerId, hasSavedCards, maskedPhone, maskedEmail.' }),
    mandate: z
      .strictObject({
        cartMandateId: notChecked("a mandate id of the agent's protocol (text)", Str()).optional(),
        paymentMandateId: notChecked("a mandate id of the agent's protocol (text)", Str()).optional(),
        intentMandateId: notChecked("a mandate id of the agent's protocol (text)", Str()).optional(),
        modality: Str(50).optional(),
      })
      .optional(),
    sptId: notChecked("a shared payment token of the agent's protocol (text)", Str()).optional(),
    riskSignals: z
      .array(
        z.strictObject({ source: Str(50).optional(), type: Str(100).optional(), score: z.number().optional(), action: Str(50).optional() }),
      )
      .max(50)
      .optional(),
  })
  .openapi('CheckoutAgenticContext', { description: 'Context of an agent-driven checkout (e.g. channel acp).' });

// ---- the record ----------------------------------------------------------------------------------------------

export const CheckoutSessionSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    merchantId: Uuid,
    paymentId: Uuid.nullable().openapi({ description: 'The latest payment made through the session.' }),
    merchantName: z.string(),
    tenantName: z.string(),
    merchantReference: z.string().nullable(),
    locale: z.string().nullable(),
    providerCheckoutId: z.string().nullable(),
    termsUrl: z.string().nullable(),
    privacyUrl: z.string().nullable(),
    url: z.string().openapi({ description: 'The hosted checkout page. Only the create response carries its ?key= (the clientSecret).' }),
    successUrl: z.string().nullable().openapi({ description: 'As given at creation (a {CHECKOUT_SESSION_ID} placeholder stays in it).' }),
    cancelUrl: z.string().nullable().openapi({ description: 'As given at creation (a {CHECKOUT_SESSION_ID} placeholder stays in it).' }),
    channelId: z
      .string()
      .nullable()
      .openapi({ description: 'The payin channel the payment goes through (routing conditions, channel limits, fees), or null.' }),
    livemode: z.boolean(),
    status: z.enum(SESSION_STATUSES),
    paymentStatus: z
      .string()
      .nullable()
      .openapi({ description: 'The status of the latest payment (processing, requires_action, captured, failed, …).' }),
    amount: Money,
    captureMethod: z.enum(CAPTURE_METHODS),
    lineItems: z.array(LineItemSchema),
    totals: z.array(TotalSchema),
    fulfillmentOptions: z.array(FulfillmentOptionSchema),
    selectedFulfillment: SelectedFulfillmentSchema.nullable(),
    clientSecret: z.string().optional().openapi({ description: 'Returned only by the create response.' }),
    customerInfo: z.record(z.string(), z.unknown()).nullable(),
    agenticContext: z.record(z.string(), z.unknown()).nullable(),
    metadata: z.record(z.string(), z.string()),
    createdAt: Timestamp,
    expiresAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('CheckoutSession', {
    description: 'What the customer is asked to pay, the hosted page and the state of the payment. status: open, complete (paid), expired.',
  });

// ---- requests ------------------------------------------------------------------------------------------------

export const CreateCheckoutSessionBody = z
  .strictObject({
    amount: PositiveMoney.openapi({ description: 'Must equal the total of lineItems when they are given.' }),
    merchantId: refersTo('merchant', Uuid)
      .optional()
      .openapi({ description: 'Tenant callers: the merchant the session is for (required).' }),
    merchantReference: Str().optional(),
    lineItems: z.array(LineItemInput).max(MAX_LINE_ITEMS).optional(),
    fulfillmentOptions: z.array(FulfillmentOptionInput).max(MAX_FULFILLMENT_OPTIONS).optional(),
    successUrl: WebUrl.optional().openapi({
      description:
        "Where the hosted page sends the customer once paid (also the return from a 3DS challenge). The placeholder {CHECKOUT_SESSION_ID} (or %7BCHECKOUT_SESSION_ID%7D) is replaced by the session's id when the customer is sent there; the session keeps the URL as given.",
    }),
    cancelUrl: WebUrl.optional().openapi({
      description: 'The hosted page\'s "return to the shop" link; {CHECKOUT_SESSION_ID} is replaced as in successUrl.',
    }),
    channelId: refersTo('channel', Uuid).optional().openapi({
      description: "A payin channel of the merchant's tenant for the session's currency: its routing rules, limits and fees apply.",
    }),
    termsUrl: WebUrl.optional(),
    privacyUrl: WebUrl.optional(),
    locale: Locale.optional(),
    customerInfo: CustomerInfoSchema.optional(),
    agenticContext: AgenticContextSchema.optional(),
    captureMethod: z.enum(CAPTURE_METHODS).optional().openapi({ description: 'automatic (default) or manual.' }),
    metadata: Metadata.optional(),
  })
  .openapi('CreateCheckoutSessionRequest');

export const UpdateCheckoutSessionBody = z
  .strictObject({
    customerInfo: CustomerInfoSchema.optional(),
    selectedFulfillment: SelectedFulfillmentInput.nullable().optional().openapi({ description: 'null removes the selection.' }),
    lineItems: z.array(LineItemInput).max(MAX_LINE_ITEMS).optional().openapi({
      description: 'Replaces the lines; the amount follows. [] (as a session without lines reads) removes the lines and keeps the amount.',
    }),
    metadata: Metadata.optional().openapi({ description: 'Replaces the whole object.' }),
    agenticContext: AgenticContextSchema.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, {
    message: 'provide at least one of customerInfo, selectedFulfillment, lineItems, metadata, agenticContext',
  })
  .openapi('UpdateCheckoutSessionRequest');

export const CardInputSchema = z.strictObject({
  number: z.string().min(1).max(32).openapi({ example: '4242424242424242' }),
  expMonth: z.number().int('must be an integer').min(1, 'must be between 1 and 12').max(12, 'must be between 1 and 12'),
  expYear: z.number().int('must be an integer').min(2000).max(2200),
  cvc: z.string().max(8).optional(),
  holderName: Str().optional(),
});

export const CompleteCheckoutSessionBody = z
  .strictObject({
    paymentMethod: z.strictObject({ type: z.literal('card'), card: CardInputSchema }),
    customerInfo: CustomerInfoSchema.optional(),
    selectedFulfillment: SelectedFulfillmentInput.optional(),
  })
  .openapi('CompleteCheckoutSessionRequest');

export const ListCheckoutSessionsQuery = listQuery({
  status: z.enum(SESSION_STATUSES).optional(),
  merchantId: refersTo('merchant', Uuid).optional(),
  paymentId: notChecked("the payment a session made, as the session records it: a filter over the caller's own sessions", Uuid).optional(),
  createdFrom: FutureDateInput.optional().openapi({ description: 'Only sessions created at or after this instant.' }),
  createdTo: FutureDateInput.optional().openapi({ description: 'Only sessions created before this instant.' }),
});
