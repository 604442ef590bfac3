import { BaseCommand } from '../../src/cli/base-command';
import { ValidationError } from '../../src/domain/errors';
import type { Dispute } from '../../src/services/disputes/disputes';
import { updateDispute } from '../../src/services/disputes/disputes';
import { recordArg } from '../../src/cli/context';
import { operatorFlags } from '../../src/cli/withdrawals';
import { disputeOwnerFlags, evidenceFlags, evidenceFrom, renderDispute } from '../../src/cli/disputes';

export default class DisputesUpdate extends BaseCommand<typeof DisputesUpdate> {
  static override summary = "Update a dispute's evidence without submitting it (while needs_response).";
  static override description =
    'Sets the evidence fields given (an empty value clears one; the others keep theirs), as PATCH /v1/disputes/{id}; emits dispute.updated. Nothing is sent to the acquirer: `disputes submit` does. 409 DISPUTE_NOT_EDITABLE (exit 5) unless needs_response.';
  static override examples = [
    '<%= config.bin %> disputes update 0190c3d4-… --product-description "Blue bicycle, size M" --customer-email ada@example.com',
    '<%= config.bin %> disputes update 0190c3d4-… --evidence-file evidence.json --json',
  ];
  static override args = { id: recordArg('dispute', { description: 'Dispute id', required: true }) };
  static override flags = { ...evidenceFlags, ...disputeOwnerFlags, ...operatorFlags };

  async run(): Promise<Dispute> {
    const evidence = evidenceFrom(this.flags);
    if (!evidence) {
      throw new ValidationError(
        'Nothing to update: give at least one evidence flag.',
        [{ path: '--evidence-file', message: 'or an evidence flag is required' }],
        'MISSING_FLAG',
      );
    }
    const ctx = await this.scope();
    const dispute = await updateDispute(ctx, this.args.id, { evidence });
    this.log(renderDispute(dispute));
    return dispute;
  }
}
