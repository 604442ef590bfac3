import { DataTypes, type QueryInterface } from 'sequelize';
import type { Dialect } from '../dialect';
import { id, str, text, date } from './columns';

// Scale-out: the claimed runs of the schedulers (one process runs each job once per tick) and the counters of the
// per-tenant request rate limit (rate-limiter-flexible's Postgres store; SQLite counts in memory).

export async function up(qi: QueryInterface, dialect: Dialect): Promise<void> {
  await qi.createTable('job_runs', {
    id,
    job: str(false),
    // the tick: its start in ms since the epoch (interval jobs: a multiple of the interval; cron jobs: the second)
    slot: { type: DataTypes.BIGINT, allowNull: false },
    workerId: str(false),
    startedAt: date(false),
    finishedAt: date(),
    // running, succeeded, failed
    outcome: str(false),
    error: text(),
  });
  await qi.addIndex('job_runs', ['job', 'slot'], { unique: true, name: 'job_runs_job_slot' });
  if (dialect !== 'postgres') return;
  // the layout rate-limiter-flexible's RateLimiterPostgres expects (created here, so no process races to create it)
  await qi.createTable('rate_limits', {
    key: { type: DataTypes.STRING(255), primaryKey: true, allowNull: false },
    points: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    expire: { type: DataTypes.BIGINT },
  });
}

export async function down(qi: QueryInterface, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') await qi.dropTable('rate_limits');
  await qi.dropTable('job_runs');
}
