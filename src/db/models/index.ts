import type { Sequelize } from 'sequelize';
import type { TenantModels } from './tenants';
import type { ApiKeyModels } from './api-keys';
import type { AccessModels } from './access';
import type { OrganizationModels } from './organization';
import type { PartnerModels } from './partners';
import type { ChannelModels } from './channels';
import type { LimitModels } from './limits';
import type { KybModels } from './kyb';
import type { ProcessingModels } from './processing';
import type { FeeModels } from './fees';
import type { ProfileModels } from './profiles';
import type { RoutingModels } from './routing';
import type { RiskModels } from './risk';
import type { CheckoutModels } from './checkout';
import type { PaymentModels } from './payments';
import type { LedgerModels } from './ledger';
import type { SandboxModels } from './sandbox';
import type { WithdrawalMethodModels } from './withdrawal-methods';
import type { SettlementModels } from './settlements';
import type { WithdrawalModels } from './withdrawals';
import type { DisputeModels } from './disputes';
import type { PayoutModels } from './payouts';
import type { WebhookModels } from './webhooks';
import type { AuditModels } from './audit';
import type { IdempotencyModels } from './idempotency';
import type { ProviderNotificationModels } from './provider-notifications';

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
export type * from './settlements';
export type * from './withdrawals';
export type * from './disputes';
export type * from './payouts';
export type * from './webhooks';
export type * from './audit';
export type * from './idempotency';
export type * from './provider-notifications';

export interface Models
  extends
    TenantModels,
    ApiKeyModels,
    AccessModels,
    OrganizationModels,
    PartnerModels,
    ChannelModels,
    LimitModels,
    KybModels,
    ProcessingModels,
    FeeModels,
    ProfileModels,
    RoutingModels,
    RiskModels,
    CheckoutModels,
    PaymentModels,
    LedgerModels,
    SandboxModels,
    WithdrawalMethodModels,
    SettlementModels,
    WithdrawalModels,
    DisputeModels,
    PayoutModels,
    WebhookModels,
    AuditModels,
    IdempotencyModels,
    ProviderNotificationModels {}

type DefineGroup = (sequelize: Sequelize) => object;

/** Each area's models, in this order: its module is loaded and its models defined when one of them is first used. */
const GROUPS: Array<() => DefineGroup> = [
  () => (require('./tenants') as typeof import('./tenants')).defineTenantModels,
  () => (require('./api-keys') as typeof import('./api-keys')).defineApiKeyModels,
  () => (require('./access') as typeof import('./access')).defineAccessModels,
  () => (require('./organization') as typeof import('./organization')).defineOrganizationModels,
  () => (require('./partners') as typeof import('./partners')).definePartnerModels,
  () => (require('./channels') as typeof import('./channels')).defineChannelModels,
  () => (require('./limits') as typeof import('./limits')).defineLimitModels,
  () => (require('./kyb') as typeof import('./kyb')).defineKybModels,
  () => (require('./processing') as typeof import('./processing')).defineProcessingModels,
  () => (require('./fees') as typeof import('./fees')).defineFeeModels,
  () => (require('./profiles') as typeof import('./profiles')).defineProfileModels,
  () => (require('./routing') as typeof import('./routing')).defineRoutingModels,
  () => (require('./risk') as typeof import('./risk')).defineRiskModels,
  () => (require('./checkout') as typeof import('./checkout')).defineCheckoutModels,
  () => (require('./payments') as typeof import('./payments')).definePaymentModels,
  () => (require('./ledger') as typeof import('./ledger')).defineLedgerModels,
  () => (require('./sandbox') as typeof import('./sandbox')).defineSandboxModels,
  () => (require('./withdrawal-methods') as typeof import('./withdrawal-methods')).defineWithdrawalMethodModels,
  () => (require('./withdrawals') as typeof import('./withdrawals')).defineWithdrawalModels,
  () => (require('./disputes') as typeof import('./disputes')).defineDisputeModels,
  () => (require('./settlements') as typeof import('./settlements')).defineSettlementModels,
  () => (require('./payouts') as typeof import('./payouts')).definePayoutModels,
  () => (require('./webhooks') as typeof import('./webhooks')).defineWebhookModels,
  () => (require('./audit') as typeof import('./audit')).defineAuditModels,
  () => (require('./idempotency') as typeof import('./idempotency')).defineIdempotencyModels,
  () => (require('./provider-notifications') as typeof import('./provider-notifications')).defineProviderNotificationModels,
];

/**
 * The models of every table, each area's defined when one of its models is first used (`db.models.Payment`): most
 * admin commands use one or two areas, and defining all of them would lengthen every command's start. Listing
 * the models (Object.keys) defines them all. `afterDefine` sees each area's models as they are defined.
 */
export function defineModels(sequelize: Sequelize, afterDefine?: (models: Partial<Models>) => void): Models {
  const defined: Record<string, unknown> = {};
  let next = 0;
  const defineNext = () => {
    const models = GROUPS[next++]()(sequelize);
    Object.assign(defined, models);
    afterDefine?.(models as Partial<Models>);
  };
  const find = (name: string) => {
    while (!Object.prototype.hasOwnProperty.call(defined, name) && next < GROUPS.length) defineNext();
    return defined[name];
  };
  const all = () => {
    while (next < GROUPS.length) defineNext();
  };
  return new Proxy(defined, {
    get: (target, name) => (typeof name === 'string' ? find(name) : Reflect.get(target, name)),
    has: (target, name) => (typeof name === 'string' ? find(name) !== undefined : Reflect.has(target, name)),
    ownKeys: (target) => {
      all();
      return Reflect.ownKeys(target);
    },
    getOwnPropertyDescriptor: (target, name) => {
      if (typeof name === 'string') find(name);
      return Reflect.getOwnPropertyDescriptor(target, name);
    },
  }) as unknown as Models;
}
