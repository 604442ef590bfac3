import { BaseCommand } from '../../src/cli/base-command';
import { tableFlags } from '../../src/cli/flags';
import { logBesideTable, renderTable } from '../../src/cli/output';
import { appliedConfig, effectiveSettings, type EffectiveSetting } from '../../src/settings';

export interface ConfigShowResult {
  /** the configuration file that applies, if any */
  file: string | null;
  precedence: string[];
  settings: EffectiveSetting[];
}

export default class ConfigShow extends BaseCommand<typeof ConfigShow> {
  static override summary = 'Show the effective configuration: each setting, its value (secrets masked) and where it comes from.';
  static override description =
    'Settings come from, highest first: a command\'s flag, the environment variable, the configuration file (./payplane.config.json, or the file PAYPLANE_CONFIG names), the default. The file holds the settings by key (e.g. {"databaseUrl": "postgres://…", "holdingPeriodHours": 48}); an unknown key or a wrong type stops every command with an error naming it. Secrets (master key, token secret, metrics token, a database password) are never printed.';
  static override examples = [
    '<%= config.bin %> config show',
    '<%= config.bin %> config show --json',
    'PAYPLANE_CONFIG=/etc/payplane/production.json <%= config.bin %> config show',
  ];

  static override flags = { ...tableFlags };

  async run(): Promise<ConfigShowResult> {
    const flags =
      this.flags['database-url'] !== undefined && this.flags['database-url'] !== process.env.DATABASE_URL
        ? { DATABASE_URL: this.flags['database-url'] }
        : {};
    const settings = effectiveSettings(process.env, flags);
    const file = appliedConfig().file ?? null;
    logBesideTable(
      this,
      this.flags,
      file ? `Configuration file: ${file}` : 'Configuration file: none (./payplane.config.json or PAYPLANE_CONFIG)',
    );
    this.log(
      renderTable(
        settings,
        [
          { header: 'Key', get: (s) => s.key },
          { header: 'Environment', get: (s) => s.env },
          { header: 'Value', get: (s) => s.value ?? '' },
          { header: 'Source', get: (s) => s.source },
        ],
        this.flags,
      ),
    );
    return { file, precedence: ['flag', 'environment', 'file', 'default'], settings };
  }
}
