import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import type { Page } from '../../src/db/scoped';
import type { RoutingRule } from '../../src/services/routing/rules';
import { listRoutingRuleVersions } from '../../src/services/routing/rules';
import { renderRules } from '../../src/cli/routing';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';
import { pageFooter, logBesideTable } from '../../src/cli/output';

export default class RoutingRulesVersions extends BaseCommand<typeof RoutingRulesVersions> {
  static override summary = 'List every version of the rule of a version, newest first.';
  static override examples = [
    '<%= config.bin %> routing-rules versions 6f1c…',
    '<%= config.bin %> routing-rules versions 6f1c… --json',
    '<%= config.bin %> routing-rules versions 6f1c… --all --json',
  ];
  static override scopeOf = atPlatform(false);
  static override args = { id: ownedArg('routingRule', { description: 'Any version id of the rule', required: true }) };
  static override flags = {
    ...ownerFlags('routingRule'),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<RoutingRule>> {
    const ctx = await this.scope();
    const page = await this.listAll((p) => listRoutingRuleVersions(ctx, this.args.id, { ...p, sortOrder: 'desc' }));
    this.log(renderRules(page, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
