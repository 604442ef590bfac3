import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../../src/cli/flags';
import { validateInput } from '../../../src/cli/validate';
import { pageFooter, logBesideTable } from '../../../src/cli/output';
import type { Page } from '../../../src/db/scoped';
import type { BalanceThreshold } from '../../../src/services/ledger/thresholds';
import { listBalanceThresholds } from '../../../src/services/ledger/thresholds';
import { ListBalanceThresholdsQuery } from '../../../src/api/ledger/schemas';
import { balanceScopeFlags } from '../../../src/cli/ledger/balances';
import { balanceTypeFlag, directionFlag, renderThresholds } from '../../../src/cli/ledger/thresholds';

export default class BalancesThresholdsList extends BaseCommand<typeof BalancesThresholdsList> {
  static override summary = 'List balance thresholds, newest first.';
  static override description =
    "The thresholds that raise balance.threshold_reached when a ledger posting brings a merchant's balance to them, as GET /v1/balance-thresholds lists them. Sandbox (test) thresholds unless --live. Amounts are shown in the currency's major unit; --json returns the records with integer minor units.";
  static override examples = [
    '<%= config.bin %> balances thresholds list --tenant 6f1c…',
    '<%= config.bin %> balances thresholds list --tenant 6f1c… --merchant 0b9e… --currency EUR --json',
    '<%= config.bin %> balances thresholds list --tenant 6f1c… --balance-type pending --direction below',
    '<%= config.bin %> balances thresholds list --tenant 6f1c… --all --json',
  ];
  static override flags = {
    ...balanceScopeFlags,
    'balance-type': balanceTypeFlag,
    direction: directionFlag,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<BalanceThreshold>> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      ListBalanceThresholdsQuery,
      {
        merchantId: this.flags.merchant,
        currency: this.flags.currency,
        balanceType: this.flags['balance-type'],
        direction: this.flags.direction,
        cursor: this.flags.cursor,
        limit: this.flags.limit,
      },
      { merchantId: 'merchant', balanceType: 'balance-type' },
    );
    const { cursor: _cursor, limit: _limit, sortOrder, ...filters } = input;
    const page = await this.listAll((p) => listBalanceThresholds(ctx, filters, { ...p, sortOrder }));
    this.log(renderThresholds(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
