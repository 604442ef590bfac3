import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import type { SandboxCredentials } from '../../src/services/sandbox';
import { createSandbox } from '../../src/services/sandbox';

export default class SandboxInit extends BaseCommand<typeof SandboxInit> {
  static override summary = 'Create a fresh sandbox tenant with keys and a platform token.';
  static override description =
    'Works on whatever DATABASE_URL points to: a tenant (sandbox only), a company, an active merchant, a tenant-owned and a merchant-owned sandbox key, and a platform user with an access token of the maximum lifetime (PAYPLANE_TOKEN_MAX_LIFETIME_HOURS, 24 h by default). The secrets are printed once.';
  static override examples = ['<%= config.bin %> sandbox init --json', 'DATABASE_URL=postgres://127.0.0.1/payplane <%= config.bin %> sandbox init --name "CI"'];
  static override flags = { name: Flags.string({ description: 'Tenant name', default: 'Sandbox tenant' }) };

  async run(): Promise<SandboxCredentials> {
    const rt = await this.runtime();
    const sandbox = await createSandbox(rt, { name: this.flags.name });
    this.log(
      renderRecord({
        tenantId: sandbox.tenantId,
        companyId: sandbox.companyId,
        merchantId: sandbox.merchantId,
        tenantKey: sandbox.tenantKey.secretKey,
        merchantKey: sandbox.merchantKey.secretKey,
        platformToken: sandbox.platformToken,
      }),
    );
    return sandbox;
  }
}
