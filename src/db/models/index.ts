import type { Sequelize } from 'sequelize';
import { defineTenantModels, type TenantModels } from './tenants';
import { defineApiKeyModels, type ApiKeyModels } from './api-keys';
import { defineAccessModels, type AccessModels } from './access';
import { defineOrganizationModels, type OrganizationModels } from './organization';
import { definePartnerModels, type PartnerModels } from './partners';
import { defineChannelModels, type ChannelModels } from './channels';
import { defineLimitModels, type LimitModels } from './limits';
import { defineKybModels, type KybModels } from './kyb';
import { defineProcessingModels, type ProcessingModels } from './processing';
import { defineFeeModels, type FeeModels } from './fees';
import { defineProfileModels, type ProfileModels } from './profiles';
import { defineRoutingModels, type RoutingModels } from './routing';
import { defineRiskModels, type RiskModels } from './risk';
import { defineCheckoutModels, type CheckoutModels } from './checkout';
import { definePaymentModels, type PaymentModels } from './payments';
import { defineLedgerModels, type LedgerModels } from './ledger';
import { defineSandboxModels, type SandboxModels } from './sandbox';
import { defineWithdrawalMethodModels, type WithdrawalMethodModels } from './withdrawal-methods';
import { defineWithdrawalModels, type WithdrawalModels } from './withdrawals';
import { defineWebhookModels, type WebhookModels } from './webhooks';
import { defineAuditModels, type AuditModels } from './audit';
import { defineIdempotencyModels, type IdempotencyModels } from './idempotency';

// Every table's model, one file an area (the same area names as src/api, src/services and src/cli).

export type { RowModel, ScopeSpec, Timestamps } from '../model-kit';
export type * from './tenants';
export type * from './api-keys';
export type * from './access';
export type * from './organization';
export type * from './partners';
export type * from './channels';
export type * from './limits';
export type * from './kyb';
export type * from './processing';
export type * from './fees';
export type * from './profiles';
export type * from './routing';
export type * from './risk';
export type * from './checkout';
export type * from './payments';
export type * from './ledger';
export type * from './sandbox';
export type * from './withdrawal-methods';
export type * from './withdrawals';
export type * from './webhooks';
export type * from './audit';
export type * from './idempotency';

export interface Models extends
  TenantModels, ApiKeyModels, AccessModels, OrganizationModels, PartnerModels, ChannelModels, LimitModels, KybModels,
  ProcessingModels, FeeModels, ProfileModels, RoutingModels, RiskModels, CheckoutModels, PaymentModels, LedgerModels,
  SandboxModels, WithdrawalMethodModels, WithdrawalModels, WebhookModels, AuditModels, IdempotencyModels {}

export function defineModels(sequelize: Sequelize): Models {
  return {
    ...defineTenantModels(sequelize),
    ...defineApiKeyModels(sequelize),
    ...defineAccessModels(sequelize),
    ...defineOrganizationModels(sequelize),
    ...definePartnerModels(sequelize),
    ...defineChannelModels(sequelize),
    ...defineLimitModels(sequelize),
    ...defineKybModels(sequelize),
    ...defineProcessingModels(sequelize),
    ...defineFeeModels(sequelize),
    ...defineProfileModels(sequelize),
    ...defineRoutingModels(sequelize),
    ...defineRiskModels(sequelize),
    ...defineCheckoutModels(sequelize),
    ...definePaymentModels(sequelize),
    ...defineLedgerModels(sequelize),
    ...defineSandboxModels(sequelize),
    ...defineWithdrawalMethodModels(sequelize),
    ...defineWithdrawalModels(sequelize),
    ...defineWebhookModels(sequelize),
    ...defineAuditModels(sequelize),
    ...defineIdempotencyModels(sequelize),
  };
}
