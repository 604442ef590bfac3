import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from './util/paths';

export const VERSION: string = (JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
