import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as sessions from '../../services/checkout/sessions';
import { paySession } from '../../services/checkout/completion';
import { expireSession } from '../../services/checkout/expiry';
import {
  CheckoutSessionSchema,
  CompleteCheckoutSessionBody,
  CreateCheckoutSessionBody,
  ListCheckoutSessionsQuery,
  UpdateCheckoutSessionBody,
} from './schemas';

const tag = 'Checkout sessions';
const manage = 'payment-experience:checkout:manage';
const view = 'payment-experience:checkout:view';

const CLIENT_SECRET_AUTH =
  "Authorization: a merchant or tenant caller, or the session's own `clientSecret` as bearer (`Authorization: Bearer cs_…`); a clientSecret reaches only its own session (404 for any other id) and no other operation.";

/** Checkout sessions (operations.md "Checkout sessions"). */
export const checkoutOperations: Operation[] = [
  defineOperation({
    id: 'createCheckoutSession',
    method: 'post',
    path: '/v1/checkout-sessions',
    levels: ['M', 'T'],
    permission: manage,
    tag,
    summary: 'Create a checkout session',
    description:
      "Starts an open session for a merchant (tenant callers give merchantId). When lineItems are given, amount must equal their total (400 naming body.amount.valueMinor). The session expires after the merchant's checkout integration profile sessionLifetime (24 h without one). The response alone carries `clientSecret` and the hosted page `url` with its key; reads never do. Emits checkout.session.created.",
    kind: 'single',
    status: 201,
    body: CreateCheckoutSessionBody,
    response: CheckoutSessionSchema,
    handler: (ctx, { body }) => sessions.createSession(ctx, body),
  }),
  defineOperation({
    id: 'listCheckoutSessions',
    method: 'get',
    path: '/v1/checkout-sessions',
    levels: ['M', 'T'],
    permission: view,
    tag,
    secretKeyOnly: true,
    summary: 'List checkout sessions',
    description: 'Needs a secret key (sk_…). Filters: status, merchantId, paymentId, createdFrom, createdTo.',
    kind: 'list',
    query: ListCheckoutSessionsQuery,
    response: CheckoutSessionSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) =>
      sessions.listSessions(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getCheckoutSession',
    method: 'get',
    path: '/v1/checkout-sessions/{id}',
    levels: ['M', 'T'],
    permission: view,
    tag,
    secretKeyOnly: true,
    summary: 'Get a checkout session',
    description: 'Needs a secret key (sk_…); never carries clientSecret.',
    kind: 'single',
    params: idParams,
    response: CheckoutSessionSchema,
    handler: (ctx, { params }) => sessions.getSession(ctx, params.id),
  }),
  defineOperation({
    id: 'updateCheckoutSession',
    method: 'patch',
    path: '/v1/checkout-sessions/{id}',
    levels: ['M', 'T'],
    permission: manage,
    tag,
    sessionSecretAuth: true,
    summary: 'Update an open checkout session',
    description: `customerInfo (merged field by field), selectedFulfillment (one of fulfillmentOptions; null removes it), lineItems (replace the lines), metadata, agenticContext. amount and totals follow the lines and the fulfillment. 409 once complete or expired, or while a payment is in flight.\n\n${CLIENT_SECRET_AUTH}`,
    kind: 'single',
    params: idParams,
    body: UpdateCheckoutSessionBody,
    response: CheckoutSessionSchema,
    handler: (ctx, { params, body }) => sessions.updateSession(ctx, params.id, body),
  }),
  defineOperation({
    id: 'completeCheckoutSession',
    method: 'post',
    path: '/v1/checkout-sessions/{id}/complete',
    levels: ['M', 'T'],
    permission: manage,
    tag,
    sessionSecretAuth: true,
    ownTransactions: true,
    summary: 'Pay a checkout session',
    description: `Takes the card, routes, creates the payment and calls the provider. Answers with the session carrying paymentId and paymentStatus (the payment itself at GET /v1/payments/{paymentId}); the final outcome arrives asynchronously (webhooks are the authority). A declined payment leaves the session open for another try. 409 once complete or expired, or while a payment is in flight.\n\n${CLIENT_SECRET_AUTH}`,
    kind: 'single',
    params: idParams,
    body: CompleteCheckoutSessionBody,
    response: CheckoutSessionSchema,
    handler: (ctx, { params, body }) => paySession(ctx, params.id, body),
    // the session as the payment its request committed left it
    resume: (ctx, { params }) => sessions.getSession(ctx, params.id),
  }),
  defineOperation({
    id: 'expireCheckoutSession',
    method: 'post',
    path: '/v1/checkout-sessions/{id}/expire',
    levels: ['M', 'T'],
    permission: manage,
    tag,
    summary: 'Expire an open checkout session',
    description: '409 when complete or already expired, or while a payment is in flight. Emits checkout.session.expired.',
    kind: 'single',
    params: idParams,
    response: CheckoutSessionSchema,
    handler: (ctx, { params }) => expireSession(ctx, params.id),
  }),
];
