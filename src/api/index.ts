import type { Operation } from './registry';
import { apiKeyOperations } from './api-keys/operations';
import { auditOperations } from './audit/operations';
import { tenantOperations } from './tenants/operations';
import { webhookOperations } from './webhooks/operations';
import { organizationOperations } from './organization/operations';
import { partnerOperations } from './partners/operations';
import { channelOperations } from './channels/operations';
import { limitOperations } from './limits/operations';
import { accessOperations } from './access/operations';
import { kybOperations } from './kyb/operations';
import { processingOperations } from './processing/operations';
import { feeOperations } from './fees/operations';
import { profileOperations } from './profiles/operations';
import { routingOperations } from './routing/operations';
import { checkoutOperations } from './checkout/operations';
import { paymentOperations } from './payments/operations';
import { ledgerOperations } from './ledger/operations';
import { disputeOperations } from './disputes/operations';
import { settlementOperations } from './settlements/operations';
import { withdrawalMethodOperations } from './withdrawal-methods/operations';
import { withdrawalOperations } from './withdrawals/operations';
import { payoutOperations } from './payouts/operations';
import { riskOperations } from './risk/operations';

/** Every /v1 operation. No route exists outside this list. */
export const operations: Operation[] = [
  ...apiKeyOperations,
  ...tenantOperations,
  ...auditOperations,
  ...webhookOperations,
  ...organizationOperations,
  ...partnerOperations,
  ...channelOperations,
  ...limitOperations('merchant'),
  ...accessOperations,
  ...kybOperations,
  ...processingOperations,
  ...feeOperations,
  ...profileOperations,
  ...routingOperations,
  ...checkoutOperations,
  ...paymentOperations,
  ...disputeOperations,
  ...ledgerOperations,
  ...settlementOperations,
  ...withdrawalMethodOperations,
  ...withdrawalOperations,
  ...payoutOperations,
  ...riskOperations,
];
