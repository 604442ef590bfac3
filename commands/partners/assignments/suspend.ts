import { Args } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { PartnerAssignment } from '../../../src/services/partners';
import { suspendAssignment } from '../../../src/services/partners';
import { platformContext } from '../../../src/cli/context';

export default class PartnerAssignmentsSuspend extends BaseCommand<typeof PartnerAssignmentsSuspend> {
  static override summary = 'Suspend an active partner assignment: the partner stops earning on the merchant.';
  static override examples = ['<%= config.bin %> partners assignments suspend 6f1c… --yes'];
  static override args = { id: Args.string({ description: 'Assignment id', required: true }) };
  static override flags = { yes: sharedFlags.yes };

  async run(): Promise<PartnerAssignment> {
    await this.confirm(this.flags.yes, `Suspend partner assignment ${this.args.id}?`);
    const rt = await this.runtime();
    const assignment = await suspendAssignment(platformContext(rt), this.args.id);
    this.log(`Partner assignment ${assignment.id} is now ${assignment.status}.`);
    return assignment;
  }
}
