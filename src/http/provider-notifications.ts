import express, { type Request, type Response } from 'express';
import type { Runtime } from '../runtime';
import { AuthenticationError } from '../domain/errors';
import { authThrottle } from './auth-throttle';
import { requestOrigin } from './pipeline';
import {
  notificationCredential,
  openNotification,
  signatureInvalid,
  storeNotification,
  type IncomingNotification,
  type OpenedNotification,
} from '../services/notifications/inbox';

/** How a failed check is counted by the failed-authentication throttle (a guess, as a wrong API key is). */
const COUNTED_AS = 'INVALID_CREDENTIALS';

/**
 * POST /v1/provider-notifications/{terminalId}: an acquirer's notifications for one terminal (operations.md "Service
 * operations"), outside the registry and its API keys: the acquirer's signature over the raw bytes is the credential,
 * checked by the terminal's connector. Mounted before the /v1 JSON parser (the body is read raw, up to 1 MB). A
 * failed check is 401 NOTIFICATION_SIGNATURE_INVALID and counts in the failed-authentication throttle of its address
 * (src/http/auth-throttle.ts), so the endpoint is no oracle to guess a signing secret with; the answer otherwise is
 * the acquirer's expected one, once every item is stored (applied, or queued for the provider-notifications job).
 */
export function mountProviderNotifications(app: express.Express, rt: Runtime): void {
  app.post('/v1/provider-notifications/:terminalId', express.raw({ type: '*/*', limit: '1mb' }), async (req: Request, res: Response) => {
    const incoming: IncomingNotification = {
      terminalId: String(req.params.terminalId),
      headers: headersOf(req),
      rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      origin: requestOrigin(req),
    };
    let opened: OpenedNotification;
    try {
      opened = await authThrottle(rt).guard(
        rt,
        { credential: notificationCredential(incoming), ip: req.ip ?? req.socket.remoteAddress ?? '' },
        () =>
          openNotification(rt, incoming).catch((error: unknown) => {
            // counted as a guess by the throttle, answered as what it is
            if (error instanceof AuthenticationError && error.code === 'NOTIFICATION_SIGNATURE_INVALID')
              throw new AuthenticationError(error.detail, COUNTED_AS);
            throw error;
          }),
      );
    } catch (error) {
      if (error instanceof AuthenticationError && error.code === COUNTED_AS) throw signatureInvalid(error.detail);
      throw error;
    }
    const reply = await storeNotification(rt, opened);
    res.status(reply.status).set('Cache-Control', 'no-store').type(reply.contentType).send(reply.body);
  });
}

/** The request's headers, lower-case names, one value each (repeated ones joined as Node joins them). */
function headersOf(req: Request): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}
