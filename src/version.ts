import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from './util/paths';

const manifest = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as {
  version: string;
  engines: { node: string };
};

export const VERSION: string = manifest.version;

/** The oldest Node this build runs on: package.json's engines (">=20.19") as major.minor.patch. */
export const MIN_NODE: string = (() => {
  const [major, minor = '0', patch = '0'] = manifest.engines.node.replace(/^>=\s*/, '').split('.');
  return `${major}.${minor}.${patch}`;
})();
