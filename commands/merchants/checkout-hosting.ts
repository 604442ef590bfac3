import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { validateWith } from '../../src/cli/validate';
import { PutCheckoutHostingBody } from '../../src/api/organization/schemas';
import type { Merchant } from '../../src/services/organization/merchants';
import { setCheckoutHosting } from '../../src/services/organization/merchants';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class MerchantsCheckoutHosting extends BaseCommand<typeof MerchantsCheckoutHosting> {
  static override summary = "Set who hosts the merchant's checkout: self_hosted or provider_hosted.";
  static override examples = ['<%= config.bin %> merchants checkout-hosting 0b9e… provider_hosted'];
  static override args = {
    id: recordArg('merchant', { description: 'Merchant id', required: true }),
    value: Args.string({ description: 'self_hosted or provider_hosted', required: true, options: ['self_hosted', 'provider_hosted'] }),
  };
  static override flags = { ...recordOwnerFlags };

  async run(): Promise<Merchant> {
    const { checkoutHosting } = validateWith(PutCheckoutHostingBody, { checkoutHosting: this.args.value });
    const merchant = await setCheckoutHosting(await this.scope(), this.args.id, checkoutHosting);
    this.log(`Merchant ${merchant.name} (${merchant.id}): checkout ${merchant.checkoutHosting}.`);
    return merchant;
  }
}
