import { BaseCommand } from '../../src/cli/base-command';
import { validateWith } from '../../src/cli/validate';
import { UpdateFeeScheduleBody } from '../../src/api/fees/schemas';
import type { FeeSchedule } from '../../src/services/fees/schedules';
import { updateFeeSchedule } from '../../src/services/fees/schedules';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';
import { renderSchedule, scheduleFlagNames, scheduleFlags, scheduleInput } from '../../src/cli/fees';

export default class FeeSchedulesUpdate extends BaseCommand<typeof FeeSchedulesUpdate> {
  static override summary = 'Update a draft fee schedule (rules and rolling reserve replace the whole value).';
  static override description = 'Only drafts change: an active or archived schedule is refused (exit 5, FEE_SCHEDULE_NOT_DRAFT).';
  static override examples = [
    '<%= config.bin %> fee-schedules update 6f1c… --rules-file rules.json',
    '<%= config.bin %> fee-schedules update 6f1c… --name "EU cards v2" --json',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('feeSchedule', { description: 'Fee schedule id', required: true }) };
  static override flags = { ...ownerFlags('feeSchedule'), ...scheduleFlags };

  async run(): Promise<FeeSchedule> {
    const input = validateWith(UpdateFeeScheduleBody, scheduleInput(this.flags), scheduleFlagNames);
    const ctx = await this.scope();
    const schedule = await updateFeeSchedule(ctx, this.args.id, input);
    this.log(renderSchedule(schedule));
    return schedule;
  }
}
