import { takeConnectionViolations } from '../src/db/database';
import { removeGuardReportFolder, takeChildConnectionViolations } from './helpers/guard';

// The connection guard (src/db/database.ts, on for every test by test/setup-env.ts) throws from a query that runs
// outside the open transaction of its flow; this fails the test in which that happened even when the error was caught,
// whether the query ran in this process or in a process the test started (serve, a CLI command: test/helpers/guard.ts).
function failOnViolations(): void {
  const violations = [...takeConnectionViolations(), ...takeChildConnectionViolations()];
  if (violations.length > 0) {
    throw new Error(
      `${violations.length} quer${violations.length === 1 ? 'y' : 'ies'} ran outside the open transaction of their request or job:\n\n${violations.slice(0, 3).join('\n\n')}`,
    );
  }
}

afterEach(failOnViolations);

// and in a beforeAll or afterAll (a harness that starts or stops jobs); a serve process stopped after this reports its
// own when it is stopped (test/helpers/serve.ts)
afterAll(() => {
  try {
    failOnViolations();
  } finally {
    removeGuardReportFolder();
  }
});

// A CLI test runs the real binary once per command, a node process of its own each time: on a loaded machine (CI runs
// two test files at once on two cores) one test of a few dozen commands takes minutes. Their budget is a backstop
// against a hang, not a speed check (speed is the benchmarks'); a file that sets a longer one keeps it.
if (/[\\/]test[\\/]cli[\\/]/.test(expect.getState().testPath ?? '')) jest.setTimeout(180_000);
