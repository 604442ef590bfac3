import { BaseCommand } from '../../src/cli/base-command';
import type { Dispute } from '../../src/services/disputes/disputes';
import { acceptDispute } from '../../src/services/disputes/disputes';
import { recordArg } from '../../src/cli/context';
import { operatorFlags } from '../../src/cli/withdrawals';
import { disputeOwnerFlags, renderDispute } from '../../src/cli/disputes';

export default class DisputesAccept extends BaseCommand<typeof DisputesAccept> {
  static override summary = 'Accept (concede) a dispute (needs_response → lost).';
  static override description =
    'As POST /v1/disputes/{id}/accept: the dispute is lost (closedReason accepted), the amount and fee stay debited; emits dispute.lost; the acceptance is sent to the acquirer (again by the dispute-deadlines job until it answers). 409 INVALID_STATE_TRANSITION (exit 5) unless needs_response.';
  static override examples = [
    '<%= config.bin %> disputes accept 0190c3d4-…',
    '<%= config.bin %> disputes accept 0190c3d4-… --operator alice --json',
  ];
  static override args = { id: recordArg('dispute', { description: 'Dispute id', required: true }) };
  static override flags = { ...disputeOwnerFlags, ...operatorFlags };

  async run(): Promise<Dispute> {
    const ctx = await this.scope();
    const dispute = await acceptDispute(ctx, this.args.id);
    this.log(renderDispute(dispute));
    return dispute;
  }
}
