import { inTransaction, type CallerContext } from '../../domain/context';
import { ConflictError, NotFoundError } from '../../domain/errors';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { WebhookEndpointRow } from '../../db/models';
import { auditRecord, auditedDelete, auditedRecord, auditedUpdate, givenFields } from '../audit/changes';
import { mapPage, presentRow, type Presented } from '../present';
import { generateWebhookSecret } from './signature';
import { validateSubscription } from './catalog';
import { checkDestination } from './transport';
import { DELIVERY_STATUS } from './deliveries';
import { moveRows, refusedMove, statusMachine, transition } from '../status';

export const MAX_ATTEMPTS = 10;
export const DEFAULT_SECRET_GRACE_HOURS = 24;

/** The fields of the webhook endpoint record: never the sealed secrets (create and rotate add `secret` once). */
const ENDPOINT_FIELDS = [
  'id',
  'tenantId',
  'merchantId',
  'level',
  'livemode',
  'url',
  'events',
  'description',
  'status',
  'maxAttempts',
  'previousSecretExpiresAt',
  'failingSince',
  'lastSuccessAt',
  'disabledReason',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof WebhookEndpointRow)[];

export type WebhookEndpoint = Presented<Pick<WebhookEndpointRow, (typeof ENDPOINT_FIELDS)[number]>>;
export type EndpointWithSecret = WebhookEndpoint & { secret: string };

export function toEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return presentRow(row, ENDPOINT_FIELDS);
}

/** Endpoints are read at the caller's own level: merchants their merchant's, tenants the tenant's, the platform its own. */
function access(ctx: CallerContext) {
  return scoped(ctx, ctx.db.models.WebhookEndpoint);
}

const ENDPOINT = auditedRecord<WebhookEndpointRow>({
  model: (ctx) => ctx.db.models.WebhookEndpoint,
  targetType: 'webhook_endpoint',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId }),
  render: toEndpoint,
});

/**
 * An endpoint is created enabled. Its owner disables or enables it by an update (one audit entry for the whole update);
 * the dispatcher marks it failing when a delivery fails for good, enabled again on a success, and disables it after a
 * 410 Gone or days of failures, each on its hot path by compare-and-set on the statuses the move starts from (moveRows).
 */
export const ENDPOINT_STATUS = statusMachine({
  record: ENDPOINT,
  moves: {
    disable: { from: ['enabled', 'failing'], to: 'disabled', action: 'webhook_endpoint.updated' },
    enable: { from: ['disabled', 'failing'], to: 'enabled', action: 'webhook_endpoint.updated' },
    fail: { from: ['enabled', 'failing'], to: 'failing', action: 'webhook_endpoint.failing' },
    recover: { from: ['failing'], to: 'enabled', action: 'webhook_endpoint.recovered' },
    give_up: { from: ['enabled', 'failing'], to: 'disabled', action: 'webhook_endpoint.disabled' },
  },
  refused: refusedMove('webhook endpoint'),
});

async function endpointAtLevel(ctx: CallerContext, id: string, lock = false): Promise<WebhookEndpointRow> {
  const row = await access(ctx).find(id, { lock });
  if (!row || row.level !== ctx.level) throw new NotFoundError('webhook endpoint', id);
  return row;
}

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string | null;
  maxAttempts?: number;
}

/** How an endpoint's URL is checked as it is saved (the dispatcher checks again at each connection). */
export interface SaveOptions {
  /** the endpoint `payplane webhooks listen` registers for itself (src/listener/): its localhost URL is allowed */
  localListener?: boolean;
  /** the name a refusal gives the URL (default body.url; the CLI's --url) */
  field?: string;
}

function checkUrl(ctx: CallerContext, url: string, options: SaveOptions): Promise<void> {
  return checkDestination(url, options.field ?? 'body.url', {
    allowCidrs: ctx.config.webhookAllowCidrs,
    localListener: options.localListener,
  });
}

export async function createEndpoint(ctx: CallerContext, input: EndpointInput, options: SaveOptions = {}): Promise<EndpointWithSecret> {
  await checkUrl(ctx, input.url, options);
  const events = validateSubscription(ctx.level, input.events);
  const secret = generateWebhookSecret();
  return inTransaction(ctx, async (tx) => {
    const row = await access(tx).create({
      tenantId: tx.level === 'platform' ? null : tx.tenantId,
      merchantId: tx.level === 'merchant' ? tx.merchantId : null,
      level: tx.level,
      url: input.url,
      events,
      description: input.description ?? null,
      status: 'enabled',
      maxAttempts: input.maxAttempts ?? MAX_ATTEMPTS,
      secretSealed: tx.sealer.seal(secret),
      previousSecretSealed: null,
      previousSecretExpiresAt: null,
      failingSince: null,
      lastSuccessAt: null,
      disabledReason: null,
    });
    const endpoint = toEndpoint(row);
    await auditRecord(tx, ENDPOINT, row, 'webhook_endpoint.created', { after: endpoint });
    return { ...endpoint, secret };
  });
}

