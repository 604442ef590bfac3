import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, JSONT, DATE, INTEGER, type RowModel, type Timestamps } from '../model-kit';
import type { Money } from '../../domain/money';

// Partners, partner assignments, channels and limit records (shared by merchants, channels and later terminals).

export interface PartnerRow extends Timestamps {
  id: string;
  tenantId: string;
  name: string;
  contactEmail: string | null;
  status: 'active' | 'suspended' | 'disabled';
  metadata: Record<string, string>;
}

export interface PartnerAssignmentRow extends Timestamps {
  id: string;
  tenantId: string;
  partnerId: string;
  merchantId: string;
  /** commission as a rate in millionths of the volume: 10000 is 1% */
  commissionRate: number;
  commissionFixed: Money | null;
  status: 'active' | 'suspended';
  effectiveFrom: Date;
  effectiveTo: Date | null;
}

export interface PartnerModels {
  Partner: RowModel<PartnerRow>;
  PartnerAssignment: RowModel<PartnerAssignmentRow>;
}

export function definePartnerModels(sequelize: Sequelize): PartnerModels {
  return {
    Partner: define<PartnerRow>(
      sequelize,
      'Partner',
      'partners',
      { id: pk, tenantId: UUID, name: STRING, contactEmail: STRING, status: STRING, metadata: JSONT, ...stamps },
      { resource: 'partner', tenant: 'tenantId', merchant: null, mode: null },
    ),
    PartnerAssignment: define<PartnerAssignmentRow>(
      sequelize,
      'PartnerAssignment',
      'partner_assignments',
      {
        id: pk,
        tenantId: UUID,
        partnerId: UUID,
        merchantId: UUID,
        commissionRate: INTEGER,
        commissionFixed: JSONT,
        status: STRING,
        effectiveFrom: DATE,
        effectiveTo: DATE,
        ...stamps,
      },
      // an assignment belongs to its merchant: a merchant caller could only ever see its own
      { resource: 'partner assignment', tenant: 'tenantId', merchant: 'merchantId', mode: null },
    ),
  };
}
