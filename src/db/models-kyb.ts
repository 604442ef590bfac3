import type { Sequelize } from 'sequelize';

// KYB submissions and documents.

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface KybModels {}

export function defineKybModels(_sequelize: Sequelize): KybModels {
  return {};
}
