import {
  ConnectorError,
  type Connector,
  type ConnectorEnv,
  type ConnectorResult,
  type ConnectorStatus,
  type ConnectorTerminal,
} from './types';

const STATUSES: ConnectorStatus[] = ['succeeded', 'pending', 'requires_action', 'declined', 'failed'];

/**
 * The generic connector of external provider integrations: each operation is a JSON POST to
 * `{connectorBaseUrl}/{operation}` carrying the terminal's credentials in the body (over HTTPS only), answered with
 * `{ status, providerReference, rawStatus?, declineCode?, message?, action? }`. Nothing is invented: an unreachable
 * connector or an answer of another shape is a ConnectorError. (The in-process sandbox connectors replace this for
 * the sandbox provider codes when the payment path lands.)
 */
export class HttpConnector implements Connector {
  readonly kind = 'http';

  constructor(private readonly options: { timeoutMs?: number; fetch?: typeof fetch } = {}) {}

  authorize = (_env: ConnectorEnv, t: ConnectorTerminal, request: object) => this.call(t, 'authorize', request);
  capture = (_env: ConnectorEnv, t: ConnectorTerminal, request: object) => this.call(t, 'capture', request);
  void = (_env: ConnectorEnv, t: ConnectorTerminal, request: object) => this.call(t, 'void', request);
  refund = (_env: ConnectorEnv, t: ConnectorTerminal, request: object) => this.call(t, 'refund', request);
  payout = (_env: ConnectorEnv, t: ConnectorTerminal, request: object) => this.call(t, 'payout', request);
  disputeEvidence = (_env: ConnectorEnv, t: ConnectorTerminal, request: object) => this.call(t, 'dispute-evidence', request);
  disputeAccept = (_env: ConnectorEnv, t: ConnectorTerminal, request: object) => this.call(t, 'dispute-accept', request);

  private async call(terminal: ConnectorTerminal, operation: string, request: object): Promise<ConnectorResult> {
    const base = new URL(terminal.connectorBaseUrl);
    if (base.protocol !== 'https:') throw new ConnectorError(`connector ${terminal.providerIntegrationId} is not served over https`, false);
    const url = `${terminal.connectorBaseUrl.replace(/\/$/, '')}/${operation}`;
    let res: Response;
    try {
      res = await (this.options.fetch ?? fetch)(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          terminalId: terminal.terminalId,
          credentials: terminal.credentials,
          mcc: terminal.mcc,
          descriptor: terminal.descriptor,
          ...request,
        }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
        redirect: 'error',
      });
    } catch (error) {
      // the message names the operation, never the request (it holds credentials)
      throw new ConnectorError(`connector ${operation} call failed: ${(error as Error).name}`, true);
    }
    if (res.status >= 500) throw new ConnectorError(`connector ${operation} answered ${res.status}`, true);
    const body = (await res.json().catch(() => null)) as Partial<ConnectorResult> | null;
    if (!body || !STATUSES.includes(body.status as ConnectorStatus)) {
      throw new ConnectorError(`connector ${operation} answered ${res.status} without a valid status`, false);
    }
    return {
      status: body.status as ConnectorStatus,
      providerReference: typeof body.providerReference === 'string' ? body.providerReference : null,
      rawStatus: body.rawStatus,
      declineCode: body.declineCode,
      message: body.message,
      action: body.action,
      threeDSResult: body.threeDSResult,
    };
  }
}
