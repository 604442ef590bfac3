import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs, findRoot, runBench } from './common';

/**
 * `npm run bench:cli` (also the last step of `npm run bench`): how long an admin command takes from the shell, beside
 * a bare `node -e ''` on the same machine (issue 24, item 11: at most 4 times as long). Each case runs `--runs` times
 * (after one unmeasured run); the median wall time is reported. The commands run the built binary (bin/run.js, from
 * dist/) against a SQLite sandbox made for the run in a temporary folder, with the compile cache as the machine has
 * it (the unmeasured first run fills it); one case starts each run with an empty cache, as the first run after an
 * install or a build does.
 */
const ROOT = findRoot(__dirname);
const BIN = path.join(ROOT, 'bin', 'run.js');
const RESULTS = path.join(ROOT, 'bench', 'results');
const TARGET = 4;

function usage(problem?: string): never {
  if (problem) console.error(`bench:cli: ${problem}`);
  console.error('usage: npm run bench:cli -- [--runs <n>]');
  process.exit(problem ? 2 : 0);
}

const args = benchArgs(process.argv.slice(2), { flags: ['quick'], ints: { runs: 3 } }, usage);
const runs = args.ints.runs ?? (args.flags.has('quick') ? 7 : 15);

interface CliCase {
  label: string;
  command: string[];
  /** each run with an empty compile cache (src/cli/compile-cache.ts): the first run after an install or a build */
  cold?: boolean;
  medianMs: number;
  ratio: number | null;
  target: boolean;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timeOf(argv: string[], env: NodeJS.ProcessEnv, cold = false): number {
  const samples: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const runEnv = cold ? { ...env, NODE_COMPILE_CACHE: fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-cli-bench-cold-')) } : env;
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, argv, { env: runEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    if (cold) fs.rmSync(runEnv.NODE_COMPILE_CACHE!, { recursive: true, force: true });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (result.status !== 0) throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
    if (i > 0) samples.push(ms); // the first run warms the file cache
  }
  return median(samples);
}

async function main(): Promise<number> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'commands'))) throw new Error('dist/ is missing: run `npm run build` first');
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-cli-bench-'));
  try {
    const env = { ...process.env, PAYPLANE_HOME: home, NO_COLOR: '1' } as NodeJS.ProcessEnv;
    delete env.DATABASE_URL;
    delete env.NODE_ENV;
    execFileSync(process.execPath, [BIN, 'sandbox', 'init', '--json'], { env, stdio: 'ignore' });
    const cases: Array<Omit<CliCase, 'medianMs' | 'ratio'>> = [
      { label: "node -e ''", command: ['-e', ''], target: false },
      { label: 'payplane --version', command: [BIN, '--version'], target: true },
      { label: 'payplane --help', command: [BIN, '--help'], target: true },
      { label: 'payplane tenants list --json', command: [BIN, 'tenants', 'list', '--json'], target: true },
      {
        label: 'payplane keys list --tenant … --json',
        command: [BIN, 'keys', 'list', '--tenant', JSON.parse(fs.readFileSync(path.join(home, 'sandbox.json'), 'utf8')).tenantId, '--json'],
        target: true,
      },
      {
        label: 'payplane tenants list --json, first run (empty compile cache)',
        command: [BIN, 'tenants', 'list', '--json'],
        target: false,
        cold: true,
      },
    ];
    const measured: CliCase[] = [];
    for (const c of cases) measured.push({ ...c, medianMs: timeOf(c.command, env, c.cold), ratio: null });
    const node = measured[0].medianMs;
    for (const c of measured) c.ratio = c.medianMs / node;
    console.log(
      `\ncli: ${os.cpus()[0]?.model ?? 'cpu'}, ${os.cpus().length} cores, node ${process.version}; median of ${runs} runs; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
    console.log('| command | median ms | times `node -e` |');
    console.log('|---|---:|---:|');
    for (const c of measured) console.log(`| \`${c.label}\` | ${c.medianMs.toFixed(0)} | ${c.ratio!.toFixed(2)}x |`);
    console.log(`\ntarget (issue 24, item 11): every payplane command at most ${TARGET}x node -e`);
    let missed = 0;
    for (const c of measured.filter((m) => m.target)) {
      const met = c.ratio! <= TARGET;
      if (!met) missed++;
      console.log(
        `  ${met ? 'met   ' : 'MISSED'} ${c.label}: ${c.ratio!.toFixed(2)}x (${c.medianMs.toFixed(0)} ms against ${node.toFixed(0)} ms)`,
      );
    }
    fs.mkdirSync(RESULTS, { recursive: true });
    fs.writeFileSync(
      path.join(RESULTS, 'cli.json'),
      JSON.stringify({ runs, nodeMs: node, cases: measured, target: TARGET, missed }, null, 2),
    );
    return 0;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

runBench(main, 'stopping', async () => undefined);
