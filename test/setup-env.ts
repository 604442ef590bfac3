process.env.NODE_ENV = 'test';
// Every /v1 answer in the tests is checked against /v1/openapi.json (status, content type, schema): src/http/contract.ts.
process.env.PAYPLANE_VALIDATE_RESPONSES = '1';
process.env.PAYPLANE_LOG_LEVEL = process.env.PAYPLANE_LOG_LEVEL ?? 'silent';
// Every test runs with the connection guard: a query outside the open transaction of its request or job fails
// (src/db/database.ts), and test/setup-after-env.ts fails the test even when the error was swallowed.
// (PAYPLANE_CONNECTION_GUARD=0 turns it off for a run.) Processes a test spawns (serve, the CLI) run without it.
if (process.env.PAYPLANE_CONNECTION_GUARD !== '0') (globalThis as Record<symbol, unknown>)[Symbol.for('payplane.connectionGuard.on')] = true;
