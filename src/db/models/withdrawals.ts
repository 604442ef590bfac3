import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, BOOLEAN, DATE, BIGINT, type RowModel, type Timestamps } from '../model-kit';

// Merchants' withdrawal methods and withdrawals.

export type WithdrawalStatus = 'pending' | 'approved' | 'rejected' | 'canceled' | 'executing' | 'completed' | 'failed';

export interface WithdrawalRow extends Timestamps {
  id: string;
  tenantId: string;
  /** entityId of the record (entityType merchant); the scope column */
  merchantId: string;
  livemode: boolean;
  entityType: 'merchant';
  fundingAccountId: string;
  withdrawalChannelId: string;
  withdrawalMethodId: string;
  currency: string;
  amountMinor: number;
  feeMinor: number;
  feeBreakdown: Record<string, unknown> | null;
  destinationType: string;
  destinationSealed: string;
  destinationMasked: Record<string, string>;
  status: WithdrawalStatus;
  failureReason: string | null;
  rejectionReason: string | null;
  executionComment: string | null;
  providerReference: string | null;
  idempotencyKey: string;
  approvedAt: Date | null;
  rejectedAt: Date | null;
  canceledAt: Date | null;
  executedAt: Date | null;
  completedAt: Date | null;
  failedAt: Date | null;
  createdBy: string | null;
  approvedBy: string | null;
  rejectedBy: string | null;
  canceledBy: string | null;
  executedBy: string | null;
  completedBy: string | null;
  failedBy: string | null;
}

export interface WithdrawalModels {
  Withdrawal: RowModel<WithdrawalRow>;
}

export function defineWithdrawalModels(sequelize: Sequelize): WithdrawalModels {
  return {
    Withdrawal: define<WithdrawalRow>(
      sequelize,
      'Withdrawal',
      'withdrawals',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        livemode: BOOLEAN,
        entityType: STRING,
        fundingAccountId: UUID,
        withdrawalChannelId: UUID,
        withdrawalMethodId: UUID,
        currency: STRING,
        amountMinor: BIGINT,
        feeMinor: BIGINT,
        feeBreakdown: JSONT,
        destinationType: STRING,
        destinationSealed: TEXT,
        destinationMasked: JSONT,
        status: STRING,
        failureReason: TEXT,
        rejectionReason: TEXT,
        executionComment: TEXT,
        providerReference: STRING,
        idempotencyKey: STRING,
        approvedAt: DATE,
        rejectedAt: DATE,
        canceledAt: DATE,
        executedAt: DATE,
        completedAt: DATE,
        failedAt: DATE,
        createdBy: STRING,
        approvedBy: STRING,
        rejectedBy: STRING,
        canceledBy: STRING,
        executedBy: STRING,
        completedBy: STRING,
        failedBy: STRING,
        ...stamps,
      },
      { resource: 'withdrawal', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode', softDelete: false },
    ),
  };
}
