import { Args } from '@oclif/core';
import { BaseCommand } from './base-command';
import { sharedFlags } from './flags';
import { organization } from './organization-services';
import type { Merchant, StatusMove, LiveMove } from '../services/merchants';

const STATUS_SUMMARY: Record<StatusMove, string> = {
  activate: 'Activate a suspended or disabled merchant: its keys and users work again.',
  suspend: 'Suspend an active merchant: its keys and users are refused until it is activated.',
  disable: 'Disable a merchant: its keys and users are refused.',
};

/** The command class of one merchant status move (activate, suspend, disable). */
export function merchantStatusCommand(move: StatusMove) {
  return class MerchantStatus extends BaseCommand<typeof MerchantStatus> {
    static override summary = STATUS_SUMMARY[move];
    static override examples = [`<%= config.bin %> merchants ${move} 0b9e…${move === 'activate' ? '' : ' --yes'}`];
    static override args = { id: Args.string({ description: 'Merchant id', required: true }) };
    static override flags = { yes: sharedFlags.yes };

    async run(): Promise<Merchant> {
      if (move !== 'activate') await this.confirm(this.flags.yes, `${move[0].toUpperCase()}${move.slice(1)} merchant ${this.args.id}?`);
      const rt = await this.runtime();
      const ctx = await organization.context().contextForMerchant(rt, this.args.id);
      const merchant = await organization.merchants().changeMerchantStatus(ctx, this.args.id, move);
      this.log(`Merchant ${merchant.name} (${merchant.id}) is now ${merchant.status}.`);
      return merchant;
    }
  };
}

const LIVE_SUMMARY: Record<LiveMove, string> = {
  request: 'Ask for live approval of a sandbox merchant (liveStatus to pending_approval).',
  approve: 'Approve a merchant for live (needs an approved KYB submission of its company).',
  reject: 'Reject a pending live approval: the merchant goes back to sandbox.',
};

/** The command class of one live-approval move. */
export function merchantLiveCommand(move: LiveMove) {
  const name = { request: 'request-live', approve: 'approve-live', reject: 'reject-live' }[move];
  return class MerchantLive extends BaseCommand<typeof MerchantLive> {
    static override summary = LIVE_SUMMARY[move];
    static override examples = [`<%= config.bin %> merchants ${name} 0b9e…`];
    static override args = { id: Args.string({ description: 'Merchant id', required: true }) };

    async run(): Promise<Merchant> {
      const rt = await this.runtime();
      const ctx = await organization.context().contextForMerchant(rt, this.args.id);
      const merchant = await organization.merchants().changeLiveStatus(ctx, this.args.id, move);
      this.log(`Merchant ${merchant.name} (${merchant.id}): liveStatus ${merchant.liveStatus}.`);
      return merchant;
    }
  };
}
