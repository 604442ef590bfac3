import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import type { SandboxCredentials } from '../../src/services/sandbox/provision';
import { createSandbox, keysStillWork, sandboxFile, saveSandbox, savedSandbox } from '../../src/services/sandbox/provision';

export default class SandboxInit extends BaseCommand<typeof SandboxInit> {
  static override summary = 'Create a fresh sandbox tenant with keys and a platform token.';
  static override description =
    'Works on whatever DATABASE_URL points to: a tenant (sandbox only), a company, an active merchant, a tenant-owned and a merchant-owned sandbox key, and a platform user with an access token of the maximum lifetime (PAYPLANE_TOKEN_MAX_LIFETIME_HOURS, 24 h by default). The secrets are printed once. When <home>/sandbox.json holds no working sandbox of this database, the new one is saved there (mode 0600), where `serve`, `sandbox env`, `events trigger` and `webhooks listen` find it; --no-save leaves the file alone. Creates and migrates the database when it does not exist yet (`payplane db create` first on Postgres).';
  static override examples = [
    '<%= config.bin %> sandbox init --json',
    'DATABASE_URL=postgres://127.0.0.1/payplane <%= config.bin %> sandbox init --name "CI"',
  ];
  static override flags = {
    name: Flags.string({ description: 'Tenant name', default: 'Sandbox tenant' }),
    save: Flags.boolean({
      description: 'Save it in <home>/sandbox.json when that holds no working sandbox of this database',
      default: true,
      allowNo: true,
    }),
  };
  static override createsDatabase = true;

  async run(): Promise<SandboxCredentials & { savedTo: string | null }> {
    const rt = await this.runtime();
    const saved = savedSandbox(rt.config);
    const keep = saved !== null && (await keysStillWork(rt, saved));
    const sandbox = await createSandbox(rt, { name: this.flags.name });
    const savedTo = this.flags.save && !keep ? (saveSandbox(rt, sandbox), sandboxFile(rt)) : null;
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
    this.log(savedTo ? `\nSaved in ${savedTo}.` : keep && this.flags.save ? `\n${sandboxFile(rt)} keeps the sandbox saved before.` : '');
    return { ...sandbox, savedTo };
  }
}
