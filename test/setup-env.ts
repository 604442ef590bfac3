import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

process.env.NODE_ENV = 'test';
// Every /v1 answer in the tests is checked against /v1/openapi.json (status, content type, schema): src/http/contract.ts.
process.env.PAYPLANE_VALIDATE_RESPONSES = '1';
process.env.PAYPLANE_LOG_LEVEL = process.env.PAYPLANE_LOG_LEVEL ?? 'silent';
// Every test runs with the connection guard: a query outside the open transaction of its request or job fails
// (src/db/database.ts), and test/setup-after-env.ts fails the test even when the error was swallowed.
// (PAYPLANE_CONNECTION_GUARD=0 turns it off for a run.) So does every process a test starts (serve, the CLI commands,
// webhooks dispatch): they inherit PAYPLANE_CONNECTION_GUARD_REPORT, a folder of this test file's own where they
// write what they refused, and test/setup-after-env.ts reads it (test/helpers/guard.ts).
if (process.env.PAYPLANE_CONNECTION_GUARD !== '0') {
  (globalThis as Record<symbol, unknown>)[Symbol.for('payplane.connectionGuard.on')] = true;
  process.env.PAYPLANE_CONNECTION_GUARD_REPORT = path.join(
    os.tmpdir(),
    `payplane-guard-${process.pid}-${crypto.randomBytes(4).toString('hex')}`,
  );
} else {
  delete process.env.PAYPLANE_CONNECTION_GUARD_REPORT;
}
