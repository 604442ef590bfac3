import type { QueryInterface } from 'sequelize';
import { str, date, dropColumns } from './columns';

// What the acquirer hears of a dispute and what it decides after the dispute closed here.
// acceptanceSentAt: when the acquirer took (or answered) the merchant's acceptance; an accepted dispute without it is
// sent again by the dispute-deadlines job, as a submission without evidenceSentAt is. acquirerOutcome and
// acquirerDecidedAt: the acquirer's own decision (won or lost) and when it arrived, kept also when it came after the
// dispute was closed otherwise (accepted, past its deadline, or decided differently before).

export async function up(qi: QueryInterface): Promise<void> {
  await qi.addColumn('disputes', 'acceptanceSentAt', date());
  await qi.addColumn('disputes', 'acquirerOutcome', str());
  await qi.addColumn('disputes', 'acquirerDecidedAt', date());
  // disputes accepted before acceptances were sent: not sent now, years later (the job would send every one of them)
  await qi.sequelize.query(
    `UPDATE disputes SET "acceptanceSentAt" = "closedAt" WHERE "closedReason" = 'accepted' AND "acceptanceSentAt" IS NULL`,
  );
}

export async function down(qi: QueryInterface): Promise<void> {
  await dropColumns(qi, 'disputes', ['acceptanceSentAt', 'acquirerOutcome', 'acquirerDecidedAt']);
}
