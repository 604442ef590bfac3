import { Args } from '@oclif/core';
import { BaseCommand } from './base-command';
import { sharedFlags } from './flags';
import { partnerServices } from './partners-services';
import { platformCtx } from './partners-flags';
import type { Partner, PartnerMove } from '../services/partners';

const SUMMARY: Record<PartnerMove, string> = {
  activate: 'Activate a suspended or disabled partner.',
  suspend: 'Suspend an active partner.',
  disable: 'Disable a partner.',
};

/** The command class of one partner status move (activate, suspend, disable). */
export function partnerStatusCommand(move: PartnerMove) {
  return class PartnerStatus extends BaseCommand<typeof PartnerStatus> {
    static override summary = SUMMARY[move];
    static override examples = [`<%= config.bin %> partners ${move} 6f1c…${move === 'activate' ? '' : ' --yes'}`];
    static override args = { id: Args.string({ description: 'Partner id', required: true }) };
    static override flags = { yes: sharedFlags.yes };

    async run(): Promise<Partner> {
      if (move !== 'activate') await this.confirm(this.flags.yes, `${move[0].toUpperCase()}${move.slice(1)} partner ${this.args.id}?`);
      const rt = await this.runtime();
      const partner = await partnerServices.partners().changePartnerStatus(platformCtx(rt), this.args.id, move);
      this.log(`Partner ${partner.name} (${partner.id}) is now ${partner.status}.`);
      return partner;
    }
  };
}
