import type express from 'express';
import type { Runtime } from '../../runtime';

/** sandbox-3ds pages (skeleton, filled by its area's builder). */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function mountSandboxPages(app: express.Express, rt: Runtime): void {}
