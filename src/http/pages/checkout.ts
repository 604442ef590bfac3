import type express from 'express';
import type { Runtime } from '../../runtime';

/** checkout pages (skeleton, filled by its area's builder). */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function mountCheckoutPages(app: express.Express, rt: Runtime): void {}
