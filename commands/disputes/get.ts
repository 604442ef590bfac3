import { BaseCommand } from '../../src/cli/base-command';
import type { Dispute } from '../../src/services/disputes/disputes';
import { getDispute } from '../../src/services/disputes/disputes';
import { recordArg } from '../../src/cli/context';
import { disputeOwnerFlags, renderDispute } from '../../src/cli/disputes';

export default class DisputesGet extends BaseCommand<typeof DisputesGet> {
  static override summary = 'Show a dispute: status, reason, amount, fee, evidence and its deadline.';
  static override examples = ['<%= config.bin %> disputes get 0190c3d4-…', '<%= config.bin %> disputes get 0190c3d4-… --json'];
  static override args = { id: recordArg('dispute', { description: 'Dispute id', required: true, reads: true }) };
  static override flags = { ...disputeOwnerFlags };

  async run(): Promise<Dispute> {
    const ctx = await this.scope();
    const dispute = await getDispute(ctx, this.args.id);
    this.log(renderDispute(dispute));
    return dispute;
  }
}
