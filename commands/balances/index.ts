import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { validateInput } from '../../src/cli/validate';
import type { Page } from '../../src/db/scoped';
import type { Balance } from '../../src/services/ledger/balances';
import { ListBalancesQuery } from '../../src/api/ledger/schemas';
import { listBalances } from '../../src/services/ledger/balances';
import { balanceScopeFlags, renderBalances } from '../../src/cli/ledger/balances';
import { pageFooter, logBesideTable } from '../../src/cli/output';

export default class Balances extends BaseCommand<typeof Balances> {
  static override summary = 'Show merchant balances (pending, available, reserved, payable) per currency.';
  static override description =
    "Each balance is the sum of its ledger entries, as GET /v1/balances reports it. Amounts are shown in the currency's major unit; --json returns the records with integer minor units.";
  static override examples = [
    '<%= config.bin %> balances --tenant 6f1c…',
    '<%= config.bin %> balances --tenant 6f1c… --merchant 0b9e… --currency EUR',
    '<%= config.bin %> balances --merchant 0b9e… --json',
    '<%= config.bin %> balances --tenant 6f1c… --all --json',
  ];
  static override flags = { ...balanceScopeFlags, all: sharedFlags.all, ...tableFlags };

  async run(): Promise<Page<Balance>> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      ListBalancesQuery,
      { merchantId: this.flags.merchant, currency: this.flags.currency, cursor: this.flags.cursor, limit: this.flags.limit },
      { merchantId: 'merchant' },
    );
    const { cursor: _cursor, limit: _limit, ...filters } = input;
    const page = await this.listAll((p) => listBalances(ctx, filters, p));
    this.log(renderBalances(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
