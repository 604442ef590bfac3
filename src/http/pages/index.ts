import type express from 'express';
import type { Runtime } from '../../runtime';
import { mountCheckoutPages } from './checkout';
import { mountSandboxPages } from './sandbox-3ds';
import { mountProviderReturnPages } from './provider-return';

/**
 * HTML pages served outside /v1: the hosted checkout page, the sandbox acquirer's 3DS challenge page and the return
 * from a real acquirer's 3DS page (/provider-returns/{attemptId}); and the
 * favicon a browser asks for on its own (the pages name an empty inline icon, other paths still bring the request):
 * 204, no icon, rather than a 404 in the browser's console and the logs.
 */
export function mountPages(app: express.Express, rt: Runtime): void {
  app.get('/favicon.ico', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=86400').status(204).end();
  });
  mountCheckoutPages(app, rt);
  mountSandboxPages(app, rt);
  mountProviderReturnPages(app, rt);
}
