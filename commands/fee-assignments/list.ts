import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { listFlags, sharedFlags, tableFlags } from '../../src/cli/flags';
import { validateInput } from '../../src/cli/validate';
import { FEE_LEVELS, ListFeeAssignmentsQuery, PAYMENT_METHODS } from '../../src/api/fees/schemas';
import type { Page } from '../../src/db/scoped';
import type { FeeAssignment } from '../../src/services/fees/schedules';
import { listFeeAssignments } from '../../src/services/fees/schedules';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import { atPlatform } from '../../src/cli/context';
import { renderFeeAssignments } from '../../src/cli/fees';

export default class FeeAssignmentsList extends BaseCommand<typeof FeeAssignmentsList> {
  static override summary = 'List fee assignments, filtered as the API filters them.';
  static override examples = [
    '<%= config.bin %> fee-assignments list --tenant 6f1c… --active-only',
    '<%= config.bin %> fee-assignments list --level merchant --target 0b9e… --status open --json',
    '<%= config.bin %> fee-assignments list --tenant 6f1c… --active-only --all --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    ...listFlags,
    all: sharedFlags.all,
    level: Flags.string({ description: 'Only this level', options: [...FEE_LEVELS] }),
    target: Flags.string({ description: 'Only this target entity id' }),
    schedule: Flags.string({ description: 'Only this fee schedule id' }),
    currency: Flags.string({ description: 'Only this currency' }),
    'payment-method': Flags.string({ description: 'Only this payment method', options: [...PAYMENT_METHODS] }),
    status: Flags.string({ description: 'open or closed', options: ['open', 'closed'] }),
    'active-only': Flags.boolean({ description: 'Only assignments in effect now' }),
    ...tableFlags,
  };

  async run(): Promise<Page<FeeAssignment>> {
    const ctx = await this.scope();
    const query = await validateInput(
      ctx,
      ListFeeAssignmentsQuery,
      {
        tenantId: this.flags.tenant,
        level: this.flags.level,
        targetEntityId: this.flags.target,
        feeScheduleId: this.flags.schedule,
        currency: this.flags.currency,
        paymentMethod: this.flags['payment-method'],
        status: this.flags.status,
        activeOnly: this.flags['active-only'] ? 'true' : undefined,
        limit: this.flags.limit,
        cursor: this.flags.cursor,
      },
      { tenantId: 'tenant', targetEntityId: 'target', feeScheduleId: 'schedule' },
    );
    const { cursor: _cursor, limit: _limit, sortOrder, ...filters } = query;
    const page = await this.listAll((p) => listFeeAssignments(ctx, filters, { ...p, sortOrder }));
    this.log(renderFeeAssignments(page, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
