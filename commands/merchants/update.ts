import { BaseCommand } from '../../src/cli/base-command';
import { validateWith } from '../../src/cli/validate';
import { UpdateMerchantBody } from '../../src/api/organization/schemas';
import type { Merchant } from '../../src/services/organization/merchants';
import { updateMerchant } from '../../src/services/organization/merchants';
import { merchantFieldFlags, merchantInput, merchantRecord } from '../../src/cli/organization';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class MerchantsUpdate extends BaseCommand<typeof MerchantsUpdate> {
  static override summary = "Change a merchant's name, default currency, MCC or website.";
  static override examples = ['<%= config.bin %> merchants update 0b9e… --mcc 5411'];
  static override args = { id: recordArg('merchant', { description: 'Merchant id', required: true }) };
  static override flags = { ...recordOwnerFlags, ...merchantFieldFlags };

  async run(): Promise<Merchant> {
    const input = validateWith(UpdateMerchantBody, merchantInput(this.flags));
    const merchant = await updateMerchant(await this.scope(), this.args.id, input);
    this.log(merchantRecord(merchant));
    return merchant;
  }
}
