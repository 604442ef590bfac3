import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, BOOLEAN, DATE, type RowModel, type Timestamps } from '../model-kit';

// Merchants' withdrawal methods (bank accounts and the like), cooling before first use.

export type WithdrawalMethodStatus = 'cooling' | 'active' | 'suspended';

export interface MerchantWithdrawalMethodRow extends Timestamps {
  id: string;
  tenantId: string;
  merchantId: string;
  livemode: boolean;
  /** a key of fixtures/withdrawal-method-types.json */
  methodType: string;
  label: string;
  /** the full details (string to string), sealed with the master key; never read back through the API */
  detailsSealed: string;
  /** the details as reads show them: each value masked but its last characters */
  detailsMasked: Record<string, string>;
  status: WithdrawalMethodStatus;
  /** when a cooling method becomes active (set while cooling; kept afterwards as the record of it) */
  activatesAt: Date | null;
  suspendedAt: Date | null;
  createdBy: string | null;
}

export interface WithdrawalMethodModels {
  MerchantWithdrawalMethod: RowModel<MerchantWithdrawalMethodRow>;
}

export function defineWithdrawalMethodModels(sequelize: Sequelize): WithdrawalMethodModels {
  return {
    MerchantWithdrawalMethod: define<MerchantWithdrawalMethodRow>(
      sequelize,
      'MerchantWithdrawalMethod',
      'merchant_withdrawal_methods',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        livemode: BOOLEAN,
        methodType: STRING,
        label: STRING,
        detailsSealed: TEXT,
        detailsMasked: JSONT,
        status: STRING,
        activatesAt: DATE,
        suspendedAt: DATE,
        createdBy: STRING,
        ...stamps,
      },
      { resource: 'withdrawal method', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode' },
    ),
  };
}
