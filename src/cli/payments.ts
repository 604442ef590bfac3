import { chalk, colourEnabled, renderRecord, renderTable, type TableOptions } from './output';
import { pollUntil } from '../util/poll';
import { formatMinor, isCurrency, type Money } from '../domain/money';
import { amountFlagPair, minorOf } from './amounts';
import { UnavailableError, ValidationError } from '../domain/errors';
import type { Payment, Refund } from '../services/payments/records';

// The payments and refunds commands' pieces: amounts, waiting for the provider's answer, tables.

/**
 * --amount and --amount-minor, read the same way by every command (the rule of src/cli/amounts.ts): --amount in
 * major units of `currency` (25.00 EUR, 1500 JPY), --amount-minor in minor units for scripts (2500).
 */
export function amountFlagsIn(currency: string) {
  return amountFlagPair('amount', 'Amount', currency);
}

export const amountFlags = amountFlagsIn("the payment's currency");

/**
 * The amount of a command that needs one: --amount-minor, else --amount, else asked on a terminal (`ask`, the
 * command's `required`) in major units of the currency; read by amountFrom either way.
 */
export async function requiredAmount(
  flags: { amount?: string; 'amount-minor'?: number },
  currency: string,
  ask: (value: string | undefined, flag: string, question: string) => Promise<string>,
): Promise<Money> {
  if (!isCurrency(currency)) throw ValidationError.field('--currency', `"${currency}" is not an ISO 4217 currency code (e.g. EUR)`);
  const amount =
    flags['amount-minor'] !== undefined && flags.amount === undefined
      ? undefined
      : await ask(flags.amount, 'amount', `Amount in ${currency} (e.g. 25.00)`);
  return amountFrom({ ...flags, amount }, currency)!;
}

/**
 * An amount from --amount (major units, at most the currency's decimals) or --amount-minor, in the payment's
 * currency; undefined when neither is given. Never through a float: "12.34" is read as digits.
 */
export function amountFrom(flags: { amount?: string; 'amount-minor'?: number }, currency: string): Money | undefined {
  const valueMinor = minorOf(flags, 'amount', { currency, currencyFlag: '--currency' });
  return valueMinor === undefined ? undefined : { currency, valueMinor };
}

const PROCESSING_POLL_MS = 200;

/** Reads the payment until it leaves `processing` (the provider's answer is asynchronous); 503 when the time is up. */
export async function waitWhileProcessing(read: () => Promise<Payment>, timeoutMs: number): Promise<Payment> {
  const { value: payment, reached } = await pollUntil(read, (p) => p.status !== 'processing', {
    timeoutMs,
    intervalMs: PROCESSING_POLL_MS,
  });
  if (reached) return payment;
  throw new UnavailableError(`Payment ${payment.id} is still processing after ${timeoutMs / 1000} s.`, 'PAYMENT_STILL_PROCESSING', {
    hint: 'The provider has not answered yet. For the sandbox acquirer, is `payplane serve` (with its jobs) running on this database?',
  });
}

const card = (p: Payment) => (p.card ? `${p.card.brand} •••• ${p.card.last4}` : '');

export function renderPayments(rows: Payment[], options: TableOptions = {}): string {
  if (rows.length === 0 && !options.csv && !options.columns) return 'No payments.';
  return renderTable(
    rows,
    [
      { header: 'ID', get: (p) => p.id },
      { header: 'Merchant', get: (p) => p.merchantId },
      { header: 'Status', get: (p) => paymentStatusColour(p.status) },
      { header: 'Amount', get: (p) => formatMinor(p.amount) },
      { header: 'Card', get: card },
      { header: 'Created', get: (p) => p.createdAt },
    ],
    options,
  );
}

function paymentStatusColour(status: string): string {
  if (!colourEnabled()) return status;
  if (['captured', 'refunded', 'partially_refunded', 'succeeded'].includes(status)) return chalk.green(status);
  if (['failed', 'voided'].includes(status)) return chalk.red(status);
  return chalk.yellow(status);
}

interface RoutingSummary {
  ruleId?: string | null;
  version?: number | null;
  strategy?: string;
  terminals?: string[];
  candidates?: { terminalId: string; eligible: boolean; reasons: string[] }[];
}

