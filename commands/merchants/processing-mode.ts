import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { validateWith } from '../../src/cli/validate';
import { PutProcessingModeBody } from '../../src/api/organization/schemas';
import type { Merchant } from '../../src/services/organization/merchants';
import { setProcessingMode } from '../../src/services/organization/merchants';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class MerchantsProcessingMode extends BaseCommand<typeof MerchantsProcessingMode> {
  static override summary = "Set the merchant's processing mode: principal or passthrough.";
  static override examples = ['<%= config.bin %> merchants processing-mode 0b9e… passthrough'];
  static override args = {
    id: recordArg('merchant', { description: 'Merchant id', required: true }),
    value: Args.string({ description: 'principal or passthrough', required: true, options: ['principal', 'passthrough'] }),
  };
  static override flags = { ...recordOwnerFlags };

  async run(): Promise<Merchant> {
    const { processingMode } = validateWith(PutProcessingModeBody, { processingMode: this.args.value });
    const merchant = await setProcessingMode(await this.scope(), this.args.id, processingMode);
    this.log(`Merchant ${merchant.name} (${merchant.id}): processing mode ${merchant.processingMode}.`);
    return merchant;
  }
}
