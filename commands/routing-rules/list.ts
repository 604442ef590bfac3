import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import type { Page } from '../../src/db/scoped';
import type { RoutingRule } from '../../src/services/routing/rules';
import type { RoutingRuleStatus } from '../../src/db/models';
import { listRoutingRules } from '../../src/services/routing/rules';
import { renderRules, routingListFlags } from '../../src/cli/routing';
import { atPlatform } from '../../src/cli/context';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import { validateInput } from '../../src/cli/validate';
import { ListRoutingRulesQuery } from '../../src/api/routing/schemas';

export default class RoutingRulesList extends BaseCommand<typeof RoutingRulesList> {
  static override summary = 'List routing rule versions, of one tenant or of all.';
  static override examples = [
    '<%= config.bin %> routing-rules list --tenant 6f1c…',
    '<%= config.bin %> routing-rules list --status active --json',
    '<%= config.bin %> routing-rules list --name "eu cards"',
    '<%= config.bin %> routing-rules list --tenant 6f1c… --all --json',
  ];
  static override scopeOf = atPlatform(false);
  static override flags = {
    ...routingListFlags,
    all: sharedFlags.all,
    status: Flags.string({ description: 'Only versions in this status', options: ['draft', 'active', 'archived'] }),
    rule: Flags.string({ description: 'Only the versions of this rule (its ruleId)' }),
    name: Flags.string({ description: 'Only rules whose name contains this text (case-insensitive)' }),
    ...tableFlags,
  };

  async run(): Promise<Page<RoutingRule>> {
    const ctx = await this.scope();
    const filters = await validateInput(
      ctx,
      ListRoutingRulesQuery.pick({ tenantId: true, ruleId: true }),
      { tenantId: this.flags.tenant, ruleId: this.flags.rule },
      { tenantId: 'tenant', ruleId: 'rule' },
    );
    const page = await this.listAll((p) =>
      listRoutingRules(
        ctx,
        {
          tenantId: filters.tenantId,
          status: this.flags.status as RoutingRuleStatus | undefined,
          ruleId: filters.ruleId,
          name: this.flags.name,
        },
        { ...p, sortOrder: 'desc' },
      ),
    );
    this.log(renderRules(page, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
