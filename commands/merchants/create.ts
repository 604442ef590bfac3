import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { validateInput } from '../../src/cli/validate';
import { CreateMerchantBody } from '../../src/api/organization/schemas';
import type { Merchant } from '../../src/services/organization/merchants';
import { createMerchant } from '../../src/services/organization/merchants';
import { merchantFieldFlags, merchantInput, merchantRecord } from '../../src/cli/organization';
import { recordFlagScope, withScope } from '../../src/cli/context';

export default class MerchantsCreate extends BaseCommand<typeof MerchantsCreate> {
  static override summary = 'Create a merchant of a company (active, sandbox only until approved for live).';
  static override examples = ['<%= config.bin %> merchants create --company 0b9e… --name "Acme Shop" --default-currency EUR --mcc 5734'];
  static override flags = {
    company: withScope(Flags.string({ description: 'Company id', required: true }), recordFlagScope('company', 'company')),
    ...merchantFieldFlags,
  };

  async run(): Promise<Merchant> {
    const name = await this.required(this.flags.name, 'name', 'Merchant name');
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      CreateMerchantBody,
      { ...merchantInput(this.flags), name, companyId: this.flags.company },
      { companyId: 'company' },
    );
    const merchant = await createMerchant(ctx, input);
    this.log(merchantRecord(merchant));
    return merchant;
  }
}
