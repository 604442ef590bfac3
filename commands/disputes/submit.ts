import { BaseCommand } from '../../src/cli/base-command';
import type { Dispute } from '../../src/services/disputes/disputes';
import { submitDispute } from '../../src/services/disputes/disputes';
import { recordArg } from '../../src/cli/context';
import { operatorFlags } from '../../src/cli/withdrawals';
import { disputeOwnerFlags, evidenceFlags, evidenceFrom, renderDispute } from '../../src/cli/disputes';

export default class DisputesSubmit extends BaseCommand<typeof DisputesSubmit> {
  static override summary = "Submit a dispute's evidence to the acquirer (needs_response → under_review).";
  static override description =
    'The evidence flags given are applied first (as `disputes update`), then the evidence is submitted, as POST /v1/disputes/{id}/submit; emits dispute.updated. The acquirer decides later (dispute.won or dispute.lost); the sandbox acquirer after PAYPLANE_SANDBOX_DELAY_MS: uncategorized text containing winning_evidence wins, losing_evidence loses, anything else wins. 409 INVALID_STATE_TRANSITION (exit 5) unless needs_response.';
  static override examples = [
    '<%= config.bin %> disputes submit 0190c3d4-… --uncategorized-text "Signed for on delivery: winning_evidence"',
    '<%= config.bin %> disputes submit 0190c3d4-… --evidence-file evidence.json --json',
    '<%= config.bin %> disputes submit 0190c3d4-…',
  ];
  static override args = { id: recordArg('dispute', { description: 'Dispute id', required: true }) };
  static override flags = { ...evidenceFlags, ...disputeOwnerFlags, ...operatorFlags };

  async run(): Promise<Dispute> {
    const evidence = evidenceFrom(this.flags);
    const ctx = await this.scope();
    const dispute = await submitDispute(ctx, this.args.id, evidence ? { evidence } : {});
    this.log(renderDispute(dispute));
    return dispute;
  }
}
