import type { QueryInterface } from 'sequelize';
import { id, uuid, str, text, json, date, stamps } from './columns';

// Provider integrations (overlays on the fixture catalog) and terminals (credential bindings, restrictions).

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('provider_integration_overlays', {
    id,
    status: str(),
    capabilities: json(false),
    createdAt: date(false),
    updatedAt: date(false),
  });

  await qi.createTable('terminals', {
    id,
    tenantId: uuid(false),
    providerIntegrationId: uuid(false),
    credentialBindingId: uuid(false),
    providerCostScheduleId: uuid(),
    name: str(false),
    mcc: str(),
    descriptor: str(),
    direction: str(false),
    status: str(false),
    supportedCurrencies: json(false),
    supportedBrands: json(false),
    supportedPaymentMethodTypes: json(false),
    threeDsConfig: json(false),
    ...stamps,
  });
  await qi.addIndex('terminals', ['tenantId', 'createdAt', 'id']);
  await qi.addIndex('terminals', ['providerIntegrationId']);

  await qi.createTable('terminal_credential_bindings', {
    id,
    tenantId: uuid(false),
    terminalId: uuid(false),
    providerIntegrationId: uuid(false),
    credentialsSealed: text(false),
    status: str(false),
    replacedAt: date(),
    createdAt: date(false),
    updatedAt: date(false),
  });
  await qi.addIndex('terminal_credential_bindings', ['terminalId']);

  await qi.createTable('terminal_restrictions', {
    id,
    tenantId: uuid(false),
    terminalId: uuid(false),
    action: str(false),
    paymentMethod: str(),
    brand: str(),
    transactionType: str(false),
    status: str(false),
    ...stamps,
  });
  await qi.addIndex('terminal_restrictions', ['tenantId', 'terminalId', 'createdAt']);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.dropTable('terminal_restrictions');
  await qi.dropTable('terminal_credential_bindings');
  await qi.dropTable('terminals');
  await qi.dropTable('provider_integration_overlays');
}
