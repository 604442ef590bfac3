import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { validateInput } from '../../src/cli/validate';
import { CreateFeeAssignmentBody, FEE_LEVELS, PAYMENT_METHODS } from '../../src/api/fees/schemas';
import type { FeeAssignment } from '../../src/services/fees/schedules';
import { createFeeAssignment } from '../../src/services/fees/schedules';
import { atPlatform } from '../../src/cli/context';
import { renderFeeAssignment } from '../../src/cli/fees';

export default class FeeAssignmentsCreate extends BaseCommand<typeof FeeAssignmentsCreate> {
  static override summary = 'Assign an active fee schedule to a level and target, for one currency and payment method.';
  static override description =
    'Levels by precedence: terminal, merchant, channel, partner, tenant, platform. Overlapping periods for the same level, target, currency and method are refused (exit 5, FEE_ASSIGNMENT_OVERLAP).';
  static override examples = [
    '<%= config.bin %> fee-assignments create --level merchant --target 0b9e… --schedule 6f1c… --currency EUR --payment-method card',
    '<%= config.bin %> fee-assignments create --level platform --schedule 6f1c… --currency EUR --payment-method card --effective-from 2026-04-01T00:00:00Z --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    level: Flags.string({ description: 'Level of the target', options: [...FEE_LEVELS] }),
    target: Flags.string({
      description: 'Target entity id (terminal, merchant, channel, partner or tenant; default the platform for level platform)',
    }),
    schedule: Flags.string({ description: 'Fee schedule id (active)' }),
    currency: Flags.string({ description: 'ISO 4217 currency' }),
    'payment-method': Flags.string({ description: 'Payment method', options: [...PAYMENT_METHODS] }),
    'effective-from': Flags.string({ description: 'Start (ISO 8601; default now)' }),
    'effective-to': Flags.string({ description: 'End (ISO 8601; default open-ended)' }),
    tenant: Flags.string({ description: 'Tenant of a terminal target (only while terminals are unknown to this build)' }),
  };

  async run(): Promise<FeeAssignment> {
    const level = await this.required(this.flags.level, 'level', 'Level (terminal, merchant, channel, partner, tenant, platform)');
    const feeScheduleId = await this.required(this.flags.schedule, 'schedule', 'Fee schedule id');
    const currency = await this.required(this.flags.currency, 'currency', 'Currency (e.g. EUR)');
    const paymentMethod = await this.required(this.flags['payment-method'], 'payment-method', 'Payment method (e.g. card)');
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      CreateFeeAssignmentBody,
      {
        level,
        targetEntityId: this.flags.target,
        feeScheduleId,
        currency,
        paymentMethod,
        effectiveFrom: this.flags['effective-from'],
        effectiveTo: this.flags['effective-to'],
        tenantId: this.flags.tenant,
      },
      { targetEntityId: 'target', feeScheduleId: 'schedule', tenantId: 'tenant' },
    );
    const assignment = await createFeeAssignment(ctx, input);
    this.log(renderFeeAssignment(assignment));
    return assignment;
  }
}
