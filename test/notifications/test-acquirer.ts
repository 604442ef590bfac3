import crypto from 'node:crypto';
import request from 'supertest';
import type { Express } from 'express';
import {
  NotificationRejected,
  type ActionReturnRequest,
  type AuthorizeRequest,
  type Connector,
  type ConnectorResult,
  type NotificationItem,
  type RefundRequest,
} from '../../src/connectors';

/**
 * A test acquirer in place of a connector (registerConnector on the sandbox provider's code): it answers
 * authorizations, refunds, captures and 3DS returns as the test sets, and takes notifications signed with an HMAC
 * (X-Test-Signature: hex HMAC-SHA256 of the raw body, keyed by the terminal) whose JSON body lists the items.
 */
export interface TestAcquirer {
  connector: Connector;
  authorize: (request: AuthorizeRequest) => ConnectorResult;
  refund: (request: RefundRequest) => ConnectorResult;
  completeAction: (request: ActionReturnRequest) => ConnectorResult;
  authorizations: AuthorizeRequest[];
  returns: ActionReturnRequest[];
}

export const signingKey = (terminalId: string) => `whsec_test_${terminalId}`;

export function sign(terminalId: string, body: string): string {
  return crypto.createHmac('sha256', signingKey(terminalId)).update(body).digest('hex');
}

export const ACCEPTED = { status: 200, contentType: 'text/plain', body: '[accepted]' };

export function testAcquirer(base: Connector): TestAcquirer {
  const acquirer: Omit<TestAcquirer, 'connector'> & { connector?: Connector } = {
    authorize: (r: AuthorizeRequest): ConnectorResult => ({ status: 'pending', providerReference: `pi_${r.reference}` }),
    refund: (r: RefundRequest): ConnectorResult => ({ status: 'pending', providerReference: `re_${r.reference}` }),
    completeAction: (): ConnectorResult => ({ status: 'failed', providerReference: null }),
    authorizations: [] as AuthorizeRequest[],
    returns: [] as ActionReturnRequest[],
  };
  const connector = Object.create(base) as Connector;
  connector.authorize = async (_env, _terminal, r) => {
    acquirer.authorizations.push(r);
    return acquirer.authorize(r);
  };
  connector.refund = async (_env, _terminal, r) => acquirer.refund(r);
  connector.capture = async (_env, _terminal, r) => ({ status: 'succeeded', providerReference: r.providerReference });
  connector.void = async (_env, _terminal, r) => ({ status: 'succeeded', providerReference: r.providerReference });
  connector.completeAction = async (_env, _terminal, r) => {
    acquirer.returns.push(r);
    return acquirer.completeAction(r);
  };
  connector.parseNotification = async (_env, terminal, { headers, rawBody }) => {
    const given = Buffer.from(headers['x-test-signature'] ?? '', 'utf8');
    const expected = Buffer.from(sign(terminal.terminalId, rawBody.toString('utf8')), 'utf8');
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) throw new NotificationRejected('bad signature');
    let body: { items?: unknown };
    try {
      body = JSON.parse(rawBody.toString('utf8')) as { items?: unknown };
    } catch {
      throw new NotificationRejected('the body is not JSON');
    }
    if (!Array.isArray(body.items)) throw new NotificationRejected('the body lists no items');
    return { items: body.items as NotificationItem[], reply: ACCEPTED };
  };
  return Object.assign(acquirer, { connector });
}

/** POSTs a notification of `items` for the terminal, signed (or forged with another signature). */
export function notify(app: Express, terminalId: string, items: NotificationItem[], options: { forged?: boolean; raw?: string } = {}) {
  const body = options.raw ?? JSON.stringify({ items });
  return request(app)
    .post(`/v1/provider-notifications/${terminalId}`)
    .set('Content-Type', 'application/json')
    .set('X-Test-Signature', options.forged ? sign(terminalId, `${body} `) : sign(terminalId, body))
    .send(body);
}

/** An approval (or another answer) of an authorization, as the acquirer notifies it. */
export function authorizationOutcome(
  eventId: string,
  providerReference: string,
  reference: string | null,
  result: Partial<ConnectorResult> = {},
): NotificationItem {
  return {
    eventId,
    type: 'payment_intent.succeeded',
    kind: 'outcome',
    operation: 'authorize',
    reference,
    providerReference,
    result: { status: 'succeeded', providerReference, ...result },
  };
}
