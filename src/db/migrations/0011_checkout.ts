import type { QueryInterface } from 'sequelize';

// Checkout sessions.

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export async function up(qi: QueryInterface): Promise<void> {}

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export async function down(qi: QueryInterface): Promise<void> {}
