import { BaseCommand } from '../../src/cli/base-command';
import type { FeeAssignment } from '../../src/services/fees/schedules';
import { getFeeAssignment } from '../../src/services/fees/schedules';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';
import { renderFeeAssignment } from '../../src/cli/fees';

export default class FeeAssignmentsGet extends BaseCommand<typeof FeeAssignmentsGet> {
  static override summary = 'Show one fee assignment.';
  static override examples = ['<%= config.bin %> fee-assignments get 6f1c…'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('feeAssignment', { description: 'Fee assignment id', required: true }) };
  static override flags = { ...ownerFlags('feeAssignment') };

  async run(): Promise<FeeAssignment> {
    const ctx = await this.scope();
    const assignment = await getFeeAssignment(ctx, this.args.id);
    this.log(renderFeeAssignment(assignment));
    return assignment;
  }
}
