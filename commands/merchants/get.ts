import { BaseCommand } from '../../src/cli/base-command';
import type { Merchant } from '../../src/services/organization/merchants';
import { getMerchant } from '../../src/services/organization/merchants';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';
import { merchantRecord } from '../../src/cli/organization';

export default class MerchantsGet extends BaseCommand<typeof MerchantsGet> {
  static override summary = 'Show a merchant.';
  static override examples = ['<%= config.bin %> merchants get 0b9e… --json'];
  static override args = { id: recordArg('merchant', { description: 'Merchant id', required: true }) };
  static override flags = { ...recordOwnerFlags };

  async run(): Promise<Merchant> {
    const merchant = await getMerchant(await this.scope(), this.args.id);
    this.log(merchantRecord(merchant));
    return merchant;
  }
}
