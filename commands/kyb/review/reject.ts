import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { ownedArg, recordOwnerFlags } from '../../../src/cli/context';
import type { KybSubmission } from '../../../src/services/kyb/submissions';
import { rejectSubmission } from '../../../src/services/kyb/submissions';
import { kybFlags } from '../../../src/cli/kyb';

export default class KybReviewReject extends BaseCommand<typeof KybReviewReject> {
  static override summary = 'Reject a KYB submission with a reason (final).';
  static override examples = ['<%= config.bin %> kyb review reject 6f1c… --reason "Registry mismatch"'];
  static override args = { id: ownedArg('kybSubmission', { description: 'Submission id', required: true }) };
  static override flags = {
    tenant: kybFlags.tenant,
    merchant: recordOwnerFlags.merchant,
    reason: Flags.string({ description: 'Rejection reason (shown to the merchant)' }),
    comment: Flags.string({ description: 'Reviewer comment' }),
  };

  async run(): Promise<KybSubmission> {
    const reason = await this.required(this.flags.reason, 'reason', 'Rejection reason:');
    const submission = await rejectSubmission(await this.scope(), this.args.id, {
      rejectionReason: reason,
      comment: this.flags.comment,
    });
    this.log(`KYB submission ${submission.id} is now ${submission.status}.`);
    return submission;
  }
}