export async function listEndpoints(ctx: CallerContext, page: ListParams): Promise<Page<WebhookEndpoint>> {
  return mapPage(await access(ctx).list({ level: ctx.level }, page), toEndpoint);
}

export async function getEndpoint(ctx: CallerContext, id: string): Promise<WebhookEndpoint> {
  return toEndpoint(await endpointAtLevel(ctx, id));
}

export interface EndpointUpdate {
  url?: string;
  events?: string[];
  description?: string | null;
  status?: 'enabled' | 'disabled';
  maxAttempts?: number;
}

/** Changes the supplied fields; `events` replaces the whole subscription set; enabling clears failing state. */
export async function updateEndpoint(
  ctx: CallerContext,
  id: string,
  input: EndpointUpdate,
  options: SaveOptions = {},
): Promise<WebhookEndpoint> {
  if (input.url !== undefined) await checkUrl(ctx, input.url, options);
  const events = input.events === undefined ? undefined : validateSubscription(ctx.level, input.events);
  return inTransaction(ctx, async (tx) => {
    const row = await endpointAtLevel(tx, id, true);
    const changes: Partial<WebhookEndpointRow> = givenFields({ ...input, events }, ['url', 'events', 'description', 'maxAttempts']);
    if (input.status === 'disabled' && row.status !== 'disabled') {
      await cancelPendingDeliveries(tx, row.id);
      const disabling = { ...changes, disabledReason: 'disabled by request' };
      return toEndpoint(await transition(tx, ENDPOINT_STATUS, row, 'disable', { changes: disabling }));
    }
    if (input.status === 'enabled' && row.status !== 'enabled') {
      const enabling = { ...changes, disabledReason: null, failingSince: null };
      return toEndpoint(await transition(tx, ENDPOINT_STATUS, row, 'enable', { changes: enabling }));
    }
    return toEndpoint(await auditedUpdate(tx, ENDPOINT, row, changes, { action: 'webhook_endpoint.updated' }));
  });
}

/** Soft delete: the record stays for audit, pending deliveries are canceled at once. */
export async function deleteEndpoint(ctx: CallerContext, id: string): Promise<WebhookEndpoint> {
  return inTransaction(ctx, async (tx) => {
    const row = await endpointAtLevel(tx, id, true);
    await cancelPendingDeliveries(tx, row.id);
    return toEndpoint(await auditedDelete(tx, ENDPOINT, row, { action: 'webhook_endpoint.deleted' }));
  });
}

export async function cancelPendingDeliveries(ctx: CallerContext, endpointId: string): Promise<number> {
  const changes = { nextAttemptAt: null, lockedUntil: null, lockedBy: null, updatedAt: ctx.clock.now() };
  return moveRows(ctx, DELIVERY_STATUS, 'cancel', { endpointId }, changes);
}

/**
 * A new signing secret; the previous one stays valid for graceHours (deliveries carry both signatures until
 * then). A rotation during a grace period ends the older secret at once.
 */
export async function rotateEndpointSecret(ctx: CallerContext, id: string, input: { graceHours?: number }): Promise<EndpointWithSecret> {
  const graceHours = input.graceHours ?? DEFAULT_SECRET_GRACE_HOURS;
  return inTransaction(ctx, async (tx) => {
    const row = await endpointAtLevel(tx, id, true);
    if (row.status === 'disabled') {
      throw new ConflictError('WEBHOOK_ENDPOINT_DISABLED', 'The endpoint is disabled; enable it before rotating its secret.');
    }
    const secret = generateWebhookSecret();
    const now = tx.clock.now();
    const updated = await auditedUpdate(
      tx,
      ENDPOINT,
      row,
      {
        secretSealed: tx.sealer.seal(secret),
        previousSecretSealed: graceHours > 0 ? row.secretSealed : null,
        previousSecretExpiresAt: graceHours > 0 ? new Date(now.getTime() + graceHours * 3_600_000) : null,
      },
      { action: 'webhook_endpoint.secret_rotated' },
    );
    return { ...toEndpoint(updated), secret };
  });
}

/** The secrets a delivery is signed with now: the current one, and the previous one during its grace period. */
export function signingSecrets(ctx: Pick<CallerContext, 'sealer'>, row: WebhookEndpointRow, now: Date): string[] {
  const secrets = [ctx.sealer.open(row.secretSealed)];
  if (row.previousSecretSealed && row.previousSecretExpiresAt && new Date(row.previousSecretExpiresAt).getTime() > now.getTime()) {
    secrets.push(ctx.sealer.open(row.previousSecretSealed));
  }
  return secrets;
}

/** The signing secrets of one endpoint at the caller's level, now (the receiving side's view: `webhooks listen`). */
export async function currentSigningSecrets(ctx: CallerContext, id: string): Promise<string[]> {
  return signingSecrets(ctx, await endpointAtLevel(ctx, id), ctx.clock.now());
}
