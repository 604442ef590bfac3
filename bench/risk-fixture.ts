import { randomUUID } from 'node:crypto';
import type { Database } from '../src/db/database';
import type { PaymentRow } from '../src/db/models/payments';
import type { CallerContext } from '../src/domain/context';
import type { Runtime } from '../src/runtime';
import { operatorContext } from '../src/services/access/operators';
import { putRiskConfiguration } from '../src/services/risk/configuration';
import type { RiskSubject } from '../src/services/risk/conditions';
import { createListGroup, normalizeEntry } from '../src/services/risk/lists';
import { createAntifraudPlan } from '../src/services/risk/plans';
import { createScoringRule } from '../src/services/risk/rules';

/**
 * The risk set-up shared by the risk benchmark (bench/risk-evaluation.ts) and the query-count test
 * (test/risk/query-count.test.ts): a tenant's risk configuration with list lookups, two aggregations and a plain rule,
 * past payments written in bulk straight into the table, and a counter of the SQL queries a piece of work issues.
 */

/** The subject both use: its card and email are never on the card list; its ip is in the listed CIDR range. */
export const SUBJECT_CARD = 'fp_subject_card';
export const SUBJECT_EMAIL = 'subject@bench.example';
export const SUBJECT_IP = '198.51.100.7';
export const LISTED_CIDR = '198.51.100.0/24';

export interface RiskFixture {
  /** tenant-level operator context of the tenant, sandbox mode */
  ctx: CallerContext;
  tenantId: string;
  merchantId: string;
  cardGroupId: string;
  ipGroupId: string;
  ruleIds: { blockedCard: string; riskyNetwork: string; cardVelocity: string; emailVolume: string; largeAmount: string };
  planId: string;
}

/**
 * The tenant's risk configuration (sandbox mode): a card-fingerprint list group with `listEntries` entries (bulk
 * inserted, normalized as the service does) and an ip list group with one CIDR range; scoring rules: in_list on each
 * group, a count of payments per card over 10 minutes, a sum of amounts per email over 1 day, and a plain amount
 * rule; one enabled plan holding them all; the tenant's thresholds.
 */
export async function createRiskFixture(
  rt: Runtime,
  tenantId: string,
  merchantId: string,
  options: { listEntries?: number } = {},
): Promise<RiskFixture> {
  const ctx = operatorContext(rt, { level: 'tenant', tenantId, livemode: false, operator: 'risk-fixture' });
  await putRiskConfiguration(ctx, { challengeScore: 50, reviewScore: 70, declineScore: 100, enforcement: 'enforce' });
  const cards = await createListGroup(ctx, { name: 'Blocked cards', entryType: 'card_fingerprint' });
  const ips = await createListGroup(ctx, { name: 'Risky networks', entryType: 'ip' });
  const now = rt.clock.now();
  const entries = Array.from({ length: options.listEntries ?? 1000 }, (_, i) => ({
    id: randomUUID(),
    tenantId,
    livemode: false,
    listGroupId: cards.id,
    entryType: 'card_fingerprint' as const,
    ...normalizeEntry('card_fingerprint', `fp_blocked_${i}`),
    note: null,
    createdBy: 'cli:risk-fixture',
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  }));
  for (let i = 0; i < entries.length; i += 1000) await rt.db.models.ListEntry.bulkCreate(entries.slice(i, i + 1000));
  await rt.db.models.ListEntry.create({
    id: randomUUID(),
    tenantId,
    livemode: false,
    listGroupId: ips.id,
    entryType: 'ip',
    ...normalizeEntry('ip', LISTED_CIDR),
    note: null,
    createdBy: 'cli:risk-fixture',
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  });

  const rule = async (
    name: string,
    priority: number,
    signal: 'allow' | 'challenge' | 'review' | 'block',
    scoreImpact: number,
    conditions: Parameters<typeof createScoringRule>[1]['conditions'],
  ) => (await createScoringRule(ctx, { name, priority, signal, scoreImpact, conditions })).id;
  const ruleIds = {
    blockedCard: await rule('Blocked card', 10, 'block', 100, [{ field: 'card_fingerprint', operator: 'in_list', value: cards.id }]),
    riskyNetwork: await rule('Risky network', 20, 'allow', 20, [{ field: 'ip', operator: 'in_list', value: ips.id }]),
    cardVelocity: await rule('Card velocity', 30, 'challenge', 30, [
      {
        field: 'card_fingerprint',
        operator: 'gte',
        value: '4',
        aggregation: { metric: 'count', identifier: 'card_fingerprint' },
        statisticWindow: '10m',
      },
    ]),
    emailVolume: await rule('Email daily volume', 40, 'allow', 20, [
      {
        field: 'amount',
        operator: 'gt',
        value: '100000',
        aggregation: { metric: 'sum', identifier: 'email', period: { value: 1, unit: 'day' } },
      },
    ]),
    largeAmount: await rule('Large amount', 50, 'allow', 10, [{ field: 'amount', operator: 'gt', value: '50000' }]),
  };
  const plan = await createAntifraudPlan(ctx, { name: 'Default plan', ruleIds: Object.values(ruleIds), enabled: true });
  return { ctx, tenantId, merchantId, cardGroupId: cards.id, ipGroupId: ips.id, ruleIds, planId: plan.id };
}

