import { BaseCommand } from '../../../src/cli/base-command';
import { ownedArg, recordOwnerFlags } from '../../../src/cli/context';
import type { KybSubmission } from '../../../src/services/kyb/submissions';
import { getSubmission } from '../../../src/services/kyb/submissions';
import { kybFlags, renderSubmission } from '../../../src/cli/kyb';

export default class KybReviewGet extends BaseCommand<typeof KybReviewGet> {
  static override summary = 'Show one KYB submission with its documents.';
  static override examples = ['<%= config.bin %> kyb review get 6f1c…', '<%= config.bin %> kyb review get 6f1c… --tenant 9a2b… --json'];
  static override args = { id: ownedArg('kybSubmission', { description: 'Submission id', required: true }) };
  static override flags = { tenant: kybFlags.tenant, merchant: recordOwnerFlags.merchant };

  async run(): Promise<KybSubmission> {
    const submission = await getSubmission(await this.scope(), this.args.id);
    await this.nameActors(submission);
    this.log(renderSubmission(submission));
    return submission;
  }
}
