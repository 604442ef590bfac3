import fs from 'node:fs';
import { chalk, colourEnabled, renderRecord, renderTable } from '../output';
import { validateRisk } from './input';
import { signalColour } from './rules';
import { ValidationError } from '../../domain/errors';
import { RiskPaymentInput, type RiskDryRun } from '../../services/risk/dry-run';

// `payplane risk evaluate`: the hypothetical payment and the decision.

/**
 * The hypothetical payment of `risk evaluate`: the JSON file (or inline JSON) checked with the dry run's own schema;
 * --merchant replaces the file's merchantId. Issues name the flag and the field (--payment-json.amount.currency).
 */
export function paymentInput(value: string, merchant: string | undefined): RiskPaymentInput {
  const trimmed = value.trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed.startsWith('{') ? trimmed : fs.readFileSync(value, 'utf8'));
  } catch (error) {
    throw ValidationError.field('--payment-json', `is neither inline JSON nor a readable JSON file: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw ValidationError.field('--payment-json', 'must be a JSON object (a payment)');
  const input = { ...(parsed as Record<string, unknown>), ...(merchant !== undefined ? { merchantId: merchant } : {}) };
  try {
    return validateRisk(RiskPaymentInput, input, paymentFields(merchant));
  } catch (error) {
    if (error instanceof ValidationError && !error.hint && error.errors?.some((i) => i.path === '--payment-json.merchantId')) {
      throw new ValidationError(error.detail, error.errors, error.code, { hint: 'Give the payment a merchantId, or pass --merchant.' });
    }
    throw error;
  }
}

/** Where the dry run's issues point: the file's fields, or --merchant when it gave the merchant. */
export function paymentFields(merchant: string | undefined): Record<string, string> {
  return { '': '--payment-json', '*': '--payment-json', ...(merchant !== undefined ? { merchantId: '--merchant' } : {}) };
}

export function renderDryRun(run: RiskDryRun): string {
  const d = run.decision;
  const t = d.thresholds;
  const head = renderRecord({
    decision: decisionColour(d.decision),
    evaluated: d.evaluatedDecision === d.decision ? d.evaluatedDecision : `${d.evaluatedDecision} (not enforced: monitor)`,
    score: d.score,
    thresholds: `challenge ${t.challenge} / review ${t.review ?? '-'} / decline ${t.decline}`,
    plans: d.planIds.length ? d.planIds : '(none enabled)',
    reason: d.reason ?? '(none)',
    card: run.subject.card ? `${run.subject.card.brand} ${run.subject.card.bin}… fingerprint ${run.subject.card.fingerprint}` : '(none)',
  });
  if (!d.matchedRules.length) return `${head}\n(no rule matched)`;
  const table = renderTable(d.matchedRules, [
    { header: 'Rule', get: (r) => r.id },
    { header: 'Name', get: (r) => r.name },
    { header: 'Signal', get: (r) => signalColour(r.signal) },
    { header: 'Score', get: (r) => String(r.scoreImpact) },
    { header: 'Priority', get: (r) => String(r.priority) },
  ]);
  return `${head}\n${table}`;
}

function decisionColour(decision: string): string {
  if (!colourEnabled()) return decision;
  return decision === 'allow' ? chalk.green(decision) : decision === 'decline' ? chalk.red(decision) : chalk.yellow(decision);
}