/** The payment being evaluated (sandbox mode), with the fixture's card, email and ip unless overridden. */
export function riskSubject(fixture: Pick<RiskFixture, 'tenantId' | 'merchantId'>, overrides: Partial<RiskSubject> = {}): RiskSubject {
  return {
    tenantId: fixture.tenantId,
    livemode: false,
    merchantId: fixture.merchantId,
    channelId: null,
    amount: { currency: 'EUR', valueMinor: 2500 },
    card: { fingerprint: SUBJECT_CARD, bin: '424242', brand: 'visa', country: 'DE' },
    email: SUBJECT_EMAIL,
    ip: SUBJECT_IP,
    customerReference: 'cust_subject',
    threeDSResult: null,
    ...overrides,
  };
}

export interface PastPayment {
  tenantId: string;
  merchantId: string;
  livemode?: boolean;
  createdAt: Date;
  amountMinor?: number;
  currency?: string;
  cardFingerprint?: string | null;
  customerEmail?: string | null;
  customerIp?: string | null;
  customerReference?: string | null;
  status?: PaymentRow['status'];
  deletedAt?: Date | null;
}

/** A whole payments row (captured card payment unless told otherwise), for bulkCreate. */
export function paymentRow(p: PastPayment): PaymentRow {
  const amount = p.amountMinor ?? 1000;
  const fingerprint = p.cardFingerprint === undefined ? `fp_${randomUUID()}` : p.cardFingerprint;
  return {
    id: randomUUID(),
    tenantId: p.tenantId,
    merchantId: p.merchantId,
    livemode: p.livemode ?? false,
    checkoutSessionId: null,
    status: p.status ?? 'captured',
    currency: p.currency ?? 'EUR',
    amountMinor: amount,
    authorizedMinor: amount,
    capturedMinor: amount,
    refundedMinor: 0,
    refundPendingMinor: 0,
    disputedMinor: 0,
    feeMinor: 0,
    netMinor: amount,
    captureMethod: 'automatic',
    merchantReference: null,
    paymentMethodType: 'card',
    card: fingerprint
      ? { brand: 'visa', last4: '4242', bin: '424242', expMonth: 12, expYear: 2035, fingerprint, country: 'DE', holderName: null }
      : null,
    cardBrand: fingerprint ? 'visa' : null,
    terminalId: null,
    providerIntegrationId: null,
    channelId: null,
    partnerId: null,
    pendingOperation: null,
    pendingOperationUntil: null,
    providerDeclineCode: null,
    lastOperationError: null,
    providerReference: null,
    providerStatus: null,
    action: null,
    errorCode: null,
    errorMessage: null,
    approved: true,
    threeDSResult: null,
    metadata: {},
    routingDecision: null,
    feeBreakdown: null,
    fundsAvailableImmediately: false,
    currentAttemptId: null,
    returnUrl: null,
    cardVault: null,
    riskDecision: null,
    cardFingerprint: fingerprint,
    customerEmail: p.customerEmail ?? null,
    customerIp: p.customerIp ?? null,
    customerReference: p.customerReference ?? null,
    createdAt: p.createdAt,
    updatedAt: p.createdAt,
    deletedAt: p.deletedAt ?? null,
  };
}

/** Inserts past payments straight into the table, `batch` rows per INSERT. */
export async function insertPayments(db: Database, rows: PaymentRow[], batch = 1000): Promise<void> {
  for (let i = 0; i < rows.length; i += batch) await db.models.Payment.bulkCreate(rows.slice(i, i + batch));
}

export interface Recorded<T> {
  result: T;
  /** SQL statements sent to the database while `fn` ran */
  count: number;
  /** their text, when asked for */
  sql: string[];
}

/** A statement with `?` placeholders with its bound values written in as SQL literals. */
function inlineBound(sequelize: Database['sequelize'], text: string, bind: unknown[]): string {
  let i = 0;
  return text.replace(/\?/g, () => sequelize.escape(bind[i++] as string));
}

/**
 * Runs `fn` and counts the SQL statements the database receives meanwhile (a sequelize beforeQuery hook); with
 * `capture`, also keeps their text (an afterQuery hook: the dialect's query object holds the SQL it ran). Nothing
 * else may use the database while `fn` runs.
 */
export async function recordQueries<T>(db: Database, fn: () => Promise<T>, options: { capture?: boolean } = {}): Promise<Recorded<T>> {
  const sequelize = db.sequelize;
  const name = `record-queries-${randomUUID()}`;
  let count = 0;
  const sql: string[] = [];
  sequelize.addHook('beforeQuery', name, () => {
    count++;
  });
  if (options.capture) {
    sequelize.addHook('afterQuery', name, (_options, query) => {
      const { sql: text, bind, fast } = query as unknown as { sql?: unknown; bind?: unknown[]; fast?: boolean };
      // a prepared statement (src/db/statements.ts) is kept with its bound values written in, as Sequelize writes its own
      if (typeof text === 'string') sql.push(fast && bind ? inlineBound(sequelize, text, bind) : text);
    });
  }
  try {
    const result = await fn();
    return { result, count, sql };
  } finally {
    sequelize.removeHook('beforeQuery', name);
    if (options.capture) sequelize.removeHook('afterQuery', name);
  }
}
