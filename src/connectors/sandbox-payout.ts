import crypto from 'node:crypto';
import {
  ConnectorError,
  type Connector,
  type ConnectorEnv,
  type ConnectorResult,
  type ConnectorTerminal,
  type PayoutRequest,
} from './types';

/**
 * A destination the sandbox payout provider refuses (account_closed): this IBAN (a valid one) as a bank_account's
 * iban, for testing the failure path of payouts and withdrawals (`payplane events trigger payout.failed` uses it).
 */
export const SANDBOX_FAILING_IBAN = 'DE82370400440532013999';

/**
 * The built-in sandbox payout provider (provider code sandbox-payout): a payout succeeds at once, except to
 * SANDBOX_FAILING_IBAN, which it refuses (account_closed). Its reference is
 * derived from ours, so a repeated payout of one reference answers the same providerReference (idempotent like a
 * real provider keyed by our reference). It makes no card operations.
 */
export class SandboxPayoutConnector implements Connector {
  readonly kind = 'sandbox-payout';

  async payout(_env: ConnectorEnv, terminal: ConnectorTerminal, request: PayoutRequest): Promise<ConnectorResult> {
    if (request.livemode) throw new ConnectorError('the sandbox payout provider serves sandbox (test mode) payouts only', false);
    if (!Number.isInteger(request.amount.valueMinor) || request.amount.valueMinor <= 0) {
      return {
        status: 'failed',
        providerReference: null,
        rawStatus: 'REJECTED',
        declineCode: 'invalid_amount',
        message: 'The payout amount must be positive.',
      };
    }
    if (Object.values(request.destination.details).some((v) => v.replace(/\s+/g, '').toUpperCase() === SANDBOX_FAILING_IBAN)) {
      return {
        status: 'failed',
        providerReference: null,
        rawStatus: 'REJECTED',
        declineCode: 'account_closed',
        message: 'The destination account is closed (sandbox test IBAN).',
      };
    }
    const digest = crypto
      .createHash('sha256')
      .update(`${terminal.providerIntegrationId}:${request.tenantId}:${request.reference}`)
      .digest('hex');
    return { status: 'succeeded', providerReference: `sbpo_${digest.slice(0, 24)}`, rawStatus: 'PAID', message: 'Paid out.' };
  }

  private unsupported(operation: string): Promise<ConnectorResult> {
    return Promise.resolve({
      status: 'failed',
      providerReference: null,
      rawStatus: 'ERROR',
      declineCode: 'operation_not_supported',
      message: `The sandbox payout provider does not ${operation}.`,
    });
  }

  authorize = () => this.unsupported('authorize card payments');
  capture = () => this.unsupported('capture');
  void = () => this.unsupported('void');
  refund = () => this.unsupported('refund');
  disputeEvidence = () => this.unsupported('take dispute evidence');
  disputeAccept = () => this.unsupported('take dispute acceptances');
}
