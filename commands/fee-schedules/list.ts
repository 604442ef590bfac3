import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { listFlags, sharedFlags, tableFlags } from '../../src/cli/flags';
import type { Page } from '../../src/db/scoped';
import type { FeeSchedule, FeeScheduleStatus } from '../../src/services/fees/schedules';
import { listFeeSchedules } from '../../src/services/fees/schedules';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import { atPlatform } from '../../src/cli/context';
import { renderSchedules } from '../../src/cli/fees';
import { validateInput } from '../../src/cli/validate';
import { ListFeeSchedulesQuery } from '../../src/api/fees/schemas';

export default class FeeSchedulesList extends BaseCommand<typeof FeeSchedulesList> {
  static override summary = 'List fee schedules, of one tenant or of all.';
  static override examples = [
    '<%= config.bin %> fee-schedules list --tenant 6f1c…',
    '<%= config.bin %> fee-schedules list --status active --json',
    '<%= config.bin %> fee-schedules list --tenant 6f1c… --all --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    ...listFlags,
    all: sharedFlags.all,
    status: Flags.string({ description: 'Only schedules in this status', options: ['draft', 'active', 'archived'] }),
    ...tableFlags,
  };

  async run(): Promise<Page<FeeSchedule>> {
    const ctx = await this.scope();
    const filters = await validateInput(
      ctx,
      ListFeeSchedulesQuery.pick({ tenantId: true }),
      { tenantId: this.flags.tenant },
      { tenantId: 'tenant' },
    );
    const page = await this.listAll((p) =>
      listFeeSchedules(
        ctx,
        { tenantId: filters.tenantId, status: this.flags.status as FeeScheduleStatus | undefined },
        { ...p, sortOrder: 'desc' },
      ),
    );
    this.log(renderSchedules(page, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
