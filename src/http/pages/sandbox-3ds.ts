import express, { type Request, type Response } from 'express';
import type { Runtime } from '../../runtime';
import { answerChallenge, findChallenge, type ChallengeView } from '../../connectors/sandbox-card';
import { escapeHtml, messagePage, pageMoney, safeUrl, sendPage } from './html';

/**
 * The sandbox acquirer's 3DS challenge page: GET /sandbox/3ds/{token} shows the amount with Complete and Fail
 * buttons; POST /sandbox/3ds/{token} (urlencoded form, action=complete|fail) schedules the authorization's outcome
 * and redirects (303) to the returnUrl given at authorize, or shows a plain "done" page without one. The token is a
 * capability (only its hash is stored); a page answered once or expired is refused.
 */
export function mountSandboxPages(app: express.Express, rt: Runtime): void {
  const env = { db: rt.db, clock: rt.clock, config: rt.config };

  app.get('/sandbox/3ds/:token', async (req: Request, res: Response, next) => {
    try {
      const view = await findChallenge(env, String(req.params.token));
      if (!view) return send(res, 404, page('Challenge not found', '<p>This 3D Secure challenge does not exist.</p>'));
      if (view.status !== 'open') return refused(res, view);
      return send(res, 200, challengePage(view));
    } catch (error) {
      next(error);
    }
  });

  app.post(
    '/sandbox/3ds/:token',
    express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 }),
    async (req: Request, res: Response, next) => {
      try {
        const action = (req.body as Record<string, unknown> | undefined)?.action;
        if (action !== 'complete' && action !== 'fail') {
          return send(res, 400, page('Invalid answer', '<p>Answer the challenge with Complete or Fail.</p>'));
        }
        const view = await answerChallenge(env, String(req.params.token), action);
        if (!view) return send(res, 404, page('Challenge not found', '<p>This 3D Secure challenge does not exist.</p>'));
        if (view.status !== 'open') return refused(res, view);
        const target = safeUrl(view.returnUrl);
        if (target) {
          res.set('Cache-Control', 'no-store');
          return res.redirect(303, target);
        }
        const verdict = action === 'complete' ? 'Authentication completed.' : 'Authentication failed.';
        return send(res, 200, page('Done', `<p>${verdict}</p><p>You may close this page.</p>`));
      } catch (error) {
        next(error);
      }
    },
  );
}

function refused(res: Response, view: ChallengeView): void {
  if (view.status === 'expired') return send(res, 410, page('Challenge expired', '<p>This 3D Secure challenge has expired.</p>'));
  return send(res, 409, page('Challenge already answered', '<p>This 3D Secure challenge was already answered.</p>'));
}

function send(res: Response, status: number, html: string): void {
  sendPage(res, status, html, { frameAncestors: "'self'" });
}

/** Integer minor units as the checkout page shows them (`€12.34`, the currency's own decimals; no floating point). */
export function formatAmount(currency: string, minor: number): string {
  return pageMoney({ currency, valueMinor: minor });
}

function challengePage(view: ChallengeView): string {
  return page(
    '3D Secure challenge',
    `<p class="muted">Sandbox issuer — no real bank is involved.</p>
    <p>Confirm the payment of</p>
    <p class="amount" data-testid="amount">${escapeHtml(formatAmount(view.currency, view.amountMinor))}</p>
    <form method="post">
      <button type="submit" name="action" value="complete" id="complete">Complete</button>
      <button type="submit" name="action" value="fail" id="fail" class="secondary">Fail</button>
    </form>`,
  );
}

function page(title: string, body: string): string {
  return messagePage(
    title,
    body,
    `
  .amount { font-size: 1.75rem; font-weight: 600; margin: .5rem 0 1.5rem; }
  form { display: flex; gap: .75rem; }
  button { flex: 1; padding: .75rem; }
  button.secondary { background: #e5e7eb; color: #1f2430; }`,
  );
}
