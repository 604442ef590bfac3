import { z } from '../zod';
import { refersTo } from '../references';
import { Currency, NullableTimestamp, RecordName as Name, Timestamp, Uuid, listQuery } from '../common';

// Channels: a tenant's processing channels (payin or payout).

const TenantIdInput = refersTo('tenant', Uuid)
  .optional()
  .openapi({ description: 'The tenant of the new record: required for platform callers; a tenant caller may only name its own.' });

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
  .openapi('Channel', {
    description: 'A named processing route: pay-in or payout, in a set of currencies, through a provider integration.',
  });

const ProviderIntegrationId = refersTo('providerIntegration', Uuid).nullable().openapi({
  description:
    'The provider integration this channel routes through: one of the catalog (GET /v1/admin/provider-integrations); an unknown id is 404 naming the field.',
});

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
  tenantId: refersTo('tenant', Uuid).optional().openapi({ description: "Platform callers: only this tenant's channels." }),
});
