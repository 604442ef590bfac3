import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../../src/cli/flags';
import { pageFooter, logBesideTable } from '../../../src/cli/output';
import type { Page } from '../../../src/db/scoped';
import type { ScoringRule } from '../../../src/services/risk/rules';
import type { RiskSignal } from '../../../src/db/models/risk';
import { listScoringRules } from '../../../src/services/risk/rules';
import { renderScoringRules } from '../../../src/cli/risk/rules';
import { riskScopeFlags } from '../../../src/cli/risk/input';

export default class RiskRulesList extends BaseCommand<typeof RiskRulesList> {
  static override summary = "List a tenant's scoring rules (sandbox, or live with --live), newest first.";
  static override examples = [
    '<%= config.bin %> risk rules list --tenant 6f1c…',
    '<%= config.bin %> risk rules list --tenant 6f1c… --signal block --active --json',
    '<%= config.bin %> risk rules list --tenant 6f1c… --all --json',
  ];
  static override flags = {
    ...riskScopeFlags,
    signal: Flags.string({ description: 'Only rules of this signal', options: ['allow', 'challenge', 'review', 'block'] }),
    active: Flags.boolean({ description: 'Only active rules', exclusive: ['inactive'] }),
    inactive: Flags.boolean({ description: 'Only inactive rules', exclusive: ['active'] }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<ScoringRule>> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const ctx = await this.scope();
    const page = await this.listAll((p) =>
      listScoringRules(
        ctx,
        {
          signal: this.flags.signal as RiskSignal | undefined,
          isActive: this.flags.active ? true : this.flags.inactive ? false : undefined,
        },
        { ...p, sortOrder: 'desc' },
      ),
    );
    this.log(renderScoringRules(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
