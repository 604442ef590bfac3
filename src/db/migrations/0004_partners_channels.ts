import type { QueryInterface } from 'sequelize';

// Partners, partner assignments, channels and limit records.

export async function up(_qi: QueryInterface): Promise<void> {
  // tables of this area
}

export async function down(_qi: QueryInterface): Promise<void> {
  // drop them in reverse order
}
