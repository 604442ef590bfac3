import { BaseCommand } from '../../src/cli/base-command';
import type { FeeSchedule } from '../../src/services/fees/schedules';
import { changeFeeScheduleStatus } from '../../src/services/fees/schedules';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class FeeSchedulesActivate extends BaseCommand<typeof FeeSchedulesActivate> {
  static override summary = 'Activate a draft fee schedule (draft -> active).';
  static override examples = ['<%= config.bin %> fee-schedules activate 6f1c…'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('feeSchedule', { description: 'Fee schedule id', required: true }) };
  static override flags = { ...ownerFlags('feeSchedule') };

  async run(): Promise<FeeSchedule> {
    const ctx = await this.scope();
    const schedule = await changeFeeScheduleStatus(ctx, this.args.id, 'activate');
    this.log(`Fee schedule ${schedule.name} (${schedule.id}) is now ${schedule.status}.`);
    return schedule;
  }
}
