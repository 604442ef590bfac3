import { Flags } from '@oclif/core';
import { BaseCommand } from '../src/cli/base-command';
import { chalk } from '../src/cli/output';
import { ensureServeSandbox, keepSandboxTokenFresh, sandboxFile } from '../src/services/sandbox/provision';
import { startServer } from '../src/http/server';
import { Dispatcher } from '../src/services/webhooks/dispatcher';
import { transportOptionsFromEnv } from '../src/services/webhooks/transport';
import { startJobs } from '../src/jobs';
import { sandboxBanner } from '../src/cli/sandbox/banner';
import { recordServeAddress } from '../src/cli/sandbox/serve-address';
import { settleHeapAfterStart } from '../src/cli/heap';
import { listenRefusal } from '../src/domain/listen';

export interface ServeResult {
  url: string;
  sandbox: boolean;
  stoppedBy: string;
}

export default class Serve extends BaseCommand<typeof Serve> {
  static override summary = 'Run the /v1 API (applies pending migrations first).';
  static override description =
    "Serves the API, the hosted checkout page and the sandbox 3DS page, and runs the webhook dispatcher (--no-dispatch to leave that to `payplane webhooks dispatch`) and the background jobs: checkout session expiry, balance releases after the holding period, and the sandbox acquirer's asynchronous answers (--no-jobs to leave them to another process). On an empty database (SQLite or Postgres) it provisions a sandbox (tenant, company, merchant, keys, platform token), writes it to .payplane/sandbox.json and prints the keys; later starts print them again. It does not under --no-sandbox or NODE_ENV=production, and then says how to get one (`payplane sandbox init`). The platform token lives at most PAYPLANE_TOKEN_MAX_LIFETIME_HOURS; serve renews it in sandbox.json on start and as it ages. SIGTERM or SIGINT stops accepting connections, lets running requests finish and closes the database. Logs: on a terminal one readable line per request (`12:01:02 POST /v1/checkout-sessions 201 12ms req_…`) and readable errors; pino JSON lines when stdout is not a terminal or goes to PAYPLANE_LOG_FILE; PAYPLANE_LOG_FORMAT=json or pretty decides instead.";
  // a server logs its requests and failures (PAYPLANE_LOG_LEVEL, default info)
  protected override defaultLogLevel = 'info';
  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --port 8080 --host 0.0.0.0',
    'DATABASE_URL=postgres://127.0.0.1/payplane <%= config.bin %> serve',
    'PAYPLANE_LOG_FORMAT=json <%= config.bin %> serve',
  ];
  static override flags = {
    port: Flags.integer({ description: 'TCP port', default: 4242, env: 'PORT', min: 0, max: 65535 }),
    host: Flags.string({ description: 'Address to listen on', default: '127.0.0.1', env: 'HOST' }),
    dispatch: Flags.boolean({ description: 'Run the webhook dispatcher in this process', default: true, allowNo: true }),
    jobs: Flags.boolean({
      description: "Run the background jobs in this process: checkout session expiry, balance releases, the sandbox acquirer's answers",
      default: true,
      allowNo: true,
    }),
    sandbox: Flags.boolean({
      description:
        'On an empty database, provision a sandbox and save it in <home>/sandbox.json (default: on, off under NODE_ENV=production)',
      allowNo: true,
    }),
  };
  static override createsDatabase = true;

  async run(): Promise<ServeResult> {
    const rt = await this.runtime();
    const provision = this.flags.sandbox ?? process.env.NODE_ENV !== 'production';
    const { sandbox, emptyDatabase } = await ensureServeSandbox(rt, { provision });
    // a port taken or refused is one line naming it, exit 8 (src/domain/listen.ts), not a raw EADDRINUSE
    const server = await startServer(rt, this.flags.port, this.flags.host).catch((error: unknown) => {
      throw listenRefusal(error, this.flags.port, this.flags.host);
    });
    // where it listens, for `sandbox env` of this database (API_URL): removed when it stops
    const forgetAddress = recordServeAddress(rt.config, rt.config.listenUrl ?? server.url);
    const dispatcher = this.flags.dispatch
      ? new Dispatcher(rt, { transport: transportOptionsFromEnv(process.env, rt.config.home) })
      : undefined;
    dispatcher?.start();
    const jobs = this.flags.jobs ? startJobs(rt) : undefined;
    // user tokens live at most PAYPLANE_TOKEN_MAX_LIFETIME_HOURS: the sandbox's platform token is renewed as it ages
    const stopRenewing = sandbox ? keepSandboxTokenFresh(rt) : undefined;
    // started: what the start left in the heap is compacted once, and the young generation may grow under load
    settleHeapAfterStart();
    const url = rt.config.publicBaseUrl ?? server.url;
    this.log(`${chalk.bold('payplane')} serving ${chalk.cyan(url)}  (database: ${rt.db.dialect})`);
    if (sandbox) {
      for (const line of sandboxBanner({ url, sandbox, file: sandboxFile(rt), tty: Boolean(process.stdout.isTTY) })) this.log(line);
    }
    if (emptyDatabase && !sandbox) {
      this.log(
        `\nThe database holds no tenant yet. \`${this.config.bin} sandbox init\` provisions a sandbox (saved in ${sandboxFile(rt)}); \`${this.config.bin} tenants create\` a real tenant.`,
      );
    }
    this.log(`\nOpenAPI: ${url}/v1/openapi.json  ·  Ctrl-C to stop`);

    const signal = await this.untilStopped();
    this.log(`\n${signal}: finishing running requests…`);
    stopRenewing?.();
    await Promise.all([server.close(), dispatcher?.stop(), jobs?.stop()]);
    forgetAddress();
    return { url, sandbox: Boolean(sandbox), stoppedBy: signal };
  }
}
