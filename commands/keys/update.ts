import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import { ValidationError } from '../../src/domain/errors';
import type { ApiKey } from '../../src/services/api-keys/keys';
import { validateWith } from '../../src/cli/validate';
import { UpdateApiKeyBody } from '../../src/api/api-keys/schemas';
import { updateApiKey } from '../../src/services/api-keys/keys';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class KeysUpdate extends BaseCommand<typeof KeysUpdate> {
  static override summary = 'Change the name, permissions or expiry of an active key.';
  static override examples = [
    '<%= config.bin %> keys update 2d0c… --name "Reporting"',
    '<%= config.bin %> keys update 2d0c… --permission payments:payments:view --permission payments:refunds:view',
    '<%= config.bin %> keys update 2d0c… --no-expiry',
  ];
  static override args = { id: recordArg('apiKey', { description: 'API key id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    name: Flags.string({ description: 'New name' }),
    permission: Flags.string({ description: "Permission code (repeatable); replaces the key's permissions", multiple: true }),
    'expires-at': Flags.string({ description: 'New expiry (ISO 8601 date-time)', exclusive: ['no-expiry'] }),
    'no-expiry': Flags.boolean({ description: 'Remove the expiry', default: false }),
  };

  async run(): Promise<ApiKey> {
    const raw = {
      name: this.flags.name,
      permissions: this.flags.permission,
      expiresAt: this.flags['no-expiry'] ? null : this.flags['expires-at'],
    };
    if (Object.values(raw).every((v) => v === undefined)) {
      throw new ValidationError(
        'Nothing to change.',
        [{ path: '--name', message: 'give --name, --permission, --expires-at or --no-expiry' }],
        'NOTHING_TO_CHANGE',
      );
    }
    const input = validateWith(UpdateApiKeyBody, raw, { permissions: 'permission' });
    const ctx = await this.scope();
    const key = await updateApiKey(ctx, this.args.id, input);
    this.log(renderRecord({ id: key.id, name: key.name, status: key.status, permissions: key.permissions, expiresAt: key.expiresAt }));
    return key;
  }
}
