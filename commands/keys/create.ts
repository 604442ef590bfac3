import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import { chalk, renderRecord } from '../../src/cli/output';
import type { IssuedApiKey } from '../../src/services/api-keys/keys';
import { validateInput } from '../../src/cli/validate';
import { CreateApiKeyBody } from '../../src/api/api-keys/schemas';
import { createApiKey } from '../../src/services/api-keys/keys';
import { asTenantOrItsMerchant, withScope } from '../../src/cli/context';

export default class KeysCreate extends BaseCommand<typeof KeysCreate> {
  static override summary = 'Issue an API key pair; the secret is shown once.';
  static override description =
    'A merchant-owned key (--merchant) draws its permissions from the merchant layer, a tenant-owned key from the operator layer. Without --permission the key gets every permission of its layer.';
  static override examples = [
    '<%= config.bin %> keys create --tenant 6f1c… --name "Backend"',
    '<%= config.bin %> keys create --tenant 6f1c… --merchant 0b9e… --permission payments:payments:view --json',
    '<%= config.bin %> keys create --tenant 6f1c… --live --ip-allow 203.0.113.0/24 --expires-at 2027-01-01T00:00:00Z',
  ];
  static override flags = {
    tenant: withScope(sharedFlags.tenant, asTenantOrItsMerchant),
    merchant: Flags.string({ description: 'Owner merchant id: issues a merchant-owned key' }),
    name: Flags.string({ description: 'Name of the key' }),
    permission: Flags.string({ description: 'Permission code (repeatable)', multiple: true }),
    'ip-allow': Flags.string({ description: 'Allowed client IP or CIDR (repeatable)', multiple: true }),
    'expires-at': Flags.string({ description: 'Expiry as an ISO 8601 date-time' }),
    live: sharedFlags.live,
  };

  async run(): Promise<IssuedApiKey> {
    // A merchant key is issued as its merchant, so it can carry every merchant-layer code (a tenant-level issuer
    // cannot grant codes only merchants hold); a tenant key as the tenant.
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      CreateApiKeyBody,
      {
        name: this.flags.name,
        ownerType: this.flags.merchant ? 'merchant' : 'tenant',
        livemode: this.flags.live,
        permissions: this.flags.permission,
        ipAllowlist: this.flags['ip-allow'],
        expiresAt: this.flags['expires-at'],
      },
      { permissions: 'permission', ipAllowlist: 'ip-allow', livemode: 'live' },
    );
    const key = await createApiKey(ctx, input);
    this.log(
      renderRecord({
        id: key.id,
        name: key.name,
        owner: key.owner.type,
        mode: key.environment,
        publicKey: key.publicKey,
        permissions: key.permissions.length,
      }),
    );
    this.log(`\n${chalk.bold('Secret key')} (shown once, store it now):\n${key.secretKey}`);
    return key;
  }
}
