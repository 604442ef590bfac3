import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { validateInput } from '../../src/cli/validate';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { Withdrawal } from '../../src/services/withdrawals';
import { ListWithdrawalsQuery } from '../../src/api/withdrawals/schemas';
import { listWithdrawals } from '../../src/services/withdrawals';
import { operatorFlags, renderWithdrawals } from '../../src/cli/withdrawals';
import { asOperatorOfTenant, withScope } from '../../src/cli/context';

export default class WithdrawalsList extends BaseCommand<typeof WithdrawalsList> {
  static override summary = "List a tenant's withdrawals, newest first: amount, fee, status and the masked destination.";
  static override description =
    "Sandbox (test) withdrawals unless --live. Amounts are shown in the currency's major unit; --json returns the records (GET /v1/withdrawals) with integer minor units. Destinations are masked as in every read: only `withdrawals execute` shows one in full, to the operator paying it.";
  static override examples = [
    '<%= config.bin %> withdrawals list --tenant 6f1c…',
    '<%= config.bin %> withdrawals list --tenant 6f1c… --status pending',
    '<%= config.bin %> withdrawals list --tenant 6f1c… --merchant 0b9e… --currency EUR --json',
    '<%= config.bin %> withdrawals list --tenant 6f1c… --all --json',
  ];
  static override flags = {
    tenant: withScope(sharedFlags.tenant, asOperatorOfTenant),
    merchant: Flags.string({ description: "Only this merchant's withdrawals (entityId)" }),
    status: Flags.string({
      description: 'Only withdrawals in this status',
      options: ['pending', 'approved', 'rejected', 'canceled', 'executing', 'completed', 'failed'],
    }),
    currency: Flags.string({ description: 'Only this currency (ISO 4217, e.g. EUR)' }),
    live: sharedFlags.live,
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...operatorFlags,
    ...tableFlags,
  };

  async run(): Promise<Page<Withdrawal>> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      ListWithdrawalsQuery,
      {
        status: this.flags.status,
        entityId: this.flags.merchant,
        currency: this.flags.currency,
        cursor: this.flags.cursor,
        limit: this.flags.limit,
      },
      { entityId: 'merchant' },
    );
    const { cursor: _cursor, limit: _limit, sortOrder, ...filters } = input;
    const page = await this.listAll((p) => listWithdrawals(ctx, filters, { ...p, sortOrder: sortOrder ?? 'desc' }));
    this.log(renderWithdrawals(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
