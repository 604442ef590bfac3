import fs from 'node:fs';
import path from 'node:path';

/**
 * A check that can pass without checking is a defect: no test skips itself for a reason of its own. What a test needs
 * from outside the project goes through test/helpers/prerequisite.ts (skipped with a warning on a developer's machine,
 * a failure under CI); the only other skips are the ones the database of the run decides, since CI runs the suite on
 * both databases and the other pass runs them.
 */
const ROOT = path.resolve(__dirname, '..');

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'artifacts' ? [] : testFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

test('every skip is a missing prerequisite (test/helpers/prerequisite.ts) or the other database', () => {
  const offenders: string[] = [];
  for (const file of testFiles(ROOT)) {
    const rel = path.relative(ROOT, file);
    if (rel === path.join('helpers', 'prerequisite.ts') || rel === path.join('unit', 'skips.test.ts')) continue;
    fs.readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (!/\b(describe|test|it)\.(skip|only)\b|\bx(describe|test|it)\(/.test(line)) return;
        // decided by the database of the run: `onPostgres ? describe : describe.skip` and the like
        if (/\bonPostgres\b/.test(line) && /\.skip\b/.test(line)) return;
        offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
  }
  expect(offenders).toEqual([]);
});
