import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { validateWith } from '../../../src/cli/validate';
import { CreateRestrictionBody } from '../../../src/api/processing/schemas';
import type { TerminalRestriction } from '../../../src/services/processing/terminals/restrictions';
import { createRestriction } from '../../../src/services/processing/terminals/restrictions';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';
import { renderRestrictions, restrictionFlags } from '../../../src/cli/processing';

export default class RestrictionsCreate extends BaseCommand<typeof RestrictionsCreate> {
  static override summary = 'Create a terminal restriction: allow or deny a payment method and/or brand.';
  static override examples = [
    '<%= config.bin %> terminals restrictions create 6f1c… --action deny --brand amex',
    '<%= config.bin %> terminals restrictions create 6f1c… --action allow --payment-method card --json',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('terminal', { description: 'Terminal id', required: true }) };
  static override flags = {
    ...ownerFlags('terminal'),
    action: Flags.string({ description: 'allow or deny', options: ['allow', 'deny'] }),
    ...restrictionFlags,
  };

  async run(): Promise<TerminalRestriction> {
    const action = await this.required(this.flags.action, 'action', 'Action (allow or deny)');
    const input = validateWith(
      CreateRestrictionBody,
      { action, paymentMethod: this.flags['payment-method'], brand: this.flags.brand, transactionType: this.flags['transaction-type'] },
      { paymentMethod: 'payment-method', transactionType: 'transaction-type' },
    );
    const ctx = await this.scope();
    const restriction = await createRestriction(ctx, this.args.id, input);
    this.log(renderRestrictions([restriction]));
    return restriction;
  }
}
