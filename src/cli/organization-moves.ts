import { Args } from '@oclif/core';
import { BaseCommand } from './base-command';
import { statusMoveCommand } from './status-move';
import type { Merchant, StatusMove, LiveMove } from '../services/organization/merchants';
import { changeLiveStatus, changeMerchantStatus } from '../services/organization/merchants';
import { contextForMerchant } from './organization-context';

const STATUS_SUMMARY: Record<StatusMove, string> = {
  activate: 'Activate a suspended or disabled merchant: its keys and users work again.',
  suspend: 'Suspend an active merchant: its keys and users are refused until it is activated.',
  disable: 'Disable a merchant: its keys and users are refused.',
};

/** The command class of one merchant status move (activate, suspend, disable). */
export function merchantStatusCommand(move: StatusMove) {
  return statusMoveCommand({
    topic: 'merchants', noun: 'merchant', move, summary: STATUS_SUMMARY[move],
    apply: async (rt, id) => changeMerchantStatus(await contextForMerchant(rt, id), id, move),
  });
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
      const ctx = await contextForMerchant(rt, this.args.id);
      const merchant = await changeLiveStatus(ctx, this.args.id, move);
      this.log(`Merchant ${merchant.name} (${merchant.id}): liveStatus ${merchant.liveStatus}.`);
      return merchant;
    }
  };
}
