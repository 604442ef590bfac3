import { BaseCommand } from '../../../src/cli/base-command';
import { validateWith } from '../../../src/cli/validate';
import { UpdateAssignmentBody } from '../../../src/api/partners/schemas';
import type { PartnerAssignment } from '../../../src/services/partners';
import { updateAssignment } from '../../../src/services/partners';
import { commissionFlagNames, commissionFlags, commissionInput, renderAssignment } from '../../../src/cli/partners';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';

export default class PartnerAssignmentsUpdate extends BaseCommand<typeof PartnerAssignmentsUpdate> {
  static override summary = "Change a partner assignment's commission or effective period.";
  static override examples = [
    '<%= config.bin %> partners assignments update 6f1c… --commission-rate 20000 --no-fixed',
    '<%= config.bin %> partners assignments update 6f1c… --effective-to 2027-01-01T00:00:00Z',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('partnerAssignment', { description: 'Assignment id', required: true }) };
  static override flags = { ...ownerFlags('partnerAssignment'), ...commissionFlags };

  async run(): Promise<PartnerAssignment> {
    const input = validateWith(UpdateAssignmentBody, commissionInput(this.flags), commissionFlagNames);
    const ctx = await this.scope();
    const assignment = await updateAssignment(ctx, this.args.id, input);
    this.log(renderAssignment(assignment));
    return assignment;
  }
}
