import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { validateInput } from '../../src/cli/validate';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { SettlementStatement } from '../../src/services/settlements/statements';
import { listSettlements } from '../../src/services/settlements/statements';
import { ListSettlementsQuery } from '../../src/api/settlements/schemas';
import { balanceScopeFlags } from '../../src/cli/ledger/balances';
import { renderStatements, statusFlag } from '../../src/cli/settlements';

export default class SettlementsList extends BaseCommand<typeof SettlementsList> {
  static override summary = 'List settlement statements (one per merchant, currency and UTC day), newest first.';
  static override description =
    "As GET /v1/settlements lists them: a statement is opened by the merchant's first ledger movement of the day and finalized by the settlements job after the day; a day without a movement has none. Sandbox (test) statements unless --live; every tenant's (as the platform) without --tenant. Amounts are shown in the currency's major unit; --json returns the records with integer minor units.";
  static override examples = [
    '<%= config.bin %> settlements list --tenant 6f1c…',
    '<%= config.bin %> settlements list --tenant 6f1c… --merchant 0b9e… --currency EUR --status finalized',
    '<%= config.bin %> settlements list --tenant 6f1c… --period-from 2026-11-01 --period-to 2026-11-30 --all --json',
  ];
  static override flags = {
    ...balanceScopeFlags,
    status: statusFlag,
    'period-from': Flags.string({ description: 'Statements of this day (UTC, YYYY-MM-DD) and later' }),
    'period-to': Flags.string({ description: 'Statements of this day (UTC, YYYY-MM-DD) and earlier' }),
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<SettlementStatement>> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      ListSettlementsQuery,
      {
        merchantId: this.flags.merchant,
        currency: this.flags.currency,
        status: this.flags.status,
        periodFrom: this.flags['period-from'],
        periodTo: this.flags['period-to'],
        cursor: this.flags.cursor,
        limit: this.flags.limit,
      },
      { merchantId: 'merchant', periodFrom: 'period-from', periodTo: 'period-to' },
    );
    const { cursor: _cursor, limit: _limit, sortOrder, ...filters } = input;
    const page = await this.listAll((p) => listSettlements(ctx, filters, { ...p, sortOrder }));
    this.log(renderStatements(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
