import { renderRecord } from '../output';
import { actorLabel } from '../actors';
import type { RiskConfiguration } from '../../services/risk/configuration';
import type { Runtime } from '../../runtime';
import { getTenant } from '../../services/tenants/tenants';
import { platformContext } from '../context';
import type { ConfirmSubject } from '../prompts';

// The `payplane risk config …` commands' pieces: a tenant's risk configuration.

export const riskConfigurationFields = {
  challengeScore: '--challenge-score',
  reviewScore: '--review-score',
  declineScore: '--decline-score',
  enforcement: '--enforcement',
};

/** The question before a reset names the tenant: its name is read as the platform, which sees every tenant. */
export async function resetSubject(rt: Runtime, tenantId: string): Promise<ConfirmSubject> {
  const tenant = await getTenant(platformContext(rt), tenantId);
  return {
    verb: 'Reset the risk configuration of',
    noun: 'tenant',
    name: tenant.name,
    id: tenant.id,
    consequence: 'Its thresholds return to the defaults (challenge 50, review none, decline 100, enforce).',
  };
}

export function renderRiskConfiguration(c: RiskConfiguration): string {
  return renderRecord({
    tenant: c.tenantId,
    challengeScore: c.challengeScore,
    reviewScore: c.reviewScore ?? '(none)',
    declineScore: c.declineScore,
    enforcement: c.enforcement,
    source: c.isDefault ? 'defaults (the tenant set none)' : "the tenant's own",
    updatedBy: actorLabel(c.updatedBy),
    updatedAt: c.updatedAt,
  });
}
