import crypto from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { Runtime } from '../../runtime';
import type { CallerContext } from '../../domain/context';
import { inTransaction, withTransaction } from '../../domain/context';
import { processingContext, systemContext } from '../../domain/authority';
import { AuthenticationError, NotFoundError, PayplaneError, UnavailableError } from '../../domain/errors';
import { isUuid, scoped } from '../../db/scoped';
import { insertStatement } from '../../db/table';
import { writableTableFor } from '../../db/rows';
import type { ProviderNotificationRow } from '../../db/models';
import {
  NotificationRejected,
  type ConnectorTerminal,
  type NotificationItem,
  type ParsedNotification,
  type ProviderOutcome,
} from '../../connectors';
import { readNotification } from '../provider-call';
import { handleProviderOutcome } from '../payments/outcomes';
import { handleDisputeNotification } from '../disputes/notifications';
import { transitionIf } from '../status';
import { newId } from '../../util/ids';
import { PROVIDER_NOTIFICATION_MACHINE } from './machine';

/**
 * An acquirer's notifications (POST /v1/provider-notifications/{terminalId}, operations.md "Real acquirers"): checked
 * with the terminal's credentials by its connector (parseNotification), each item stored once in the inbox
 * (provider_notifications, unique by the acquirer's event id per provider integration: a repeat changes nothing), then
 * applied as the sandbox acquirer's answers are (payment and refund outcomes through handleProviderOutcome, disputes
 * through handleDisputeNotification), the item marked applied in the transaction that applies it. An item that cannot
 * be applied yet (its payment not captured yet, its reference not known yet: a reordered notification) stays received
 * for the provider-notifications job (src/jobs/provider-notifications.ts), again after 1 s, 2 s, 4 s … at most 10
 * min, given up (failed, logged) after a day.
 */

/** Delay before the next try of an item not applied yet: 1 s, 2 s, 4 s … at most 10 min. */
export function notificationRetryDelayMs(attempts: number): number {
  return Math.min(10 * 60_000, 1000 * 2 ** Math.max(0, attempts - 1));
}

/** How long an item is tried before it is given up (failed). */
export const NOTIFICATION_GIVE_UP_MS = 24 * 3_600_000;

/** How long the claim of a process applying an item holds (ms of the runtime clock). */
export const NOTIFICATION_LEASE_MS = 60_000;

/** A notification as it reached the endpoint. */
export interface IncomingNotification {
  terminalId: string;
  /** lower-case names */
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
  /** scheme://host[:port] the request came to */
  origin?: string;
}

/** A notification checked and read, with the terminal it came for. */
export interface OpenedNotification {
  pctx: CallerContext;
  /** the terminal and its provider (its credentials are not kept past the check) */
  terminal: Pick<ConnectorTerminal, 'terminalId' | 'providerIntegrationId'>;
  parsed: ParsedNotification;
}

/** What the endpoint answers: the acquirer's expected answer (status, content type, body). */
export type NotificationReply = ParsedNotification['reply'];

/** The error of a notification that fails its check (401, nothing stored or changed). */
export function signatureInvalid(detail: string): AuthenticationError {
  return new AuthenticationError(detail, 'NOTIFICATION_SIGNATURE_INVALID', { headers: {} });
}

/**
 * The terminal (read platform-wide by id) and its connector's check and reading of the notification. 404 for an
 * unknown terminal or one whose connector takes no notifications; NOTIFICATION_SIGNATURE_INVALID (401) for one that
 * fails its check (or whose body the connector cannot read).
 */
export async function openNotification(rt: Runtime, incoming: IncomingNotification): Promise<OpenedNotification> {
  const { terminalId } = incoming;
  const unknown = () =>
    new NotFoundError('terminal', terminalId, {
      detail: `No terminal with id ${terminalId} receives acquirer notifications.`,
    });
  if (!isUuid(terminalId)) throw unknown();
  // terminals are mode-exempt: the platform's view of either mode finds it; its own livemode is its mode
  const row = await scoped(systemContext(rt, false), rt.db.models.Terminal).find(terminalId);
  if (!row) throw unknown();
  const pctx = processingContext({ ...rt, origin: incoming.origin }, row.tenantId, Boolean(row.livemode));
  let read: Awaited<ReturnType<typeof readNotification>>;
  try {
    read = await readNotification(pctx, terminalId, { headers: incoming.headers, rawBody: incoming.rawBody });
  } catch (error) {
    if (error instanceof NotificationRejected) throw signatureInvalid(`The notification failed its check: ${error.message}`);
    if (error instanceof PayplaneError) throw error;
    // a body the connector could not read is the sender's, never a 500
    rt.logger.warn({ err: error, terminalId }, 'acquirer notification unreadable');
    throw signatureInvalid('The notification could not be read.');
  }
  if (!read) throw unknown();
  const { terminal, parsed } = read;
  return { pctx, terminal: { terminalId: terminal.terminalId, providerIntegrationId: terminal.providerIntegrationId }, parsed };
}

