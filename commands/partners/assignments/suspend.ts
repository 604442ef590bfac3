import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { PartnerAssignment } from '../../../src/services/partners';
import { getAssignment, getPartner, suspendAssignment } from '../../../src/services/partners';
import { getMerchant } from '../../../src/services/organization/merchants';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';

export default class PartnerAssignmentsSuspend extends BaseCommand<typeof PartnerAssignmentsSuspend> {
  static override summary = 'Suspend an active partner assignment: the partner stops earning on the merchant.';
  static override examples = ['<%= config.bin %> partners assignments suspend 6f1c… --yes'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('partnerAssignment', { description: 'Assignment id', required: true }) };
  static override flags = { ...ownerFlags('partnerAssignment'), yes: sharedFlags.yes };

  async run(): Promise<PartnerAssignment> {
    await this.confirmAction(this.flags.yes, async () => {
      const ctx = await this.scope();
      const assignment = await getAssignment(ctx, this.args.id);
      const [partner, merchant] = [await getPartner(ctx, assignment.partnerId), await getMerchant(ctx, assignment.merchantId)];
      return {
        verb: 'Suspend',
        noun: 'partner assignment',
        name: `${partner.name} on ${merchant.name}`,
        id: assignment.id,
        consequence: 'The partner stops earning on the merchant.',
      };
    });
    const ctx = await this.scope();
    const assignment = await suspendAssignment(ctx, this.args.id);
    this.log(`Partner assignment ${assignment.id} is now ${assignment.status}.`);
    return assignment;
  }
}
