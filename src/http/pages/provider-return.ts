import express, { type Request, type Response } from 'express';
import type { Runtime } from '../../runtime';
import { NotFoundError } from '../../domain/errors';
import { returnFromAction } from '../../services/payments/action-return';
import { requestOrigin } from '../pipeline';
import { escapeHtml, messagePage, safeUrl, sendPage } from './html';

/**
 * Where a real acquirer's 3DS page sends the customer back (the authorization's actionReturnUrl): GET or POST
 * /provider-returns/{attemptId}, the query and (POST) the urlencoded form fields being what the acquirer's return
 * carries. The outcome is read from the acquirer and applied (src/services/payments/action-return.ts), then the
 * customer is sent on (303) to the payment's returnUrl, or shown a small "payment processed" page without one.
 */
export function mountProviderReturnPages(app: express.Express, rt: Runtime): void {
  const handle = async (req: Request, res: Response, next: express.NextFunction) => {
    try {
      const params = { ...stringsOf(req.query), ...stringsOf(req.body) };
      const done = await returnFromAction({ ...rt, origin: requestOrigin(req) }, String(req.params.attemptId), params);
      const target = safeUrl(done.returnUrl);
      if (target) {
        res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
        return res.redirect(303, target);
      }
      const verdict =
        done.status === 'failed'
          ? 'The payment was not completed.'
          : done.status === 'requires_action' || done.status === 'processing'
            ? 'The payment is being processed.'
            : 'The payment was processed.';
      return send(res, 200, page('Payment processed', `<p>${escapeHtml(verdict)}</p><p>You may close this page.</p>`));
    } catch (error) {
      if (error instanceof NotFoundError) return send(res, 404, page('Payment not found', '<p>This payment does not exist.</p>'));
      return next(error);
    }
  };
  app.get('/provider-returns/:attemptId', handle);
  // acquirers return by POST with form fields (3DS results): read as strings, a 3DS answer's size at most
  app.post('/provider-returns/:attemptId', express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 50 }), handle);
}

/** The string fields of a query or form (anything else is not what an acquirer's return carries). */
function stringsOf(source: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!source || typeof source !== 'object') return out;
  for (const [name, value] of Object.entries(source as Record<string, unknown>)) if (typeof value === 'string') out[name] = value;
  return out;
}

function send(res: Response, status: number, html: string): void {
  sendPage(res, status, html);
}

function page(title: string, body: string): string {
  return messagePage(title, body);
}
