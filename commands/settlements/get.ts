import { BaseCommand } from '../../src/cli/base-command';
import { recordArg } from '../../src/cli/context';
import type { SettlementStatement } from '../../src/services/settlements/statements';
import { getSettlement } from '../../src/services/settlements/statements';
import { renderStatement, settlementFlags } from '../../src/cli/settlements';

export default class SettlementsGet extends BaseCommand<typeof SettlementsGet> {
  static override summary = 'Show a settlement statement: its day, status, opening and closing balances and totals.';
  static override description =
    "Found by id in either mode; read as its tenant's operator (the fee's parts are included in --json). An open statement's figures are computed from the ledger's entries; a finalized one's are those stored when it was finalized.";
  static override examples = [
    '<%= config.bin %> settlements get 0190a1b2-…',
    '<%= config.bin %> settlements get 0190a1b2-… --tenant 6f1c… --json',
  ];
  static override args = { id: recordArg('settlement', { description: 'Settlement statement id', required: true }) };
  static override flags = settlementFlags;

  async run(): Promise<SettlementStatement> {
    const statement = await getSettlement(await this.scope(), this.args.id);
    this.log(renderStatement(statement));
    return statement;
  }
}
