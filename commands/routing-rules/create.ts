import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { validateInput } from '../../src/cli/validate';
import { CreateRoutingRuleBody } from '../../src/api/routing/schemas';
import type { RoutingRule } from '../../src/services/routing/rules';
import { createRoutingRule } from '../../src/services/routing/rules';
import { renderRule, ruleFlagNames, ruleFlags, ruleInput } from '../../src/cli/routing';
import { atPlatform } from '../../src/cli/context';

export default class RoutingRulesCreate extends BaseCommand<typeof RoutingRulesCreate> {
  static override summary = 'Create a routing rule (draft, version 1) for a tenant.';
  static override description =
    "Conditions from --conditions-json and/or the condition flags; the outcome from --terminals (priority order), --split (weighted) or --outcome-json. --min-amount and --max-amount are in major units of --amount-currency (default: the one currency of --currencies), e.g. --min-amount 10.00; --min-amount-minor and --max-amount-minor take minor units (1000); --conditions-json takes the API's conditions, amounts in minor units. Tables show formatted amounts (10.00 EUR).";
  static override examples = [
    '<%= config.bin %> routing-rules create --tenant 6f1c… --name "EU cards" --currencies EUR --brands visa,mastercard --terminals 0b9e…,7a2d…',
    '<%= config.bin %> routing-rules create --tenant 6f1c… --name "Big EUR" --currencies EUR --min-amount 500.00 --terminals 7a2d…',
    '<%= config.bin %> routing-rules create --tenant 6f1c… --name "A/B" --split 0b9e…:70,7a2d…:30 --priority 10 --json',
    '<%= config.bin %> routing-rules create --tenant 6f1c… --name Big --conditions-json conditions.json --outcome-json \'{"type":"priority","terminals":["0b9e…"]}\'',
  ];
  static override scopeOf = atPlatform(false);
  static override flags = {
    tenant: Flags.string({ description: 'Tenant the rule belongs to', required: true }),
    ...ruleFlags,
  };

  async run(): Promise<RoutingRule> {
    const name = await this.required(this.flags.name, 'name', 'Rule name');
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      CreateRoutingRuleBody,
      { ...ruleInput(this.flags), name, tenantId: this.flags.tenant },
      { ...ruleFlagNames(this.flags), tenantId: 'tenant' },
    );
    const rule = await createRoutingRule(ctx, input);
    this.log(renderRule(rule));
    return rule;
  }
}