/**
 * Stores each item of a checked notification once (a repeated event id changes nothing), applies the items stored now
 * and returns the acquirer's expected answer. Items that cannot be applied yet stay for the job.
 */
export async function storeNotification(rt: Runtime, opened: OpenedNotification): Promise<NotificationReply> {
  const { pctx, terminal, parsed } = opened;
  const workerId = `notify:${newId()}`;
  const now = rt.clock.now();
  const rows: ProviderNotificationRow[] = parsed.items.map((item) => ({
    id: newId(),
    providerIntegrationId: terminal.providerIntegrationId,
    terminalId: terminal.terminalId,
    tenantId: pctx.tenantId!,
    livemode: pctx.livemode,
    eventId: item.eventId,
    type: item.type,
    kind: item.kind,
    item: item as unknown as Record<string, unknown>,
    status: 'received',
    attempts: 0,
    nextAttemptAt: now,
    lastError: null,
    // claimed by this request until it has applied it (the job leaves it alone meanwhile)
    lockedBy: workerId,
    lockedUntil: new Date(now.getTime() + NOTIFICATION_LEASE_MS),
    appliedAt: null,
    createdAt: now,
    updatedAt: now,
  }));
  const stored = await inTransaction(pctx, async (tx) => {
    const fresh: ProviderNotificationRow[] = [];
    for (const row of rows) if (await insertOnce(tx, row)) fresh.push(row);
    return fresh;
  });
  for (const row of stored) {
    try {
      await applyNotification(rt, row, workerId);
    } catch (error) {
      // stored: its claim runs out and the job tries it again; the acquirer is answered as for any stored item
      rt.logger.error({ err: error, notificationId: row.id, eventId: row.eventId }, 'acquirer notification stored but not tried');
    }
  }
  return parsed.reply;
}

/** Inserts the row unless its event is stored already: whether it was inserted. */
async function insertOnce(tx: CallerContext, row: ProviderNotificationRow): Promise<boolean> {
  const table = writableTableFor(tx.db, tx.db.models.ProviderNotification as never);
  const insert = insertStatement(table, [row as unknown as Record<string, unknown>], false)!;
  const sql = `${insert.sql} ON CONFLICT ("providerIntegrationId", "eventId") DO NOTHING`;
  return (await tx.db.sql.run(sql, insert.params, { transaction: tx.transaction })) > 0;
}

/** What became of one try of an item. */
export type NotificationApplied = 'applied' | 'ignored' | 'deferred' | 'failed';

/** The item's claim was taken over by another process before this one applied it. */
class ClaimLost extends Error {
  constructor() {
    super('the claim of the notification item was lost');
  }
}

/** Why an item waits: nothing it names is known yet (a reordered notification). */
class NotKnownYet extends UnavailableError {
  constructor(what: string) {
    super(`${what} is not known yet.`, 'NOTIFICATION_TARGET_NOT_KNOWN_YET');
  }
}

/**
 * An item about a payment of another terminal (of the same tenant and acquirer: another account's, whose own URL
 * receives it): checked with this terminal's credentials, it may settle only this terminal's payments. Left alone.
 */
class OtherTerminal extends Error {}

function ownTerminal(row: ProviderNotificationRow, terminalId: string | null | undefined, what: string): void {
  if (terminalId && terminalId !== row.terminalId) throw new OtherTerminal(`${what} belongs to another terminal`);
}

/**
 * One try of a stored item held by `workerId`: applied (marked in the transaction that applies it), ignored (an event
 * the platform does not act on, or one the payment path left), deferred (not applicable yet: tried again after
 * notificationRetryDelayMs) or failed (given up after NOTIFICATION_GIVE_UP_MS).
 */
