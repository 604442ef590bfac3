import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { CONNECTION_GUARD_REPORT } from '../../src/db/database';

/**
 * The connection guard (src/db/database.ts) in the processes a test starts: test/setup-env.ts points
 * PAYPLANE_CONNECTION_GUARD_REPORT at a folder of the test file's own, which every child inherits (`serve`, the CLI
 * commands, `webhooks dispatch`, through bash or script(1) too); a child writes each query it refused there as one
 * file. test/setup-after-env.ts fails the test with them after each test (and after all), and `stop()` of a serve
 * process (test/helpers/serve.ts) fails with those of that process once it has exited.
 */
export function guardReportFolder(): string | undefined {
  return process.env[CONNECTION_GUARD_REPORT] || undefined;
}

/** The refusals the processes started by this test file reported since the last call (only those of `pid` when given), and forgets them. */
export function takeChildConnectionViolations(pid?: number): string[] {
  const folder = guardReportFolder();
  if (!folder) return [];
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return []; // nothing reported yet
  }
  const taken: string[] = [];
  for (const name of names.filter((n) => n.endsWith('.txt') && (pid === undefined || n.startsWith(`${pid}-`))).sort()) {
    const file = path.join(folder, name);
    try {
      taken.push(toSource(fs.readFileSync(file, 'utf8')).trimEnd());
      fs.rmSync(file, { force: true });
    } catch {
      // taken by another reader in between
    }
  }
  return taken;
}

/** Removes the report folder when nothing is left in it (a child that reports later makes it again). */
export function removeGuardReportFolder(): void {
  const folder = guardReportFolder();
  if (!folder) return;
  try {
    fs.rmdirSync(folder);
  } catch {
    // not empty (a report written since), or never made
  }
}

const maps = new Map<string, SourceMap | null>();

function sourceMapOf(file: string): SourceMap | null {
  if (!maps.has(file)) {
    let map: SourceMap | null = null;
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
    } catch {
      // no map beside it (a dependency's file)
    }
    maps.set(file, map);
  }
  return maps.get(file)!;
}

/** The stack of a child's report with each frame of the built dist/ file put at its TypeScript source's file:line. */
function toSource(report: string): string {
  return report.replace(/(\/[^\s()]+?\.js):(\d+):(\d+)/g, (whole, file: string, line: string, column: string) => {
    const entry = sourceMapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1) as
      { originalSource?: string; originalLine?: number; originalColumn?: number } | undefined;
    if (!entry?.originalSource) return whole;
    const source = entry.originalSource.startsWith('file://')
      ? new URL(entry.originalSource).pathname
      : path.resolve(path.dirname(file), entry.originalSource);
    return `${source}:${entry.originalLine! + 1}:${entry.originalColumn! + 1}`;
  });
}
