import { ConflictError } from '../../domain/errors';
import type { InvitationRow } from '../../db/models';
import { auditedRecord } from '../audit/changes';
import { presentRow, type Presented } from '../present';
import { ofStatus, refusedMove, statusMachine } from '../status';

/**
 * An invitation's statuses and its one machine, apart from ./invitations.ts so that ./users.ts (deleting a user
 * cancels its pending invitations) reaches it without an import cycle.
 */

export type InvitationStatus = 'pending' | 'accepted' | 'canceled' | 'expired';

const INVITATION_FIELDS = [
  'id',
  'tenantId',
  'merchantId',
  'userId',
  'email',
  'layer',
  'expiresAt',
  'acceptedAt',
  'canceledAt',
  'sentCount',
  'createdBy',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof InvitationRow)[];

export type Invitation = Presented<Pick<InvitationRow, (typeof INVITATION_FIELDS)[number]>> & { status: InvitationStatus };
export type IssuedInvitation = Invitation & { token: string };

export function invitationStatus(row: InvitationRow, now: Date): InvitationStatus {
  if (row.status === 'pending' && new Date(row.expiresAt).getTime() <= now.getTime()) return 'expired';
  return row.status;
}

export function toInvitation(row: InvitationRow, now: Date): Invitation {
  return { ...presentRow(row, INVITATION_FIELDS), status: invitationStatus(row, now) };
}

export const INVITATION = auditedRecord<InvitationRow>({
  model: (ctx) => ctx.db.models.Invitation,
  targetType: 'invitation',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId }),
  render: toInvitation,
});

const refusedInvitation = refusedMove<InvitationRow>('invitation', ofStatus('invitations'));

/** pending -> accepted (by its token) or canceled; an expired invitation is a pending one past expiresAt. */
export const INVITATION_STATUS = statusMachine({
  record: INVITATION,
  moves: {
    accept: { from: ['pending'], to: 'accepted', action: 'invitation.accepted' },
    cancel: { from: ['pending'], to: 'canceled', action: 'invitation.canceled' },
  },
  // accepting is refused before the move by its own errors: only a concurrent acceptance reaches the machine's
  refused: (row, move, spec) =>
    move === 'accept'
      ? new ConflictError('INVITATION_ALREADY_ACCEPTED', 'This invitation was used meanwhile.')
      : refusedInvitation(row, move, spec),
});
