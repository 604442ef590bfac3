import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { Limit } from '../../src/services/limits/manage';
import { disableLimit, getLimit, ownerOfLimit } from '../../src/services/limits/manage';
import { getChannel } from '../../src/services/channels';
import { getMerchant } from '../../src/services/organization/merchants';
import { getTerminal } from '../../src/services/processing/terminals/terminals';
import { limitLabel } from '../../src/cli/prompts';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class LimitsDisable extends BaseCommand<typeof LimitsDisable> {
  static override summary = 'Disable a limit (of a merchant or a channel) by its id.';
  static override examples = ['<%= config.bin %> limits disable 9d2e…', '<%= config.bin %> limits disable 9d2e… --yes --json'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('limit', { description: 'Limit id', required: true }) };
  static override flags = { ...ownerFlags('limit'), yes: sharedFlags.yes };

  async run(): Promise<Limit> {
    await this.confirmAction(this.flags.yes, async () => {
      const ctx = await this.scope();
      const owner = await ownerOfLimit(ctx, this.args.id);
      const limit = await getLimit(ctx, owner, this.args.id);
      const get = { merchant: getMerchant, channel: getChannel, terminal: getTerminal }[owner.entityType];
      const entity = await get(ctx, owner.entityId);
      return {
        verb: 'Disable',
        noun: 'limit',
        name: limitLabel(limit),
        id: limit.id,
        of: { noun: owner.entityType, name: entity.name, id: entity.id },
      };
    });
    const ctx = await this.scope();
    const limit = await disableLimit(ctx, await ownerOfLimit(ctx, this.args.id), this.args.id);
    this.log(`Limit ${limit.id} of ${limit.entityType} ${limit.entityId} is now ${limit.status}.`);
    return limit;
  }
}
