import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { merchantFieldFlags, merchantInput } from '../../src/cli/organization-flags';
import { validateWith } from '../../src/cli/validate';
import { UpdateMerchantBody } from '../../src/api/organization/schemas';
import type { Merchant } from '../../src/services/organization/merchants';
import { updateMerchant } from '../../src/services/organization/merchants';
import { contextForMerchant } from '../../src/cli/organization-context';
import { merchantRecord } from '../../src/cli/organization-output';

export default class MerchantsUpdate extends BaseCommand<typeof MerchantsUpdate> {
  static override summary = 'Change a merchant\'s name, default currency, MCC or website.';
  static override examples = ['<%= config.bin %> merchants update 0b9e… --mcc 5411'];
  static override args = { id: Args.string({ description: 'Merchant id', required: true }) };
  static override flags = merchantFieldFlags;

  async run(): Promise<Merchant> {
    const input = validateWith(UpdateMerchantBody, merchantInput(this.flags));
    const rt = await this.runtime();
    const merchant = await updateMerchant(await contextForMerchant(rt, this.args.id), this.args.id, input);
    this.log(merchantRecord(merchant));
    return merchant;
  }
}
