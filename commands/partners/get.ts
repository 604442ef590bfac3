import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import type { Partner } from '../../src/services/partners';
import { getPartner } from '../../src/services/partners';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class PartnersGet extends BaseCommand<typeof PartnersGet> {
  static override summary = 'Show one partner.';
  static override examples = ['<%= config.bin %> partners get 6f1c…'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('partner', { description: 'Partner id', required: true }) };
  static override flags = { ...ownerFlags('partner') };

  async run(): Promise<Partner> {
    const ctx = await this.scope();
    const partner = await getPartner(ctx, this.args.id);
    this.log(renderRecord({ ...partner }));
    return partner;
  }
}
