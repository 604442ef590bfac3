import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../../src/cli/flags';
import { pageFooter, logBesideTable } from '../../../src/cli/output';
import type { Page } from '../../../src/db/scoped';
import type { AntifraudPlan } from '../../../src/services/risk/plans';
import type { AntifraudPlanStatus } from '../../../src/db/models/risk';
import { listAntifraudPlans } from '../../../src/services/risk/plans';
import { requireId } from '../../../src/cli/validate';
import { renderAntifraudPlans } from '../../../src/cli/risk/plans';
import { riskScopeFlags } from '../../../src/cli/risk/input';
import { validateInput } from '../../../src/cli/validate';
import { ListAntifraudPlansQuery } from '../../../src/api/risk/schemas';

export default class RiskPlansList extends BaseCommand<typeof RiskPlansList> {
  static override summary = "List a tenant's antifraud plans (sandbox, or live with --live), newest first.";
  static override examples = [
    '<%= config.bin %> risk plans list --tenant 6f1c…',
    '<%= config.bin %> risk plans list --tenant 6f1c… --status enabled --json',
    '<%= config.bin %> risk plans list --tenant 6f1c… --all --json',
  ];
  static override flags = {
    ...riskScopeFlags,
    status: Flags.string({ description: 'Only plans in this status', options: ['enabled', 'disabled'] }),
    merchant: Flags.string({ description: 'Only the plans of this one merchant' }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<AntifraudPlan>> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    if (this.flags.merchant !== undefined) requireId(this.flags.merchant, 'merchant', '--merchant');
    const ctx = await this.scope();
    const filters = await validateInput(
      ctx,
      ListAntifraudPlansQuery.pick({ merchantId: true }),
      { merchantId: this.flags.merchant },
      { merchantId: 'merchant' },
    );
    const page = await this.listAll((p) =>
      listAntifraudPlans(
        ctx,
        { status: this.flags.status as AntifraudPlanStatus | undefined, merchantId: filters.merchantId },
        { ...p, sortOrder: 'desc' },
      ),
    );
    this.log(renderAntifraudPlans(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
