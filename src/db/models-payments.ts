import type { Sequelize } from 'sequelize';

// Payments, payment attempts and refunds (owned by the payments area; skeleton, filled by its builder).

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PaymentModels {}

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function definePaymentModels(sequelize: Sequelize): PaymentModels {
  return {};
}
