import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';

export interface MigrateResult {
  action: 'up' | 'down' | 'status';
  applied?: string[];
  reverted?: string[];
  executed?: string[];
  pending?: string[];
}

export default class DbMigrate extends BaseCommand<typeof DbMigrate> {
  static override summary = 'Apply pending migrations (up), revert the last one (down), or show the state (status).';
  static override examples = [
    '<%= config.bin %> db migrate',
    '<%= config.bin %> db migrate status --json',
    'DATABASE_URL=postgres://127.0.0.1/payplane <%= config.bin %> db migrate down',
  ];
  static override args = {
    action: Args.string({ description: 'up, down or status', options: ['up', 'down', 'status'], default: 'up' }),
  };

  static override createsDatabase = true;

  async run(): Promise<MigrateResult> {
    const action = this.args.action as MigrateResult['action'];
    // up creates the database (a SQLite file; on Postgres the database must exist: `payplane db create`); status and down do not
    const rt = await this.runtime({ migrate: false, create: action === 'up', requireSchema: action === 'down' });
    if (action === 'status') {
      const status = await rt.db.migrationStatus();
      for (const name of status.executed) this.log(`  applied  ${name}`);
      for (const name of status.pending) this.log(`  pending  ${name}`);
      return { action, ...status };
    }
    if (action === 'down') {
      const reverted = await rt.db.rollback();
      this.log(reverted.length ? `Reverted ${reverted.join(', ')}.` : 'Nothing to revert.');
      return { action, reverted };
    }
    const applied = await rt.db.migrate();
    this.log(applied.length ? `Applied ${applied.join(', ')}.` : 'The database is up to date.');
    return { action, applied };
  }
}
