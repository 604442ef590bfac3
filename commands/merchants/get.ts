import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import type { Merchant } from '../../src/services/organization/merchants';
import { getMerchant } from '../../src/services/organization/merchants';
import { contextForMerchant } from '../../src/cli/organization-context';
import { merchantRecord } from '../../src/cli/organization-output';

export default class MerchantsGet extends BaseCommand<typeof MerchantsGet> {
  static override summary = 'Show a merchant.';
  static override examples = ['<%= config.bin %> merchants get 0b9e… --json'];
  static override args = { id: Args.string({ description: 'Merchant id', required: true }) };

  async run(): Promise<Merchant> {
    const rt = await this.runtime();
    const merchant = await getMerchant(await contextForMerchant(rt, this.args.id), this.args.id);
    this.log(merchantRecord(merchant));
    return merchant;
  }
}
