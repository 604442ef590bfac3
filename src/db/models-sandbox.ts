import type { Sequelize } from 'sequelize';

// The sandbox acquirer's own operations (its side of the asynchronous answers) (owned by the sandbox area; skeleton, filled by its builder).

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SandboxModels {}

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function defineSandboxModels(sequelize: Sequelize): SandboxModels {
  return {};
}
