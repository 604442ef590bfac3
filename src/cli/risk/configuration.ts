import { renderRecord } from '../output';
import { actorLabel } from '../actors';
import type { RiskConfiguration } from '../../services/risk/configuration';

// The `payplane risk config …` commands' pieces: a tenant's risk configuration.

export const riskConfigurationFields = {
  challengeScore: '--challenge-score', reviewScore: '--review-score', declineScore: '--decline-score', enforcement: '--enforcement',
};

export function renderRiskConfiguration(c: RiskConfiguration): string {
  return renderRecord({
    tenant: c.tenantId, challengeScore: c.challengeScore, reviewScore: c.reviewScore ?? '(none)', declineScore: c.declineScore, enforcement: c.enforcement,
    source: c.isDefault ? 'defaults (the tenant set none)' : 'the tenant\'s own', updatedBy: actorLabel(c.updatedBy), updatedAt: c.updatedAt,
  });
}
