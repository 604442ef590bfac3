import type { QueryInterface } from 'sequelize';
import { text, dropColumns } from './columns';

// The platform's base URL of a provider integration's connector (a regional host, a proxy, the acquirer's test host),
// kept in its overlay as its status and capability adjustments are; null: the catalog's connectorBaseUrl.

export async function up(qi: QueryInterface): Promise<void> {
  await qi.addColumn('provider_integration_overlays', 'connectorBaseUrl', text());
}

export async function down(qi: QueryInterface): Promise<void> {
  await dropColumns(qi, 'provider_integration_overlays', ['connectorBaseUrl']);
}
