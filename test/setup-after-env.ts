import { takeConnectionViolations } from '../src/db/database';

// The connection guard (src/db/database.ts, on for every test by test/setup-env.ts) throws from a query that runs
// outside the open transaction of its flow; this fails the test in which that happened even when the error was caught.
afterEach(() => {
  const violations = takeConnectionViolations();
  if (violations.length > 0) {
    throw new Error(`${violations.length} quer${violations.length === 1 ? 'y' : 'ies'} ran outside the open transaction of their request or job:\n\n${violations.slice(0, 3).join('\n\n')}`);
  }
});

// and in a beforeAll or afterAll (a harness that starts or stops jobs)
afterAll(() => {
  const violations = takeConnectionViolations();
  if (violations.length > 0) throw new Error(`${violations.length} queries ran outside the open transaction of their request or job:\n\n${violations.slice(0, 3).join('\n\n')}`);
});
