import fs from 'node:fs';
import path from 'node:path';
import { Plugin } from '@oclif/core';

/**
 * Writes oclif.manifest.json, the command manifest oclif reads instead of loading every command (what `oclif manifest`
 * does, with the @oclif/core the binary runs): `payplane --help` and `payplane <command> --help` then load no command
 * code, so commands import their services plainly. `npm run build` writes it after tsc, from dist/commands; it is not
 * committed (a stale one would hide a command), and `npm pack` ships it (package.json files).
 */
export async function writeManifest(root: string): Promise<number> {
  const plugin = new Plugin({
    root,
    type: 'core',
    isRoot: true,
    ignoreManifest: true,
    errorOnManifestCreate: true,
    respectNoCacheDefault: true,
  });
  await plugin.load();
  // without indentation and in ASCII (\uXXXX for the rest): a process keeps the text it read (oclif caches it under
  // NODE_ENV=production), and one character outside Latin-1 would make all of it a string of two bytes a character
  const text = JSON.stringify(plugin.manifest).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  fs.writeFileSync(path.join(root, 'oclif.manifest.json'), `${text}\n`);
  return Object.keys(plugin.manifest.commands).length;
}

if (require.main === module) {
  writeManifest(path.resolve(__dirname, '../../..')).then(
    (count) => console.log(`oclif.manifest.json: ${count} commands`),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
