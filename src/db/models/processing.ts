import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, DATE, BOOLEAN, type RowModel, type Timestamps } from '../model-kit';

// Provider integrations (the connector catalog with overlays) and terminals (credentials, 3DS config, MPI accounts, restrictions).

/** The portal's adjustments of one provider integration (the catalog in fixtures/providers.json is the connector's declaration). */
export interface ProviderOverlayRow {
  /** the provider integration's id */
  id: string;
  status: 'available' | 'maintenance' | 'deprecated' | null;
  capabilities: Record<string, unknown>;
  /** the platform's base URL of the connector; null: the catalog's */
  connectorBaseUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface MpiAccountRow {
  brand: string;
  enabled: boolean;
  merchantName: string | null;
  merchantId: string | null;
  merchantCountry: string | null;
  acquirerBin: string | null;
  mcc?: string | null;
  preferredVersion?: string | null;
}

export interface ThreeDsConfigRow {
  enabled: boolean;
  executionModel: string;
  mpiAccounts: MpiAccountRow[];
  rules: { processOnly3dsCards: boolean; declineOnAttemptStatus: boolean; allowMerchantDisable: boolean };
}

export interface TerminalRow extends Timestamps {
  id: string;
  tenantId: string;
  providerIntegrationId: string;
  credentialBindingId: string;
  providerCostScheduleId: string | null;
  name: string;
  mcc: string | null;
  descriptor: string | null;
  /** live (the acquirer's live environment and credentials) or sandbox (its test environment) */
  livemode: boolean;
  direction: 'payin' | 'payout';
  status: 'active' | 'disabled';
  supportedCurrencies: string[];
  supportedBrands: string[];
  supportedPaymentMethodTypes: string[];
  threeDsConfig: ThreeDsConfigRow;
}

/** A terminal's credentials, sealed (AES-256-GCM); never read back through the API. */
export interface CredentialBindingRow {
  id: string;
  tenantId: string;
  terminalId: string;
  providerIntegrationId: string;
  credentialsSealed: string;
  status: 'active' | 'replaced';
  replacedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface TerminalRestrictionRow extends Timestamps {
  id: string;
  tenantId: string;
  terminalId: string;
  action: 'allow' | 'deny';
  paymentMethod: string | null;
  brand: string | null;
  transactionType: 'payment' | 'refund' | 'payout';
  status: 'active' | 'disabled';
}

export interface ProcessingModels {
  ProviderOverlay: RowModel<ProviderOverlayRow>;
  Terminal: RowModel<TerminalRow>;
  CredentialBinding: RowModel<CredentialBindingRow>;
  TerminalRestriction: RowModel<TerminalRestrictionRow>;
}

export function defineProcessingModels(sequelize: Sequelize): ProcessingModels {
  return {
    ProviderOverlay: define<ProviderOverlayRow>(
      sequelize,
      'ProviderOverlay',
      'provider_integration_overlays',
      { id: pk, status: STRING, capabilities: JSONT, connectorBaseUrl: TEXT, createdAt: DATE, updatedAt: DATE },
      // platform-wide: provider integrations belong to no tenant and span both modes
      { resource: 'provider integration', tenant: null, merchant: null, mode: null, softDelete: false },
    ),
    Terminal: define<TerminalRow>(
      sequelize,
      'Terminal',
      'terminals',
      {
        id: pk,
        tenantId: UUID,
        providerIntegrationId: UUID,
        credentialBindingId: UUID,
        providerCostScheduleId: UUID,
        name: STRING,
        mcc: STRING,
        descriptor: STRING,
        livemode: BOOLEAN,
        direction: STRING,
        status: STRING,
        supportedCurrencies: JSONT,
        supportedBrands: JSONT,
        supportedPaymentMethodTypes: JSONT,
        threeDsConfig: JSONT,
        ...stamps,
      },
      {
        resource: 'terminal',
        tenant: 'tenantId',
        merchant: null,
        modeExempt:
          "a terminal is administered from either mode's keys (the tenant's catalog of routes); its livemode says which " +
          "environment of its acquirer it talks to, with which credentials, and the payment path matches a payment's mode to it",
      },
    ),
    CredentialBinding: define<CredentialBindingRow>(
      sequelize,
      'CredentialBinding',
      'terminal_credential_bindings',
      {
        id: pk,
        tenantId: UUID,
        terminalId: UUID,
        providerIntegrationId: UUID,
        credentialsSealed: TEXT,
        status: STRING,
        replacedAt: DATE,
        createdAt: DATE,
        updatedAt: DATE,
      },
      { resource: 'credential binding', tenant: 'tenantId', merchant: null, mode: null, softDelete: false },
    ),
    TerminalRestriction: define<TerminalRestrictionRow>(
      sequelize,
      'TerminalRestriction',
      'terminal_restrictions',
      {
        id: pk,
        tenantId: UUID,
        terminalId: UUID,
        action: STRING,
        paymentMethod: STRING,
        brand: STRING,
        transactionType: STRING,
        status: STRING,
        ...stamps,
      },
      { resource: 'restriction', tenant: 'tenantId', merchant: null, mode: null },
    ),
  };
}
