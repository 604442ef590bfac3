import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { validateInput } from '../../src/cli/validate';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { WithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { ListWithdrawalMethodsQuery } from '../../src/api/withdrawal-methods/schemas';
import { listWithdrawalMethods } from '../../src/services/withdrawal-methods/methods';
import { methodScopeFlags, renderMethods } from '../../src/cli/withdrawal-methods';

export default class WithdrawalMethodsList extends BaseCommand<typeof WithdrawalMethodsList> {
  static override summary = "List merchants' saved withdrawal methods, newest first.";
  static override description =
    'Sandbox (test) methods unless --live. Details are masked as every read shows them (an IBAN or account number keeps its last characters only); --json returns the records of GET /v1/merchant-withdrawal-methods.';
  static override examples = [
    '<%= config.bin %> withdrawal-methods list --tenant 6f1c…',
    '<%= config.bin %> withdrawal-methods list --tenant 6f1c… --merchant 0b9e… --status cooling',
    '<%= config.bin %> withdrawal-methods list --tenant 6f1c… --type us_bank_account --json',
    '<%= config.bin %> withdrawal-methods list --tenant 6f1c… --all --json',
  ];
  static override flags = {
    ...methodScopeFlags,
    merchant: Flags.string({ description: "Only this merchant's methods" }),
    type: Flags.string({ description: 'Only methods of this type (see withdrawal-methods types)' }),
    status: Flags.string({ description: 'Only methods in this status', options: ['cooling', 'active', 'suspended'] }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<WithdrawalMethod>> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      ListWithdrawalMethodsQuery,
      {
        merchantId: this.flags.merchant,
        methodType: this.flags.type,
        status: this.flags.status,
        cursor: this.flags.cursor,
        limit: this.flags.limit,
      },
      { merchantId: 'merchant', methodType: 'type' },
    );
    const { cursor: _cursor, limit: _limit, sortOrder, livemode: _livemode, ...filters } = input;
    const page = await this.listAll((p) => listWithdrawalMethods(ctx, filters, { ...p, sortOrder }));
    this.log(renderMethods(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
