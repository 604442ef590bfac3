import type { Sequelize } from 'sequelize';

// Partners, partner assignments, channels and limit records (shared by merchants, channels and later terminals).

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PartnerModels {}

export function definePartnerModels(_sequelize: Sequelize): PartnerModels {
  return {};
}
