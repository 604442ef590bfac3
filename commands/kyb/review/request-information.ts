import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { ownedArg, recordOwnerFlags } from '../../../src/cli/context';
import type { KybSubmission } from '../../../src/services/kyb/submissions';
import { requestInformation } from '../../../src/services/kyb/submissions';
import { kybFlags } from '../../../src/cli/kyb';

export default class KybReviewRequestInformation extends BaseCommand<typeof KybReviewRequestInformation> {
  static override summary = 'Ask the merchant for more information (the submission returns to it for changes).';
  static override examples = ['<%= config.bin %> kyb review request-information 6f1c… --message "Please add a bank statement."'];
  static override args = { id: ownedArg('kybSubmission', { description: 'Submission id', required: true }) };
  static override flags = {
    tenant: kybFlags.tenant,
    merchant: recordOwnerFlags.merchant,
    message: Flags.string({ description: 'What the merchant must provide' }),
  };

  async run(): Promise<KybSubmission> {
    const message = await this.required(this.flags.message, 'message', 'What information is needed?');
    const submission = await requestInformation(await this.scope(), this.args.id, { message });
    this.log(`KYB submission ${submission.id} is now ${submission.status}.`);
    return submission;
  }
}
