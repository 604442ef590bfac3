import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import type { Partner } from '../../src/services/partners';
import { getPartner } from '../../src/services/partners';
import { platformContext, ownedArg, ownerFlags } from '../../src/cli/context';

export default class PartnersGet extends BaseCommand<typeof PartnersGet> {
  static override summary = 'Show one partner.';
  static override examples = ['<%= config.bin %> partners get 6f1c…'];
  static override args = { id: ownedArg('partner', { description: 'Partner id', required: true }) };
  static override flags = { ...ownerFlags('partner') };

  async run(): Promise<Partner> {
    const rt = await this.runtime();
    const partner = await getPartner(platformContext(rt), this.args.id);
    this.log(renderRecord({ ...partner }));
    return partner;
  }
}
