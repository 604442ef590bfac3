import { z } from '../zod';
import { refersTo, notChecked } from '../references';
import { FutureDateInput, NullableTimestamp, Timestamp, listQuery, queryBoolean } from '../common';

const OwnerType = z.enum(['merchant', 'tenant']);
const KeyStatus = z.enum(['active', 'revoked', 'expired']);
const PermissionCodes = z.array(z.string().max(100)).max(200);

export const ApiKeySchema = z
  .object({
    id: z.string().uuid(),
    tenantId: z.string().uuid(),
    livemode: z.boolean(),
    owner: z.object({ type: OwnerType, merchantId: z.string().uuid().optional(), tenantId: z.string().uuid() }),
    environment: z.enum(['test', 'live']),
    keyType: z.string(),
    inboundFormat: z.string(),
    publicKey: z.string().openapi({ description: 'The public portion, always returned on reads.' }),
    name: z.string(),
    status: KeyStatus,
    permissions: z.array(z.string()),
    ipAllowlist: z.array(z.string()),
    expiresAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
    revokedAt: NullableTimestamp,
    rotatedFromKeyId: z.string().uuid().nullable(),
    createdBy: z.string().nullable(),
    createdByType: z.string(),
  })
  .strict()
  .openapi('ApiKey');

export const IssuedApiKeySchema = ApiKeySchema.extend({
  secretKey: z.string().openapi({ description: 'The secret (sk_live_… or sk_test_…), returned once and never again.' }),
})
  .strict()
  .openapi('IssuedApiKey');

export const ListApiKeysQuery = listQuery({
  status: KeyStatus.optional(),
  livemode: queryBoolean.optional().openapi({ description: "A value other than the caller's mode yields an empty page." }),
  merchantId: refersTo('merchant', z.string().uuid()).optional(),
  createdBy: notChecked(
    'the id of a user or key, or the name of an operator account (cli:…), of any time: a filter over history',
    z.string().min(1).max(255),
  ).optional(),
});

export const CreateApiKeyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    ownerType: OwnerType.optional().openapi({
      description: 'Defaults to merchant for merchant callers or when merchantId is given, else tenant.',
    }),
    merchantId: refersTo('merchant', z.string().uuid()).optional(),
    livemode: z
      .boolean()
      .optional()
      .openapi({ description: "Defaults to the caller's mode; a secret-key caller can only issue keys in its own mode." }),
    permissions: PermissionCodes.optional().openapi({ description: 'Defaults to every grantable permission.' }),
    ipAllowlist: z.array(z.string().max(64)).max(100).optional(),
    expiresAt: FutureDateInput.nullable().optional(),
  })
  .openapi('CreateApiKeyRequest');

export const UpdateApiKeyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    permissions: PermissionCodes.optional(),
    expiresAt: FutureDateInput.nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one of name, permissions, expiresAt' })
  .openapi('UpdateApiKeyRequest');

export const RotateApiKeyBody = z
  .strictObject({
    graceHours: z.number().int().min(0).max(720).optional().openapi({ description: 'How long the source key stays active; default 24.' }),
  })
  .openapi('RotateApiKeyRequest');

export const GrantableQuery = z.object({ ownerType: OwnerType.optional() });

export const GrantablePermissionsSchema = z
  .object({ ownerType: OwnerType, permissions: z.array(z.string()) })
  .openapi('GrantablePermissions');
