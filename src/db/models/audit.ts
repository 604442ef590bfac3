import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, JSONT, BOOLEAN, type RowModel, type Timestamps } from '../model-kit';

// The audit trail.

export interface AuditEntryRow extends Timestamps {
  id: string;
  tenantId: string | null;
  merchantId: string | null;
  livemode: boolean;
  actorType: string;
  actorId: string;
  /** the operating-system account of an operator at the terminal (os:<name>); null for other actors */
  actorName: string | null;
  action: string;
  targetType: string;
  targetId: string;
  before: unknown;
  after: unknown;
  requestId: string | null;
}

export interface AuditModels {
  AuditEntry: RowModel<AuditEntryRow>;
}

export function defineAuditModels(sequelize: Sequelize): AuditModels {
  return {
    AuditEntry: define<AuditEntryRow>(
      sequelize,
      'AuditEntry',
      'audit_entries',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        livemode: BOOLEAN,
        actorType: STRING,
        actorId: STRING,
        actorName: STRING,
        action: STRING,
        targetType: STRING,
        targetId: STRING,
        before: JSONT,
        after: JSONT,
        requestId: STRING,
        ...stamps,
      },
      {
        resource: 'audit entry',
        tenant: 'tenantId',
        merchant: 'merchantId',
        mode: 'livemode',
        tenantNullable: true,
        writtenBySystem: true,
      },
    ),
  };
}