/** One payment: the record, its amount breakdown, and for operators its fee decomposition and routing summary. */
export function renderPayment(p: Payment): string {
  const b = p.amountBreakdown;
  const lines = [
    renderRecord({
      id: p.id,
      tenant: p.tenantId,
      merchant: p.merchantId,
      checkoutSession: p.checkoutSessionId,
      mode: p.livemode ? 'live' : 'test',
      status: paymentStatusColour(p.status),
      amount: formatMinor(p.amount),
      captureMethod: p.captureMethod,
      card: p.card
        ? `${card(p)} exp ${String(p.card.expMonth).padStart(2, '0')}/${p.card.expYear}${p.card.country ? ` (${p.card.country})` : ''}`
        : '',
      merchantReference: p.merchantReference,
      terminal: p.terminalId ?? '',
      provider: p.providerIntegrationId ?? '',
      providerReference: p.providerReference ?? '',
      error: p.errorCode ? `${p.errorCode}: ${p.errorMessage ?? ''}` : '',
      action: p.action ? JSON.stringify(p.action) : '',
      created: p.createdAt,
      updated: p.updatedAt,
    }),
    '',
    'Amounts',
    renderTable(Object.entries({ authorized: b.authorized, captured: b.captured, refunded: b.refunded, fee: b.fee, net: b.net }), [
      { header: 'Amount', get: (r) => r[0] },
      { header: 'Value', get: (r) => formatMinor(r[1]) },
    ]),
  ];
  if (p.feeBreakdown) {
    const f = p.feeBreakdown;
    lines.push(
      '',
      'Fees',
      renderTable(
        Object.entries({
          provider: f.providerFee,
          tenant: f.tenantFee,
          platform: f.platformFee,
          'partner commission': f.partnerCommission,
        }),
        [
          { header: 'Fee', get: (r) => r[0] },
          { header: 'Value', get: (r) => formatMinor(r[1]) },
        ],
      ),
    );
  }
  const risk = p.riskDecision as
    | {
        decision: string;
        evaluatedDecision: string;
        enforced: boolean;
        score: number;
        reason: string | null;
        matchedRules: { name: string; signal: string; scoreImpact: number }[];
      }
    | null
    | undefined;
  if (risk) {
    lines.push(
      '',
      'Risk',
      renderRecord({
        decision: risk.enforced ? risk.decision : `${risk.decision} (monitor: evaluated ${risk.evaluatedDecision})`,
        score: risk.score,
        reason: risk.reason ?? '',
        rules: risk.matchedRules.map((r) => `${r.name} (${r.signal}, ${r.scoreImpact >= 0 ? '+' : ''}${r.scoreImpact})`),
      }),
    );
  }
  const routing = p.routingDecision as RoutingSummary | null | undefined;
  if (routing) {
    lines.push(
      '',
      'Routing',
      renderRecord({
        rule: routing.ruleId ? `${routing.ruleId} v${routing.version ?? '?'}` : 'none (default order)',
        strategy: routing.strategy ?? '',
        terminals: (routing.terminals ?? []).join(', ') || 'none eligible',
        excluded: (routing.candidates ?? []).filter((c) => !c.eligible).map((c) => `${c.terminalId}: ${c.reasons.join('; ')}`),
      }),
    );
  }
  return lines.join('\n');
}

export function renderRefunds(rows: Refund[], options: TableOptions = {}): string {
  if (rows.length === 0 && !options.csv && !options.columns) return 'No refunds.';
  return renderTable(
    rows,
    [
      { header: 'ID', get: (r) => r.id },
      { header: 'Payment', get: (r) => r.paymentId },
      { header: 'Status', get: (r) => paymentStatusColour(r.status) },
      { header: 'Amount', get: (r) => formatMinor(r.amount) },
      { header: 'Reason', get: (r) => r.reason ?? '' },
      { header: 'Created', get: (r) => r.createdAt },
    ],
    options,
  );
}

export function renderRefund(r: Refund): string {
  return renderRecord({
    id: r.id,
    payment: r.paymentId,
    tenant: r.tenantId,
    merchant: r.merchantId,
    mode: r.livemode ? 'live' : 'test',
    status: paymentStatusColour(r.status),
    amount: formatMinor(r.amount),
    reason: r.reason ?? '',
    merchantReference: r.merchantReference ?? '',
    statusReason: r.statusReason ?? '',
    providerReference: r.providerReference ?? '',
    created: r.createdAt,
    updated: r.updatedAt,
  });
}
