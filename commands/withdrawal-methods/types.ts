import { BaseCommand } from '../../src/cli/base-command';
import { tableFlags } from '../../src/cli/flags';
import type { Page } from '../../src/db/scoped';
import type { WithdrawalMethodTypeRecord } from '../../src/services/withdrawal-methods/methods';
import { listWithdrawalMethodTypes } from '../../src/services/withdrawal-methods/methods';
import { renderTypes } from '../../src/cli/withdrawal-methods';

export default class WithdrawalMethodsTypes extends BaseCommand<typeof WithdrawalMethodsTypes> {
  static override summary = 'List the withdrawal method types and the details each one takes.';
  static override description =
    "The catalog of GET /v1/withdrawal-method-types (fixtures/withdrawal-method-types.json): each type's currencies (empty: any), required and optional detail keys. --json adds how each detail is checked (format, lengths, allowed values, masked).";
  static override examples = ['<%= config.bin %> withdrawal-methods types', '<%= config.bin %> withdrawal-methods types --json'];

  static override flags = { ...tableFlags };

  async run(): Promise<Page<WithdrawalMethodTypeRecord>> {
    const page = listWithdrawalMethodTypes();
    this.log(renderTypes(page.data, this.flags));
    return page;
  }
}
