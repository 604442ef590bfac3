import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli';
import { createTestDatabase, dialectName, type TestDatabase } from '../helpers/db';
import { guardReportFolder, takeChildConnectionViolations } from '../helpers/guard';
import { startServe } from '../helpers/serve';

// The connection guard (src/db/database.ts) in the processes a test starts: they inherit PAYPLANE_CONNECTION_GUARD_REPORT
// (test/setup-env.ts), refuse a query sent outside the open transaction of their flow as the jest process does, and
// write it, with its stack, where the test reads it (test/helpers/guard.ts): runCli and a serve's stop() fail with
// those of their process, test/setup-after-env.ts with any after each test. Production processes run without it.

let db: TestDatabase;
let script: string;

beforeAll(async () => {
  db = await createTestDatabase();
  // a process on the built code whose one transaction sends a query outside it, as a command or a job would
  script = path.join(db.home, 'second-connection.js');
  fs.writeFileSync(
    script,
    `
const { Database, connectionGuardOn } = require(${JSON.stringify(path.join(ROOT, 'dist', 'src', 'db', 'database.js'))});
async function insideTheTransaction(db) {
  const [rows] = await db.sequelize.query('SELECT 1 AS one');
  return rows.length;
}
(async () => {
  const db = await Database.connect(process.argv[2]);
  const answer = await db.transaction(() => insideTheTransaction(db)).catch((error) => error.message);
  await db.close();
  process.stdout.write(JSON.stringify({ on: connectionGuardOn(), answer }));
})();
`,
  );
});
afterAll(() => db?.drop());

function runScript(env: Record<string, string | undefined>): Promise<{ pid: number; out: { on: boolean; answer: unknown } }> {
  const fullEnv = { ...process.env, ...env } as NodeJS.ProcessEnv;
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete fullEnv[name];
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [script, db.url], { env: fullEnv, cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve({ pid: child.pid!, out: JSON.parse(stdout) });
    });
  });
}

describe(`the connection guard in the processes a test starts (${dialectName})`, () => {
  test('a child refuses the query and reports it with its stack, at the TypeScript lines', async () => {
    expect(guardReportFolder()).toBeDefined();
    const { pid, out } = await runScript({ NODE_ENV: undefined });
    expect(out.on).toBe(true);
    expect(out.answer).toMatch(/^connection guard: the query "SELECT 1 AS one" ran outside the flow's transaction/);
    const reports = takeChildConnectionViolations(pid);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain(`(pid ${pid})`);
    expect(reports[0]).toContain('connection guard: the query "SELECT 1 AS one"');
    // the guard's frames at src/db/database.ts (the built file's source map), the caller's own frame as it ran
    expect(reports[0]).toMatch(
      new RegExp(
        `at connectionViolation \\(${path.join(ROOT, 'src', 'db', 'database.ts').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+\\)`,
      ),
    );
    expect(reports[0]).not.toContain(path.join(ROOT, 'dist'));
    expect(reports[0]).toMatch(/at insideTheTransaction \(.*second-connection\.js:4:\d+\)/);
    // taken once
    expect(takeChildConnectionViolations(pid)).toEqual([]);
  });

  test('what a serve process reported and no test took fails its stop(), once it has exited', async () => {
    const server = await startServe(db);
    const pid = server.child.pid!;
    // a report as the guard writes one (src/db/database.ts: reportToFolder), for this process
    fs.mkdirSync(guardReportFolder()!, { recursive: true });
    fs.writeFileSync(
      path.join(guardReportFolder()!, `${pid}-000001.txt`),
      `payplane serve (pid ${pid})\nError: connection guard: the query "SELECT 1" ran outside the flow's transaction\n    at job (/nowhere/job.js:1:1)\n`,
    );
    await expect(server.stop()).rejects.toThrow(
      new RegExp(
        `serve \\(pid ${pid}\\) ran 1 query outside the open transaction of their request or job:\\s+payplane serve \\(pid ${pid}\\)\\nError: connection guard: the query "SELECT 1"`,
      ),
    );
    expect(server.child.exitCode).toBe(0);
    expect(takeChildConnectionViolations()).toEqual([]);
  });

  test('off in production, and in a process started without the variable: the query runs, nothing is reported', async () => {
    for (const env of [{ NODE_ENV: 'production' }, { NODE_ENV: undefined, PAYPLANE_CONNECTION_GUARD_REPORT: undefined }]) {
      const { pid, out } = await runScript(env);
      // off: no query is wrapped (src/db/database.ts), the hot path runs as without the guard
      expect(out).toEqual({ on: false, answer: 1 });
      expect(takeChildConnectionViolations(pid)).toEqual([]);
    }
    expect(takeChildConnectionViolations()).toEqual([]);
  });
});
