import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import { validateInput } from '../../src/cli/validate';
import { UpdateUserBody } from '../../src/api/access/schemas';
import type { User } from '../../src/services/access/users';
import { updateUser } from '../../src/services/access/users';
import { accessScopeFlags, recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class UsersUpdate extends BaseCommand<typeof UsersUpdate> {
  static override summary = "Update a user's display name, roles or MFA flag.";
  static override examples = [
    '<%= config.bin %> users update 2d0c… --role 9a7b… --role 1c2d…',
    '<%= config.bin %> users update 2d0c… --no-roles --mfa',
  ];
  static override args = { id: recordArg('user', { description: 'User id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    'as-user': accessScopeFlags['as-user'],
    'display-name': Flags.string({ description: 'Display name' }),
    role: Flags.string({ description: "Role id (repeatable; replaces the user's roles)", multiple: true, exclusive: ['no-roles'] }),
    'no-roles': Flags.boolean({ description: 'Take every role off the user', default: false }),
    mfa: Flags.boolean({ description: 'mfaEnabled', allowNo: true }),
  };

  async run(): Promise<User> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      UpdateUserBody,
      { displayName: this.flags['display-name'], roleIds: this.flags['no-roles'] ? [] : this.flags.role, mfaEnabled: this.flags.mfa },
      { roleIds: 'role', displayName: 'display-name', mfaEnabled: 'mfa' },
      { kind: 'user', id: this.args.id },
    );
    const user = await updateUser(ctx, this.args.id, input);
    await this.nameActors(user);
    this.log(renderRecord(user as unknown as Record<string, unknown>));
    return user;
  }
}
