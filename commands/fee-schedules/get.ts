import { BaseCommand } from '../../src/cli/base-command';
import type { FeeSchedule } from '../../src/services/fees/schedules';
import { getFeeSchedule } from '../../src/services/fees/schedules';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';
import { renderSchedule } from '../../src/cli/fees';

export default class FeeSchedulesGet extends BaseCommand<typeof FeeSchedulesGet> {
  static override summary = 'Show one fee schedule with its rules.';
  static override examples = ['<%= config.bin %> fee-schedules get 6f1c…'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('feeSchedule', { description: 'Fee schedule id', required: true }) };
  static override flags = { ...ownerFlags('feeSchedule') };

  async run(): Promise<FeeSchedule> {
    const ctx = await this.scope();
    const schedule = await getFeeSchedule(ctx, this.args.id);
    this.log(renderSchedule(schedule));
    return schedule;
  }
}
