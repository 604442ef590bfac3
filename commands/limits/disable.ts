import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { partnerServices } from '../../src/cli/partners-services';
import { platformCtx } from '../../src/cli/partners-flags';
import type { Limit } from '../../src/services/limits';

export default class LimitsDisable extends BaseCommand<typeof LimitsDisable> {
  static override summary = 'Disable a limit (of a merchant or a channel) by its id.';
  static override examples = ['<%= config.bin %> limits disable 9d2e…', '<%= config.bin %> limits disable 9d2e… --json'];
  static override args = { id: Args.string({ description: 'Limit id', required: true }) };

  async run(): Promise<Limit> {
    const rt = await this.runtime();
    const ctx = platformCtx(rt);
    const limits = partnerServices.limits();
    const limit = await limits.disableLimit(ctx, await limits.ownerOfLimit(ctx, this.args.id), this.args.id);
    this.log(`Limit ${limit.id} of ${limit.entityType} ${limit.entityId} is now ${limit.status}.`);
    return limit;
  }
}
