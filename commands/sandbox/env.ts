import { BaseCommand } from '../../src/cli/base-command';
import { NotFoundError } from '../../src/domain/errors';
import { sandboxFile, savedSandbox } from '../../src/services/sandbox/provision';
import { runningServeUrl } from '../../src/cli/sandbox/serve-address';

export type SandboxEnv = Record<string, string>;

/** Where serve listens by HOST and PORT (its defaults), as a client reaches it: a wildcard address is this machine. */
function localUrl(host = '127.0.0.1', port = '4242'): string {
  const name = host === '' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port || '4242'}`;
}

export default class SandboxEnvCommand extends BaseCommand<typeof SandboxEnvCommand> {
  static override summary = 'Print the sandbox\'s ids and keys as shell variables: eval "$(payplane sandbox env)".';
  static override description =
    'Reads the sandbox of this database (DATABASE_URL, else <home>/payplane.db) from .payplane/sandbox.json (written by serve when it provisions the sandbox, and by sandbox init; it keeps one sandbox per database) and prints export lines for API_URL (PAYPLANE_PUBLIC_URL; else where a running serve of this database listens, --port and --host included, as it records under <home>/serve/ while it runs; else http://HOST:PORT as serve would read them from the environment), TENANT_ID, MERCHANT_ID, TENANT_KEY, MERCHANT_KEY and PLATFORM_TOKEN. Secrets are printed in full: it is meant for eval in your own shell.';
  static override examples = ['eval "$(<%= config.bin %> sandbox env)"', '<%= config.bin %> sandbox env --json'];

  async run(): Promise<SandboxEnv> {
    const config = await this.config$();
    const sandbox = savedSandbox(config);
    if (!sandbox) {
      throw new NotFoundError('sandbox', undefined, {
        code: 'SANDBOX_NOT_FOUND',
        detail: `No sandbox of this database in ${sandboxFile({ config })}.`,
        hint: 'Start the sandbox first: `npm start` (payplane serve on an empty database) or `payplane sandbox init` writes it.',
      });
    }
    const variables: SandboxEnv = {
      API_URL: config.publicBaseUrl ?? (await runningServeUrl(config)) ?? localUrl(process.env.HOST, process.env.PORT),
      TENANT_ID: sandbox.tenantId,
      MERCHANT_ID: sandbox.merchantId,
      TENANT_KEY: sandbox.tenantKey.secretKey,
      MERCHANT_KEY: sandbox.merchantKey.secretKey,
      PLATFORM_TOKEN: sandbox.platformToken,
    };
    for (const [name, value] of Object.entries(variables)) this.log(`export ${name}='${value.replace(/'/g, `'\\''`)}'`);
    return variables;
  }
}
