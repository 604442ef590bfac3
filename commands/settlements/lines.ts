import { BaseCommand } from '../../src/cli/base-command';
import { recordArg } from '../../src/cli/context';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { validateWith } from '../../src/cli/validate';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { SettlementLine } from '../../src/services/settlements/statements';
import { listSettlementLines } from '../../src/services/settlements/statements';
import { ListSettlementLinesQuery } from '../../src/api/settlements/schemas';
import { renderLines, settlementFlags } from '../../src/cli/settlements';

export default class SettlementsLines extends BaseCommand<typeof SettlementsLines> {
  static override summary = "List a settlement statement's lines, in the order the movements happened.";
  static override description =
    "Every movement of the merchant's balances in the statement's currency and day, from the ledger's entries (GET /v1/settlements/{id}/lines): a posting's fee is a line of its own (fee, dispute_fee, withdrawal_fee); --json gives its parts (feeBreakdown).";
  static override examples = [
    '<%= config.bin %> settlements lines 0190a1b2-…',
    '<%= config.bin %> settlements lines 0190a1b2-… --all --csv',
    '<%= config.bin %> settlements lines 0190a1b2-… --tenant 6f1c… --all --json',
  ];
  static override args = { id: recordArg('settlement', { description: 'Settlement statement id', required: true }) };
  static override flags = { ...settlementFlags, limit: sharedFlags.limit, cursor: sharedFlags.cursor, all: sharedFlags.all, ...tableFlags };

  async run(): Promise<Page<SettlementLine>> {
    const input = validateWith(ListSettlementLinesQuery, { cursor: this.flags.cursor, limit: this.flags.limit }, {});
    const ctx = await this.scope();
    const page = await this.listAll((p) => listSettlementLines(ctx, this.args.id, { ...p, sortOrder: input.sortOrder }));
    this.log(renderLines(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
