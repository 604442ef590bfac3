import { platformCtx } from './partners-flags';
import { statusMoveCommand } from './status-move';
import type { PartnerMove } from '../services/partners';
import { changePartnerStatus } from '../services/partners';

const SUMMARY: Record<PartnerMove, string> = {
  activate: 'Activate a suspended or disabled partner.',
  suspend: 'Suspend an active partner.',
  disable: 'Disable a partner.',
};

/** The command class of one partner status move (activate, suspend, disable). */
export function partnerStatusCommand(move: PartnerMove) {
  return statusMoveCommand({
    topic: 'partners', noun: 'partner', move, summary: SUMMARY[move],
    apply: (rt, id) => changePartnerStatus(platformCtx(rt), id, move),
  });
}