export async function applyNotification(rt: Runtime, row: ProviderNotificationRow, workerId: string): Promise<NotificationApplied> {
  const pctx = processingContext(rt, row.tenantId, row.livemode);
  const attempts = row.attempts + 1;
  const held = { lockedBy: workerId };
  const release = { attempts, lockedBy: null, lockedUntil: null, nextAttemptAt: null, lastError: null };
  let settled = false;
  const settle = async (transaction: Transaction) => {
    const moved = await transitionIf(withTransaction(pctx, transaction), PROVIDER_NOTIFICATION_MACHINE, row, 'apply', {
      unaudited: true,
      expect: held,
      changes: release,
    });
    // another process took the item over (this one's lease ran out): the change is rolled back, that process applies it
    if (!moved) throw new ClaimLost();
    settled = true;
  };
  const item = row.item as unknown as NotificationItem;
  try {
    if (item.kind === 'ignored') {
      await inTransaction(pctx, (tx) =>
        transitionIf(tx, PROVIDER_NOTIFICATION_MACHINE, row, 'ignore', { unaudited: true, expect: held, changes: release }),
      );
      return 'ignored';
    }
    if (item.kind === 'outcome') {
      const outcome = await outcomeOf(pctx, row, item);
      await handleProviderOutcome(rt, outcome, settle);
    } else {
      await knownDisputeTarget(pctx, row, item);
      await handleDisputeNotification(
        rt,
        { providerIntegrationId: row.providerIntegrationId, tenantId: row.tenantId, livemode: row.livemode, notice: item.notice },
        settle,
      );
    }
  } catch (error) {
    if (error instanceof OtherTerminal) {
      await inTransaction(pctx, (tx) =>
        transitionIf(tx, PROVIDER_NOTIFICATION_MACHINE, row, 'ignore', { unaudited: true, expect: held, changes: release }),
      );
      rt.logger.warn(
        { notificationId: row.id, eventId: row.eventId, reason: error.message },
        'acquirer notification about another terminal ignored',
      );
      return 'ignored';
    }
    if (error instanceof ClaimLost) {
      rt.logger.warn({ notificationId: row.id, eventId: row.eventId }, 'acquirer notification claim lost before it was applied');
      return 'deferred';
    }
    if (settled) {
      // the change committed with the item; what followed it (a cascade to the next terminal) failed
      rt.logger.error(
        { err: error, notificationId: row.id, eventId: row.eventId },
        'acquirer notification applied; what followed it failed',
      );
      return 'applied';
    }
    return defer(rt, pctx, row, workerId, error);
  }
  if (settled) return 'applied';
  // the payment path named it known but left it (an answer it had already, a payment never captured): nothing to do
  await inTransaction(pctx, (tx) =>
    transitionIf(tx, PROVIDER_NOTIFICATION_MACHINE, row, 'ignore', { unaudited: true, expect: held, changes: release }),
  );
  rt.logger.info({ notificationId: row.id, eventId: row.eventId, type: row.type }, 'acquirer notification left by the payment path');
  return 'ignored';
}

/** Not applied this time: due again after the backoff, or given up (failed) after a day. */
async function defer(
  rt: Runtime,
  pctx: CallerContext,
  row: ProviderNotificationRow,
  workerId: string,
  error: unknown,
): Promise<NotificationApplied> {
  const now = rt.clock.now();
  const attempts = row.attempts + 1;
  const lastError = String((error as Error)?.message ?? error).slice(0, 1000);
  const expected = error instanceof UnavailableError;
  const log = {
    notificationId: row.id,
    eventId: row.eventId,
    type: row.type,
    attempts,
    ...(expected ? { reason: lastError } : { err: error }),
  };
  if (now.getTime() - new Date(row.createdAt).getTime() >= NOTIFICATION_GIVE_UP_MS) {
    await inTransaction(pctx, (tx) =>
      transitionIf(tx, PROVIDER_NOTIFICATION_MACHINE, row, 'fail', {
        unaudited: true,
        expect: { lockedBy: workerId },
        changes: { attempts, lastError, lockedBy: null, lockedUntil: null, nextAttemptAt: null },
      }),
    );
    rt.logger.error(log, 'acquirer notification given up: it could not be applied for a day');
    return 'failed';
  }
  await inTransaction(pctx, (tx) =>
    scoped(tx, tx.db.models.ProviderNotification).updateIf(
      row,
      { status: 'received', lockedBy: workerId },
      {
        attempts,
        lastError,
        lockedBy: null,
        lockedUntil: null,
        nextAttemptAt: new Date(now.getTime() + notificationRetryDelayMs(attempts)),
      },
    ),
  );
  if (expected) rt.logger.info(log, 'acquirer notification not applicable yet; trying again later');
  else rt.logger.warn(log, 'acquirer notification not applied; trying again later');
  return 'deferred';
}

