import { z } from 'zod';
import type { CallerContext } from '../../domain/context';
import { ValidationError } from '../../domain/errors';
import { scoped } from '../../db/scoped';
import { summarizeCard, validateCard } from '../payments/cards';
import { normalizeIp, type RiskSubject } from './conditions';
import { evaluateRisk, type RiskDecision } from './engine';

/**
 * A dry run of the risk engine for a hypothetical payment (`payplane risk evaluate --payment-json FILE`): the same
 * subject the checkout builds, the same engine, nothing written. The card is given as a number (summarized exactly as
 * the checkout does, so its fingerprint is the one a real payment would have) or by its summary fields.
 */

const text = (max = 255) => z.string().trim().min(1).max(max);

export const RiskPaymentInput = z
  .strictObject({
    merchantId: z.string().uuid(),
    amount: z.strictObject({
      currency: z.string().regex(/^[A-Z]{3}$/, 'must be an upper-case ISO 4217 currency code'),
      valueMinor: z.number().int().safe().min(0),
    }),
    channelId: z.string().uuid().nullable().optional(),
    terminalId: z
      .string()
      .uuid()
      .nullable()
      .optional()
      .describe('the terminal the payment would be routed to (aggregations scoped to terminal)'),
    card: z
      .strictObject({
        number: z.string().optional(),
        expMonth: z.number().int().optional(),
        expYear: z.number().int().optional(),
        fingerprint: text().optional(),
        bin: z
          .string()
          .regex(/^\d{6}$/, 'must be the 6 first digits of the card')
          .optional(),
        brand: text(50).optional(),
        country: z
          .string()
          .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code')
          .nullable()
          .optional(),
      })
      .optional(),
    customerInfo: z
      .looseObject({ email: text(254).optional(), ipAddress: text(64).optional(), customerReference: text().optional() })
      .optional(),
    threeDSResult: text(50).nullable().optional(),
    at: z.iso.datetime({ offset: true }).optional(),
  })
  .describe('a hypothetical payment');

export type RiskPaymentInput = z.infer<typeof RiskPaymentInput>;

export interface RiskDryRun {
  subject: Omit<RiskSubject, 'card'> & { card: (Omit<NonNullable<RiskSubject['card']>, 'fingerprint'> & { fingerprint: string }) | null };
  decision: RiskDecision;
}

/** Builds the subject of a hypothetical payment of the merchant (404 when the caller cannot see it). */
export async function riskSubjectFromInput(ctx: CallerContext, input: RiskPaymentInput): Promise<RiskSubject> {
  const merchant = await scoped(ctx, ctx.db.models.Merchant).get(input.merchantId);
  let card: RiskSubject['card'] = null;
  if (input.card?.number !== undefined) {
    const given = {
      number: input.card.number,
      expMonth: input.card.expMonth ?? 12,
      expYear: input.card.expYear ?? ctx.clock.now().getUTCFullYear() + 1,
    };
    validateCard(given, ctx.clock.now(), 'card');
    const summary = summarizeCard(ctx, given);
    card = { fingerprint: summary.fingerprint, bin: summary.bin, brand: summary.brand, country: summary.country };
  } else if (input.card) {
    if (!input.card.fingerprint) throw ValidationError.field('card.fingerprint', 'is required when card.number is not given');
    card = {
      fingerprint: input.card.fingerprint,
      bin: input.card.bin ?? '',
      brand: input.card.brand ?? 'unknown',
      country: input.card.country ?? null,
    };
  }
  let ip: string | null = null;
  if (input.customerInfo?.ipAddress) {
    try {
      ip = normalizeIp(input.customerInfo.ipAddress);
    } catch {
      throw ValidationError.field('customerInfo.ipAddress', 'must be an IPv4 or IPv6 address');
    }
  }
  return {
    tenantId: merchant.tenantId,
    livemode: ctx.livemode,
    merchantId: merchant.id,
    channelId: input.channelId ?? null,
    terminalId: input.terminalId ?? null,
    amount: input.amount,
    card,
    email: input.customerInfo?.email?.toLowerCase() ?? null,
    ip,
    customerReference: input.customerInfo?.customerReference ?? null,
    threeDSResult: input.threeDSResult ?? null,
  };
}

/** The decision the engine would make now (or at `at`) for the hypothetical payment. Writes nothing. */
export async function dryRunRisk(ctx: CallerContext, input: RiskPaymentInput): Promise<RiskDryRun> {
  const subject = await riskSubjectFromInput(ctx, input);
  const decision = await evaluateRisk(ctx, subject, input.at ? new Date(input.at) : ctx.clock.now());
  return { subject, decision };
}
