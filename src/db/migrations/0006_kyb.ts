import type { QueryInterface } from 'sequelize';

// KYB submissions and documents.

export async function up(_qi: QueryInterface): Promise<void> {
  // tables of this area
}

export async function down(_qi: QueryInterface): Promise<void> {
  // drop them in reverse order
}