type OutcomeItem = Extract<NotificationItem, { kind: 'outcome' }>;

/**
 * The outcome as the payment path applies it, its reference found: ours as the item carries it, else the attempt or
 * refund whose acquirer's reference it names (within the terminal's provider). NotKnownYet when none is known yet.
 */
async function outcomeOf(pctx: CallerContext, row: ProviderNotificationRow, item: OutcomeItem): Promise<ProviderOutcome> {
  const reference = await referenceOf(pctx, row, item);
  return {
    providerIntegrationId: row.providerIntegrationId,
    operation: item.operation,
    reference,
    providerReference: item.providerReference,
    tenantId: row.tenantId,
    livemode: row.livemode,
    result: item.result,
  };
}

async function referenceOf(pctx: CallerContext, row: ProviderNotificationRow, item: OutcomeItem): Promise<string> {
  const { models } = pctx.db;
  const { providerIntegrationId } = row;
  switch (item.operation) {
    case 'authorize': {
      const attempts = scoped(pctx, models.PaymentAttempt);
      const attempt = item.reference
        ? await attempts.find(item.reference)
        : await attempts.findOne({ providerIntegrationId, providerReference: item.providerReference });
      if (!attempt || attempt.providerIntegrationId !== providerIntegrationId)
        throw new NotKnownYet(`The payment attempt ${item.reference ?? item.providerReference}`);
      ownTerminal(row, attempt.terminalId, `The payment attempt ${attempt.id}`);
      return attempt.id;
    }
    case 'refund': {
      const refunds = scoped(pctx, models.Refund);
      const refund = item.reference
        ? await refunds.find(item.reference)
        : await refunds.findOne({ providerReference: item.providerReference });
      const payment = refund && (await scoped(pctx, models.Payment).find(refund.paymentId));
      if (!refund || payment?.providerIntegrationId !== providerIntegrationId)
        throw new NotKnownYet(`The refund ${item.reference ?? item.providerReference}`);
      ownTerminal(row, payment.terminalId, `The refund ${refund.id}`);
      return refund.id;
    }
    case 'capture':
    case 'void': {
      // our reference is the payment's pending operation or the payment; the item names the payment's authorization
      const authorization = item.paymentProviderReference ?? item.providerReference;
      const payment = await scoped(pctx, models.Payment).findOne({ providerIntegrationId, providerReference: authorization });
      if (payment) ownTerminal(row, payment.terminalId, `The payment ${payment.id}`);
      if (item.reference) return item.reference;
      if (!payment) throw new NotKnownYet(`The payment of the authorization ${authorization}`);
      return payment.id;
    }
  }
}

/** A dispute item whose payment (opened) or dispute (decided) is not known yet waits (a reordered notification). */
async function knownDisputeTarget(
  pctx: CallerContext,
  row: ProviderNotificationRow,
  item: Extract<NotificationItem, { kind: 'dispute' }>,
): Promise<void> {
  const { notice } = item;
  const { providerIntegrationId } = row;
  if (notice.type === 'opened') {
    const payment = await scoped(pctx, pctx.db.models.Payment).findOne({
      providerIntegrationId,
      providerReference: notice.paymentProviderReference,
    });
    if (!payment) throw new NotKnownYet(`The payment of the authorization ${notice.paymentProviderReference}`);
    ownTerminal(row, payment.terminalId, `The payment ${payment.id}`);
    return;
  }
  const dispute = await scoped(pctx, pctx.db.models.Dispute).findOne({
    providerIntegrationId,
    providerReference: notice.providerReference,
  });
  if (!dispute) throw new NotKnownYet(`The dispute ${notice.providerReference}`);
  const payment = await scoped(pctx, pctx.db.models.Payment).find(dispute.paymentId);
  ownTerminal(row, payment?.terminalId, `The dispute ${dispute.id}`);
}

/** The credential the failed-authentication throttle counts a notification's check by: this request's bytes (a replay is the same). */
export function notificationCredential(incoming: Pick<IncomingNotification, 'headers' | 'rawBody'>): string {
  const hash = crypto.createHash('sha256').update(JSON.stringify(incoming.headers)).update('\0').update(incoming.rawBody).digest('hex');
  return `notification:${hash}`;
}
