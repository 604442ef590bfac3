import { statusMoveCommand, type StatusMove } from './status-move';
import { changeTenantStatus } from '../services/tenants/tenants';
import { platformContext } from './scope';

const SUMMARY: Record<StatusMove, string> = {
  activate: 'Activate a suspended or disabled tenant.',
  suspend: 'Suspend an active tenant: its keys and users stop working until it is activated.',
  disable: 'Disable a tenant: its keys and users stop working.',
};

/** The command class of one tenant status move (activate, suspend, disable). */
export function tenantStatusCommand(move: StatusMove) {
  return statusMoveCommand({
    topic: 'tenants', noun: 'tenant', move, summary: SUMMARY[move],
    apply: (rt, id) => changeTenantStatus(platformContext(rt), id, move),
  });
}
