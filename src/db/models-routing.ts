import type { Sequelize } from 'sequelize';

// Routing rules (versioned) (owned by the routing area; skeleton, filled by its builder).

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface RoutingModels {}

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function defineRoutingModels(sequelize: Sequelize): RoutingModels {
  return {};
}
