import type express from 'express';
import type { Runtime } from '../../runtime';
import { mountCheckoutPages } from './checkout';
import { mountSandboxPages } from './sandbox-3ds';

/** HTML pages served outside /v1: the hosted checkout page and the sandbox acquirer's 3DS challenge page. */
export function mountPages(app: express.Express, rt: Runtime): void {
  mountCheckoutPages(app, rt);
  mountSandboxPages(app, rt);
}
