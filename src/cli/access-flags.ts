import { Flags } from '@oclif/core';

/**
 * Where a users/roles command acts. The terminal has the database's authority: with --tenant (and --merchant)
 * it acts at that level holding every permission of the layer; with --as-user it acts as that user, with the
 * user's own scope and permissions (the same the user's token would carry), so grants are checked as for it.
 * Without any, it acts at platform level.
 */
export const accessScopeFlags = {
  tenant: Flags.string({ description: 'Act as the tenant (operator level)' }),
  merchant: Flags.string({ description: 'Act as this merchant (merchant level; its tenant is found from it)' }),
  'as-user': Flags.string({ description: 'Act as this active user, with its scope and its roles\' permissions' }),
  live: Flags.boolean({ description: 'Write audit entries in live mode (default: test mode)', default: false }),
};

export interface AccessScopeValues {
  tenant?: string;
  merchant?: string;
  'as-user'?: string;
  live?: boolean;
}

