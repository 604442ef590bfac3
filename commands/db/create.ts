import { BaseCommand } from '../../src/cli/base-command';
import { createDatabase, describeDatabase, parseDatabaseUrl } from '../../src/db/database';

export interface CreateResult {
  /** where the database is (no password) */
  database: string;
  dialect: 'sqlite' | 'postgres';
  /** false when it existed already */
  created: boolean;
  /** the migrations applied now */
  applied: string[];
}

export default class DbCreate extends BaseCommand<typeof DbCreate> {
  static override summary = 'Create the database (a SQLite file or a Postgres database) and apply the migrations.';
  static override description =
    "Creates the database --database-url (or DATABASE_URL, else <home>/payplane.db) names when it does not exist, then applies every pending migration. On Postgres the database is created through the server's `postgres` database with the URL's user, who needs the CREATEDB privilege. Safe to run again: an existing database is only brought up to date. Then `payplane sandbox init` provisions a sandbox (saved in <home>/sandbox.json), or `payplane serve` does on its first start.";
  static override examples = [
    'DATABASE_URL=postgres://postgres@127.0.0.1:5432/payplane <%= config.bin %> db create',
    '<%= config.bin %> db create --database-url sqlite:./data/payplane.db --json',
  ];
  static override createsDatabase = true;

  async run(): Promise<CreateResult> {
    const config = await this.config$();
    const target = parseDatabaseUrl(config.databaseUrl);
    const created = await createDatabase(config.databaseUrl);
    const rt = await this.runtime({ migrate: false });
    const applied = await rt.db.migrate();
    const database = describeDatabase(target);
    this.log(
      `${created ? 'Created' : 'Found'} the ${database}; ${applied.length ? `applied ${applied.length} migration${applied.length === 1 ? '' : 's'}` : 'its schema is up to date'}.`,
    );
    return { database, dialect: target.dialect, created, applied };
  }
}
