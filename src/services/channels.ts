import { inTransaction, type CallerContext } from '../domain/context';
import { scoped, type ListParams, type Page } from '../db/scoped';
import type { ChannelRow } from '../db/models';
import { auditRecord, auditedRecord, givenFields, updateRecord } from './audit/changes';
import { disableOnly, moveRecord } from './status';
import { filterWhere, mapPage, presentRow, type Presented } from './present';
import { tenantForCreate } from './partners';

// Channels: named processing routes of a tenant, pay-in or payout, in a set of currencies, through a provider integration.
// The provider integration a channel names is looked up as every reference is (src/services/references.ts, the
// catalog), before this service runs: by the API pipeline, and by the CLI's validateInput (src/cli/validate.ts).

const CHANNEL_FIELDS = [
  'id',
  'tenantId',
  'name',
  'direction',
  'currencies',
  'providerIntegrationId',
  'status',
  'description',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof ChannelRow)[];
export type Channel = Presented<Pick<ChannelRow, (typeof CHANNEL_FIELDS)[number]>>;

export function toChannel(row: ChannelRow): Channel {
  return presentRow(row, CHANNEL_FIELDS);
}

const CHANNEL = auditedRecord<ChannelRow>({
  model: (ctx) => ctx.db.models.Channel,
  targetType: 'channel',
  owner: (row) => ({ tenantId: row.tenantId }),
  render: toChannel,
});

const CHANNEL_STATUS = disableOnly(CHANNEL, 'channel.disabled', 'channel', 'channels');

export interface ChannelFields {
  name?: string;
  currencies?: string[];
  providerIntegrationId?: string | null;
  description?: string | null;
}

export type CreateChannelInput = ChannelFields & {
  name: string;
  direction: ChannelRow['direction'];
  currencies: string[];
  tenantId?: string;
};

export interface ChannelFilters {
  tenantId?: string;
  direction?: ChannelRow['direction'];
  status?: ChannelRow['status'];
}

export async function listChannels(ctx: CallerContext, filters: ChannelFilters, page: ListParams): Promise<Page<Channel>> {
  const where: Record<string, unknown> = filterWhere(filters, ['tenantId', 'direction', 'status']);
  return mapPage(await scoped(ctx, ctx.db.models.Channel).list(where, page), toChannel);
}

export async function getChannel(ctx: CallerContext, id: string): Promise<Channel> {
  return toChannel(await scoped(ctx, ctx.db.models.Channel).get(id));
}

export async function createChannel(ctx: CallerContext, input: CreateChannelInput): Promise<Channel> {
  return inTransaction(ctx, async (tx) => {
    const tenantId = await tenantForCreate(tx, input.tenantId);
    const row = await scoped(tx, tx.db.models.Channel).create({
      tenantId,
      name: input.name,
      direction: input.direction,
      currencies: [...new Set(input.currencies)],
      providerIntegrationId: input.providerIntegrationId ?? null,
      status: 'active',
      description: input.description ?? null,
    });
    const channel = toChannel(row);
    await auditRecord(tx, CHANNEL, row, 'channel.created', { after: channel });
    return channel;
  });
}

/** Changes the given fields; currencies replaces the list. The direction is fixed at creation. */
export async function updateChannel(ctx: CallerContext, id: string, input: ChannelFields): Promise<Channel> {
  return toChannel(
    await updateRecord(
      ctx,
      CHANNEL,
      id,
      () => {
        const changes: Partial<ChannelRow> = givenFields(input, ['name', 'providerIntegrationId', 'description']);
        if (input.currencies !== undefined) changes.currencies = [...new Set(input.currencies)];
        return changes;
      },
      { action: 'channel.updated' },
    ),
  );
}

/** active -> disabled; 409 when already disabled. */
export async function disableChannel(ctx: CallerContext, id: string): Promise<Channel> {
  return toChannel(await moveRecord(ctx, CHANNEL_STATUS, id, 'disable'));
}
