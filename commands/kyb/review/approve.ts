import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { ownedArg, recordOwnerFlags } from '../../../src/cli/context';
import type { KybSubmission } from '../../../src/services/kyb/submissions';
import { approveSubmission } from '../../../src/services/kyb/submissions';
import { kybFlags } from '../../../src/cli/kyb';

export default class KybReviewApprove extends BaseCommand<typeof KybReviewApprove> {
  static override summary = 'Approve a submitted KYB submission (every document judged, at least one accepted).';
  static override examples = ['<%= config.bin %> kyb review approve 6f1c… --comment "Register checked"'];
  static override args = { id: ownedArg('kybSubmission', { description: 'Submission id', required: true }) };
  static override flags = {
    tenant: kybFlags.tenant,
    merchant: recordOwnerFlags.merchant,
    comment: Flags.string({ description: 'Reviewer comment' }),
  };

  async run(): Promise<KybSubmission> {
    const submission = await approveSubmission(await this.scope(), this.args.id, { comment: this.flags.comment });
    this.log(`KYB submission ${submission.id} is now ${submission.status}.`);
    return submission;
  }
}
