import { BaseCommand } from '../../../src/cli/base-command';
import type { PartnerAssignment } from '../../../src/services/partners';
import { getAssignment } from '../../../src/services/partners';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';
import { renderAssignment } from '../../../src/cli/partners';

export default class PartnerAssignmentsGet extends BaseCommand<typeof PartnerAssignmentsGet> {
  static override summary = 'Show one partner assignment.';
  static override examples = ['<%= config.bin %> partners assignments get 6f1c…'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('partnerAssignment', { description: 'Assignment id', required: true }) };
  static override flags = { ...ownerFlags('partnerAssignment') };

  async run(): Promise<PartnerAssignment> {
    const ctx = await this.scope();
    const assignment = await getAssignment(ctx, this.args.id);
    this.log(renderAssignment(assignment));
    return assignment;
  }
}
