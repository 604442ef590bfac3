import { BaseCommand } from '../../../src/cli/base-command';
import { asReader, ownedArg, ownerFlags, withScope } from '../../../src/cli/context';
import { sharedFlags } from '../../../src/cli/flags';
import type { BalanceThreshold } from '../../../src/services/ledger/thresholds';
import { deleteBalanceThreshold, getBalanceThreshold } from '../../../src/services/ledger/thresholds';
import { getMerchant } from '../../../src/services/organization/merchants';
import { thresholdName } from '../../../src/cli/ledger/thresholds';

export default class BalancesThresholdsDelete extends BaseCommand<typeof BalancesThresholdsDelete> {
  static override summary = 'Delete a balance threshold (soft delete).';
  static override description =
    'Afterwards the threshold is gone for every read and raises no event. Asks for confirmation on a terminal unless --yes.';
  static override examples = [
    '<%= config.bin %> balances thresholds delete 0190a1b2-… --tenant 6f1c…',
    '<%= config.bin %> balances thresholds delete 0190a1b2-… --tenant 6f1c… --merchant 0b9e… --yes --json',
  ];
  static override args = { id: ownedArg('balanceThreshold', { description: 'Balance threshold id', required: true }) };
  static override flags = {
    ...ownerFlags('balanceThreshold'),
    tenant: withScope(ownerFlags('balanceThreshold').tenant, asReader),
    live: sharedFlags.live,
    yes: sharedFlags.yes,
  };

  async run(): Promise<BalanceThreshold> {
    const ctx = await this.scope();
    const threshold = await getBalanceThreshold(ctx, this.args.id);
    await this.confirmAction(this.flags.yes, async () => {
      const merchant = await getMerchant(ctx, threshold.merchantId);
      return {
        verb: 'Delete',
        noun: 'balance threshold',
        name: thresholdName(threshold),
        id: threshold.id,
        of: { noun: 'merchant', name: merchant.name, id: merchant.id },
      };
    });
    const deleted = await deleteBalanceThreshold(ctx, this.args.id);
    this.log(`Balance threshold ${thresholdName(deleted)} (${deleted.id}) is deleted.`);
    return deleted;
  }
}
