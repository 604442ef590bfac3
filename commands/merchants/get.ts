import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { organization } from '../../src/cli/organization-services';
import type { Merchant } from '../../src/services/organization/merchants';

export default class MerchantsGet extends BaseCommand<typeof MerchantsGet> {
  static override summary = 'Show a merchant.';
  static override examples = ['<%= config.bin %> merchants get 0b9e… --json'];
  static override args = { id: Args.string({ description: 'Merchant id', required: true }) };

  async run(): Promise<Merchant> {
    const rt = await this.runtime();
    const merchant = await organization.merchants().getMerchant(await organization.context().contextForMerchant(rt, this.args.id), this.args.id);
    this.log(organization.output().merchantRecord(merchant));
    return merchant;
  }
}
