import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { validateInput } from '../../src/cli/validate';
import { UpdateTerminalBody } from '../../src/api/processing/schemas';
import type { Terminal } from '../../src/services/processing/terminals/record';
import { updateTerminal } from '../../src/services/processing/terminals/terminals';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';
import { renderTerminal } from '../../src/cli/processing';
import { nullable } from '../../src/cli/flags';

export default class TerminalsUpdate extends BaseCommand<typeof TerminalsUpdate> {
  static override summary = "Update a terminal (lists replace the old ones and must be the provider's).";
  static override examples = [
    '<%= config.bin %> terminals update 6f1c… --name "EU cards" --currency EUR --currency GBP',
    '<%= config.bin %> terminals update 6f1c… --descriptor null --json',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('terminal', { description: 'Terminal id', required: true }) };
  static override flags = {
    ...ownerFlags('terminal'),
    name: Flags.string({ description: 'Display name' }),
    currency: Flags.string({ description: 'Supported currency (repeatable; replaces the list)', multiple: true }),
    brand: Flags.string({ description: 'Supported brand (repeatable; replaces the list)', multiple: true }),
    method: Flags.string({ description: 'Supported payment method type (repeatable; replaces the list)', multiple: true }),
    mcc: Flags.string({ description: 'Merchant category code ("null" clears)' }),
    descriptor: Flags.string({ description: 'Statement descriptor ("null" clears)' }),
    'cost-schedule': Flags.string({ description: 'Provider cost schedule id ("null" clears)' }),
  };

  async run(): Promise<Terminal> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      UpdateTerminalBody,
      {
        name: this.flags.name,
        supportedCurrencies: this.flags.currency,
        supportedBrands: this.flags.brand,
        supportedPaymentMethodTypes: this.flags.method,
        mcc: nullable(this.flags.mcc),
        descriptor: nullable(this.flags.descriptor),
        providerCostScheduleId: nullable(this.flags['cost-schedule']),
      },
      {
        supportedCurrencies: 'currency',
        supportedBrands: 'brand',
        supportedPaymentMethodTypes: 'method',
        providerCostScheduleId: 'cost-schedule',
      },
      { kind: 'terminal', id: this.args.id },
    );
    const terminal = await updateTerminal(ctx, this.args.id, input);
    this.log(renderTerminal(terminal));
    return terminal;
  }
}
