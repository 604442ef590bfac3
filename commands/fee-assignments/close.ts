import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { FeeAssignment } from '../../src/services/fees/schedules';
import { closeFeeAssignment, getFeeAssignment, getFeeSchedule } from '../../src/services/fees/schedules';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class FeeAssignmentsClose extends BaseCommand<typeof FeeAssignmentsClose> {
  static override summary = 'Close an open fee assignment: effectiveTo is set to now.';
  static override examples = ['<%= config.bin %> fee-assignments close 6f1c… --yes'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('feeAssignment', { description: 'Fee assignment id', required: true }) };
  static override flags = { ...ownerFlags('feeAssignment'), yes: sharedFlags.yes };

  async run(): Promise<FeeAssignment> {
    await this.confirmAction(this.flags.yes, async () => {
      const ctx = await this.scope();
      const assignment = await getFeeAssignment(ctx, this.args.id);
      const schedule = await getFeeSchedule(ctx, assignment.feeScheduleId);
      const name = `${schedule.name} for ${assignment.level} ${assignment.targetEntityId}, ${assignment.currency} ${assignment.paymentMethod}`;
      return { verb: 'Close', noun: 'fee assignment', name, id: assignment.id, consequence: 'It stops applying now.' };
    });
    const ctx = await this.scope();
    const assignment = await closeFeeAssignment(ctx, this.args.id);
    this.log(`Fee assignment ${assignment.id} is now ${assignment.status} (effectiveTo ${assignment.effectiveTo}).`);
    return assignment;
  }
}
