import { BaseCommand } from '../src/cli/base-command';
import { tableFlags } from '../src/cli/flags';
import { chalk, colourEnabled, logBesideTable, renderTable } from '../src/cli/output';
import type { CheckStatus, DoctorReport } from '../src/services/doctor';
import { runDoctor } from '../src/services/doctor';

const MARK: Record<CheckStatus, string> = { pass: 'ok', warn: 'warn', fail: 'FAIL' };

function mark(status: CheckStatus): string {
  if (!colourEnabled()) return MARK[status];
  return status === 'pass' ? chalk.green(MARK[status]) : status === 'warn' ? chalk.yellow(MARK[status]) : chalk.red(MARK[status]);
}

export default class Doctor extends BaseCommand<typeof Doctor> {
  static override summary =
    'Check this machine and configuration: Node, configuration file, database, migrations, clock, keys, file permissions, webhook CA.';
  static override description =
    'Each check passes, warns or fails, with a hint to fix it. Exits 1 when a check fails (warnings do not). Changes nothing: no migration is applied and no key file is generated.';
  static override reportsConfigErrors = true;
  static override examples = [
    '<%= config.bin %> doctor',
    '<%= config.bin %> doctor --json',
    'DATABASE_URL=postgres://127.0.0.1/payplane PAYPLANE_MASTER_KEY=… <%= config.bin %> doctor',
  ];

  static override flags = { ...tableFlags };

  async run(): Promise<DoctorReport> {
    const report = await runDoctor(await this.config$());
    this.log(
      renderTable(
        report.checks,
        [
          { header: 'Check', get: (c) => c.name },
          { header: 'Result', get: (c) => mark(c.status) },
          { header: 'Detail', get: (c) => (c.hint ? `${c.detail}\n→ ${c.hint}` : c.detail) },
        ],
        this.flags,
      ),
    );
    const failed = report.checks.filter((c) => c.status === 'fail').length;
    const warned = report.checks.filter((c) => c.status === 'warn').length;
    logBesideTable(
      this,
      this.flags,
      failed
        ? `${failed} check${failed === 1 ? '' : 's'} failed.`
        : warned
          ? `All checks passed, ${warned} with a warning.`
          : 'All checks passed.',
    );
    // the report is the result (printed under --json too); a failed check is the exit code
    if (failed) process.exitCode = 1;
    return report;
  }
}
