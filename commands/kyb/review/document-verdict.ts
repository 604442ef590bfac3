import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { ownedArg, recordOwnerFlags } from '../../../src/cli/context';
import type { KybSubmission } from '../../../src/services/kyb/submissions';
import { setDocumentVerdict } from '../../../src/services/kyb/submissions';
import { kybFlags } from '../../../src/cli/kyb';

export default class KybReviewDocumentVerdict extends BaseCommand<typeof KybReviewDocumentVerdict> {
  static override summary = 'Accept or reject one document of a KYB submission.';
  static override examples = ['<%= config.bin %> kyb review document-verdict 6f1c… 0d4e… --verdict accepted'];
  static override args = {
    submissionId: ownedArg('kybSubmission', { description: 'Submission id', required: true }),
    documentId: ownedArg('kybDocument', { description: 'Document id', required: true }),
  };
  static override flags = {
    tenant: kybFlags.tenant,
    merchant: recordOwnerFlags.merchant,
    verdict: Flags.string({ description: 'The verdict', options: ['accepted', 'rejected'], required: true }),
    comment: Flags.string({ description: 'Why' }),
  };

  async run(): Promise<KybSubmission> {
    const submission = await setDocumentVerdict(await this.scope(), this.args.submissionId, this.args.documentId, {
      verdict: this.flags.verdict as 'accepted' | 'rejected',
      comment: this.flags.comment,
    });
    this.log(`Document ${this.args.documentId} ${this.flags.verdict}; submission ${submission.id} is ${submission.status}.`);
    return submission;
  }
}
