import type { Sequelize } from 'sequelize';

// Checkout sessions (owned by the checkout area; skeleton, filled by its builder).

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CheckoutModels {}

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function defineCheckoutModels(sequelize: Sequelize): CheckoutModels {
  return {};
}
