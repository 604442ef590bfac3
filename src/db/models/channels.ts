import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, type RowModel, type Timestamps } from '../model-kit';

// Channels: a tenant's sales channels that merchants sell through.

export interface ChannelRow extends Timestamps {
  id: string;
  tenantId: string;
  name: string;
  direction: 'payin' | 'payout';
  currencies: string[];
  providerIntegrationId: string | null;
  status: 'active' | 'disabled';
  description: string | null;
}

export interface ChannelModels {
  Channel: RowModel<ChannelRow>;
}

export function defineChannelModels(sequelize: Sequelize): ChannelModels {
  return {
    Channel: define<ChannelRow>(
      sequelize,
      'Channel',
      'channels',
      {
        id: pk,
        tenantId: UUID,
        name: STRING,
        direction: STRING,
        currencies: JSONT,
        providerIntegrationId: UUID,
        status: STRING,
        description: TEXT,
        ...stamps,
      },
      { resource: 'channel', tenant: 'tenantId', merchant: null, mode: null },
    ),
  };
}
