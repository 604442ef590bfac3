import { inTransaction, type CallerContext } from '../../domain/context';
import { ValidationError, type FieldIssue } from '../../domain/errors';
import { scoped } from '../../db/scoped';
import type { RiskConfigurationRow } from '../../db/models/risk';
import { recordAudit } from '../audit/entries';
import { iso } from '../present';

/**
 * The tenant's risk configuration: the score at or above which a payment is challenged (3DS forced), held for review
 * (optional) and declined, and whether decisions are enforced or only recorded (monitor). One per tenant for both
 * modes; a tenant that never set one gets the defaults, and DELETE resets to them.
 */

export const RISK_DEFAULTS = { challengeScore: 50, reviewScore: null as number | null, declineScore: 100, enforcement: 'enforce' as const };

export interface RiskConfiguration {
  tenantId: string;
  challengeScore: number;
  reviewScore: number | null;
  declineScore: number;
  enforcement: 'enforce' | 'monitor';
  /** true when the tenant has not set its own (the defaults answer) */
  isDefault: boolean;
  updatedBy: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

export type RiskSettings = Pick<RiskConfiguration, 'challengeScore' | 'reviewScore' | 'declineScore' | 'enforcement'>;

function toConfiguration(tenantId: string, row: RiskConfigurationRow | null): RiskConfiguration {
  if (!row) return { tenantId, ...RISK_DEFAULTS, isDefault: true, updatedBy: null, createdAt: null, updatedAt: null };
  return {
    tenantId,
    challengeScore: Number(row.challengeScore),
    reviewScore: row.reviewScore === null ? null : Number(row.reviewScore),
    declineScore: Number(row.declineScore),
    enforcement: row.enforcement,
    isDefault: false,
    updatedBy: row.updatedBy,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** The tenant's own row (default: the caller's tenant). */
async function currentRow(
  ctx: CallerContext,
  options: { lock?: boolean } = {},
  tenantId = ctx.tenantId,
): Promise<RiskConfigurationRow | null> {
  return scoped(ctx, ctx.db.models.RiskConfiguration).findOne({ tenantId }, options);
}

export async function getRiskConfiguration(ctx: CallerContext): Promise<RiskConfiguration> {
  return toConfiguration(ctx.tenantId!, await currentRow(ctx));
}

/** The thresholds the engine applies for a tenant (the defaults when it set none). */
export async function riskSettings(ctx: CallerContext, tenantId: string): Promise<RiskSettings> {
  const { challengeScore, reviewScore, declineScore, enforcement } = toConfiguration(tenantId, await currentRow(ctx, {}, tenantId));
  return { challengeScore, reviewScore, declineScore, enforcement };
}

/** Creates or replaces the tenant's configuration; fields left out take the defaults. challenge <= review <= decline. */
export async function putRiskConfiguration(ctx: CallerContext, input: Partial<RiskSettings>): Promise<RiskConfiguration> {
  const settings: RiskSettings = {
    challengeScore: input.challengeScore ?? RISK_DEFAULTS.challengeScore,
    reviewScore: input.reviewScore === undefined ? RISK_DEFAULTS.reviewScore : input.reviewScore,
    declineScore: input.declineScore ?? RISK_DEFAULTS.declineScore,
    enforcement: input.enforcement ?? RISK_DEFAULTS.enforcement,
  };
  const issues: FieldIssue[] = [];
  if (settings.challengeScore > settings.declineScore)
    issues.push({ path: 'body.challengeScore', message: `must not be above declineScore (${settings.declineScore})` });
  if (settings.reviewScore !== null && settings.reviewScore > settings.declineScore)
    issues.push({ path: 'body.reviewScore', message: `must not be above declineScore (${settings.declineScore})` });
  if (issues.length)
    throw new ValidationError(`Invalid risk configuration: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return inTransaction(ctx, async (tx) => {
    // the tenant row's lock serializes two first PUTs of one tenant
    await scoped(tx, tx.db.models.Tenant).find(tx.tenantId!, { lock: true });
    const access = scoped(tx, tx.db.models.RiskConfiguration);
    const row = await currentRow(tx, { lock: true });
    const saved = row
      ? await access.update(row, { ...settings, updatedBy: tx.actor.id })
      : await access.create({ tenantId: tx.tenantId!, ...settings, updatedBy: tx.actor.id });
    const before = toConfiguration(tx.tenantId!, row);
    const after = toConfiguration(tx.tenantId!, saved);
    await recordAudit(tx, {
      action: 'risk_configuration.updated',
      targetType: 'risk_configuration',
      targetId: saved.id,
      tenantId: tx.tenantId!,
      before,
      after,
    });
    return after;
  });
}

/** Back to the defaults (the tenant's row soft-deleted); answers the configuration now in force. */
export async function resetRiskConfiguration(ctx: CallerContext): Promise<RiskConfiguration> {
  return inTransaction(ctx, async (tx) => {
    const row = await currentRow(tx, { lock: true });
    if (row) {
      await scoped(tx, tx.db.models.RiskConfiguration).softDelete(row);
      await recordAudit(tx, {
        action: 'risk_configuration.reset',
        targetType: 'risk_configuration',
        targetId: row.id,
        tenantId: tx.tenantId!,
        before: toConfiguration(tx.tenantId!, row),
        after: toConfiguration(tx.tenantId!, null),
      });
    }
    return toConfiguration(tx.tenantId!, null);
  });
}
