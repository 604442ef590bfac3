import type { AgentOptions } from 'node:https';
import { CheckoutAPI, Client, DisputesAPI, EnvironmentEnum, HttpClientException, HttpURLConnectionClient } from '@adyen/api-library';
import type { AppConfig } from '../../config';
import { baseUrlRefusal, connectorAgentOptions } from '../transport';
import { ConnectorError, type ConnectorTerminal } from '../types';

/** Adyen's own test host: a terminal's integration on it talks to Adyen (test, or live through liveEndpointUrlPrefix). */
export const ADYEN_DEFAULT_BASE_URL = 'https://checkout-test.adyen.com';

type PaymentsApi = CheckoutAPI['PaymentsApi'];
type ModificationsApi = CheckoutAPI['ModificationsApi'];
type DisputesApi = DisputesAPI['DisputesApi'];

/**
 * The library's HTTP client with the connectors' transport: every request's agent refuses private addresses not
 * listed in PAYPLANE_CONNECTOR_ALLOW_CIDRS and trusts PAYPLANE_CONNECTOR_CA_FILE's authorities. The library makes a
 * new agent per request from these options, so keep-alive is off (an idle socket would outlive its agent).
 */
class GuardedHttpClient extends HttpURLConnectionClient {
  constructor(options: AgentOptions) {
    super();
    (this as unknown as { agentOptions: AgentOptions }).agentOptions = options;
  }
}

const agentOptionsCache = new Map<string, AgentOptions>();

function agentOptions(config: Pick<AppConfig, 'connectorAllowCidrs' | 'connectorCaFile'>): AgentOptions {
  const key = `${config.connectorAllowCidrs.join(',')}|${config.connectorCaFile ?? ''}`;
  let options = agentOptionsCache.get(key);
  if (!options) {
    options = { ...connectorAgentOptions(config), keepAlive: false };
    agentOptionsCache.set(key, options);
  }
  return options;
}

/** The services of one terminal's call: the checkout payments and modifications, the disputes. */
export interface AdyenServices {
  payments: PaymentsApi;
  modifications: ModificationsApi;
  disputes: DisputesApi;
  merchantAccount: string;
}

/** The path part of a service's default base URL (`/v72`, `/ca/services/DisputeService/v30`): the library's version. */
function versionPath(service: object): string {
  const base = (service as { API_BASEPATH?: string }).API_BASEPATH;
  if (!base) throw new ConnectorError('the Adyen library exposes no API base path', false);
  return new URL(base).pathname.replace(/\/$/, '');
}

function setBase(service: object, url: string): void {
  (service as { baseUrl: string }).baseUrl = url;
}

/**
 * A terminal's client and services. On Adyen's default URL the library picks the host (test, or live with the
 * terminal's liveEndpointUrlPrefix); another integration URL (a regional host, a proxy, a local fake) replaces the
 * host and keeps the library's API version. The credentials live in this object for the call only.
 */
export function adyenServices(config: AppConfig, terminal: ConnectorTerminal): AdyenServices {
  const { apiKey, merchantAccount, liveEndpointUrlPrefix } = terminal.credentials;
  if (!apiKey || !merchantAccount) throw new ConnectorError('the Adyen terminal has no apiKey or merchantAccount', false);
  const base = terminal.connectorBaseUrl.replace(/\/+$/, '');
  const refusal = baseUrlRefusal(base, config.connectorAllowCidrs);
  if (refusal) throw new ConnectorError(`the Adyen integration's connectorBaseUrl ${refusal}`, false);
  const isDefault = base === ADYEN_DEFAULT_BASE_URL;
  if (terminal.livemode && isDefault && !liveEndpointUrlPrefix) {
    throw new ConnectorError('a live Adyen terminal needs its liveEndpointUrlPrefix', false);
  }
  const client = new Client(
    {
      apiKey,
      environment: terminal.livemode ? EnvironmentEnum.LIVE : EnvironmentEnum.TEST,
      ...(liveEndpointUrlPrefix ? { liveEndpointUrlPrefix } : {}),
      connectionTimeoutMillis: config.connectorTimeoutMs,
      applicationName: 'payplane',
    },
    new GuardedHttpClient(agentOptions(config)),
  );
  let payments: PaymentsApi;
  let modifications: ModificationsApi;
  let disputes: DisputesApi;
  try {
    const checkout = new CheckoutAPI(client);
    payments = checkout.PaymentsApi;
    modifications = checkout.ModificationsApi;
    disputes = new DisputesAPI(client).DisputesApi;
  } catch (error) {
    // the library refuses a live environment without its prefix
    throw new ConnectorError(`the Adyen client could not be set up: ${(error as Error).message}`, false);
  }
  if (!isDefault) {
    setBase(payments, base + versionPath(payments));
    setBase(modifications, base + versionPath(modifications));
    setBase(disputes, base + versionPath(disputes));
  }
  return { payments, modifications, disputes, merchantAccount };
}

/** Why a call's error is what it is: an answer refused (4xx with Adyen's errorCode) or no answer (a ConnectorError). */
export type CallFailure = { kind: 'refused'; statusCode: number; errorCode: string | undefined; message: string };

/**
 * Reads an error of the library. A 5xx, a 429, a timeout or a dropped connection: the outcome is unknown
 * (retryable ConnectorError). 401/403: the credentials are refused (not retryable: nothing was done). Another 4xx:
 * Adyen refused the request (validation; its errorCode kept). The message never carries the request.
 */
export function readFailure(error: unknown, operation: string): CallFailure {
  if (error instanceof ConnectorError) throw error;
  const statusCode = (error as { statusCode?: unknown }).statusCode;
  if (error instanceof HttpClientException || typeof statusCode === 'number') {
    const status = typeof statusCode === 'number' ? statusCode : 0;
    const errorCode = (error as { errorCode?: string }).errorCode ?? (error as HttpClientException).apiError?.errorCode;
    const apiMessage = (error as HttpClientException).apiError?.message;
    if (status === 401 || status === 403) {
      throw new ConnectorError(`Adyen refused the terminal's credentials on ${operation} (${status})`, false);
    }
    if (status >= 500 || status === 429 || status === 0 || status === 408) {
      throw new ConnectorError(`Adyen ${operation} answered ${status || 'without a status'}`, true);
    }
    return {
      kind: 'refused',
      statusCode: status,
      errorCode: errorCode === undefined ? undefined : String(errorCode),
      message: apiMessage ?? `Adyen refused the ${operation} request (${status}).`,
    };
  }
  // no answer: a timeout (the library aborts the request), a reset, a refused address, an unreadable answer
  const name = (error as Error)?.name ?? 'Error';
  throw new ConnectorError(`Adyen ${operation} call failed: ${name}`, true);
}
