import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { validateInput } from '../../src/cli/validate';
import type { Page } from '../../src/db/scoped';
import type { BalanceTransaction } from '../../src/services/ledger/balance-transactions';
import { ListBalanceTransactionsQuery } from '../../src/api/ledger/schemas';
import { listBalanceTransactions } from '../../src/services/ledger/balance-transactions';
import { balanceScopeFlags, renderBalanceTransactions } from '../../src/cli/ledger/balances';
import { pageFooter, logBesideTable } from '../../src/cli/output';

export default class BalancesTransactions extends BaseCommand<typeof BalancesTransactions> {
  static override summary = 'List ledger entries of merchant balances, newest first.';
  static override description =
    'What GET /v1/balance-transactions answers: one line per entry on a merchant balance, with its signed amount.';
  static override examples = [
    '<%= config.bin %> balances transactions --tenant 6f1c… --merchant 0b9e…',
    '<%= config.bin %> balances transactions --tenant 6f1c… --type refund --json',
    '<%= config.bin %> balances transactions --tenant 6f1c… --merchant 0b9e… --all --json',
  ];
  static override flags = {
    ...balanceScopeFlags,
    all: sharedFlags.all,
    type: Flags.string({
      description: 'Only entries of this source type',
      options: ['payment', 'refund', 'release', 'reserve_release', 'withdrawal', 'adjustment', 'dispute', 'dispute_reversal'],
    }),
    'balance-type': Flags.string({ description: 'Only entries of this balance', options: ['pending', 'available', 'reserved', 'payable'] }),
    source: Flags.string({ description: 'Only entries of this source (payment, refund, release or withdrawal id)' }),
    ...tableFlags,
  };

  async run(): Promise<Page<BalanceTransaction>> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      ListBalanceTransactionsQuery,
      {
        merchantId: this.flags.merchant,
        currency: this.flags.currency,
        type: this.flags.type,
        balanceType: this.flags['balance-type'],
        sourceId: this.flags.source,
        cursor: this.flags.cursor,
        limit: this.flags.limit,
      },
      { merchantId: 'merchant', sourceId: 'source' },
    );
    const { cursor: _cursor, limit: _limit, sortOrder, ...filters } = input;
    const page = await this.listAll((p) => listBalanceTransactions(ctx, filters, { ...p, sortOrder }));
    this.log(renderBalanceTransactions(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
