import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { FeeSchedule } from '../../src/services/fees/schedules';
import { changeFeeScheduleStatus, getFeeSchedule } from '../../src/services/fees/schedules';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class FeeSchedulesArchive extends BaseCommand<typeof FeeSchedulesArchive> {
  static override summary = 'Archive an active fee schedule (active -> archived); its assignments stop applying.';
  static override examples = ['<%= config.bin %> fee-schedules archive 6f1c… --yes'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('feeSchedule', { description: 'Fee schedule id', required: true }) };
  static override flags = { ...ownerFlags('feeSchedule'), yes: sharedFlags.yes };

  async run(): Promise<FeeSchedule> {
    await this.confirmAction(this.flags.yes, async () => {
      const schedule = await getFeeSchedule(await this.scope(), this.args.id);
      return { verb: 'Archive', noun: 'fee schedule', name: schedule.name, id: schedule.id, consequence: 'Its assignments stop applying.' };
    });
    const ctx = await this.scope();
    const schedule = await changeFeeScheduleStatus(ctx, this.args.id, 'archive');
    this.log(`Fee schedule ${schedule.name} (${schedule.id}) is now ${schedule.status}.`);
    return schedule;
  }
}
