import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { validateInput } from '../../src/cli/validate';
import { CreateFeeScheduleBody } from '../../src/api/fees/schemas';
import type { FeeSchedule } from '../../src/services/fees/schedules';
import { createFeeSchedule } from '../../src/services/fees/schedules';
import { atPlatform } from '../../src/cli/context';
import { renderSchedule, scheduleFlagNames, scheduleFlags, scheduleInput } from '../../src/cli/fees';

export default class FeeSchedulesCreate extends BaseCommand<typeof FeeSchedulesCreate> {
  static override summary = 'Create a fee schedule (draft): rules from --rules-file, or one rule from flags.';
  static override description =
    'Rates are integers in millionths (10000 = 1%). --fixed, --min and --max are amounts in major units of the rule\'s --currency (--fixed 0.25 --currency EUR), or in minor units with --fixed-minor, --min-minor and --max-minor (--fixed-minor 25); a --rules-file holds the API\'s rules, with amounts in minor units ({"currency":"EUR","valueMinor":25}). Tables show formatted amounts (0.25 EUR). Without --tenant it is a platform schedule.';
  static override examples = [
    '<%= config.bin %> fee-schedules create --tenant 6f1c… --name "EU cards" --transaction-type payment --method fixed_plus_percentage --currency EUR --fixed 0.25 --rate 14000 --max 10.00',
    '<%= config.bin %> fee-schedules create --tenant 6f1c… --name Standard --rules-file rules.json --reserve-rate 100000 --hold-days 90 --rounding floor --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    tenant: Flags.string({ description: 'Tenant the schedule belongs to (omit for a platform schedule)' }),
    ...scheduleFlags,
  };

  async run(): Promise<FeeSchedule> {
    const name = await this.required(this.flags.name, 'name', 'Schedule name');
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      CreateFeeScheduleBody,
      { ...scheduleInput(this.flags), name, tenantId: this.flags.tenant },
      { ...scheduleFlagNames, tenantId: 'tenant' },
    );
    const schedule = await createFeeSchedule(ctx, input);
    this.log(renderSchedule(schedule));
    return schedule;
  }
}
