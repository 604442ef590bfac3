import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { validateInput } from '../../src/cli/validate';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { Payout } from '../../src/services/payouts/payouts';
import { listPayouts } from '../../src/services/payouts/payouts';
import { ListPayoutsQuery } from '../../src/api/payouts/schemas';
import { balanceScopeFlags } from '../../src/cli/ledger/balances';
import { payoutStatusFlag, renderPayouts } from '../../src/cli/payouts';

export default class PayoutsList extends BaseCommand<typeof PayoutsList> {
  static override summary = 'List payouts made by payout schedules, newest first: amount, fee, status, period and the masked destination.';
  static override description =
    "As GET /v1/payouts lists them. Sandbox (test) payouts unless --live. Amounts are shown in the currency's major unit; --json returns the records with integer minor units.";
  static override examples = [
    '<%= config.bin %> payouts list --tenant 6f1c…',
    '<%= config.bin %> payouts list --tenant 6f1c… --merchant 0b9e… --status paid',
    '<%= config.bin %> payouts list --tenant 6f1c… --currency EUR --json',
    '<%= config.bin %> payouts list --tenant 6f1c… --all --json',
  ];
  static override flags = { ...balanceScopeFlags, status: payoutStatusFlag, all: sharedFlags.all, ...tableFlags };

  async run(): Promise<Page<Payout>> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      ListPayoutsQuery,
      {
        merchantId: this.flags.merchant,
        currency: this.flags.currency,
        status: this.flags.status,
        cursor: this.flags.cursor,
        limit: this.flags.limit,
      },
      { merchantId: 'merchant' },
    );
    const { cursor: _cursor, limit: _limit, sortOrder, ...filters } = input;
    const page = await this.listAll((p) => listPayouts(ctx, filters, { ...p, sortOrder }));
    this.log(renderPayouts(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
