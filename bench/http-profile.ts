import fs from 'node:fs';
import path from 'node:path';

/**
 * The top functions by self time of a V8 .cpuprofile (what `node --cpu-prof` writes): for bench/http-bench.ts
 * --cpu-prof. Self time of a node = the sum of the time deltas of the samples taken in it; nodes of one function
 * (same name, file and line) are added up.
 *
 *   node dist/bench/bench/http-profile.js <file.cpuprofile> [top]
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface FunctionTime {
  /** function name, or (anonymous), (program), (garbage collector), (idle) */
  name: string;
  /** file:line (relative to the working directory when below it); empty for V8's own entries */
  location: string;
  selfMs: number;
  /** of the whole profile's sampled time */
  percent: number;
}

export interface ProfileSummary {
  /** sampled time, idle included */
  totalMs: number;
  /** time the process waited for work: (idle) */
  idleMs: number;
  /** the top functions by self time, (idle) left out; percent of the busy (non-idle) time */
  functions: FunctionTime[];
}

export function summarizeProfile(file: string, top = 15): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // the delta of sample i is the time since sample i-1: it belongs to the sample it ends, as Chrome DevTools counts
  for (let i = 0; i < samples.length; i++) selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + Math.max(0, deltas[i] ?? 0));
  const totals = new Map<string, FunctionTime>();
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    totalUs += us;
    const frame = node.callFrame;
    const name = frame.functionName || (frame.url ? '(anonymous)' : '(unknown)');
    const url = frame.url.replace(/^file:\/\//, '');
    const shown = url.startsWith(process.cwd() + path.sep) ? path.relative(process.cwd(), url) : url;
    const location = shown ? `${shown}:${frame.lineNumber + 1}` : '';
    const key = `${name} ${location}`;
    const entry = totals.get(key) ?? { name, location, selfMs: 0, percent: 0 };
    entry.selfMs += us / 1000;
    totals.set(key, entry);
  }
  const idleMs = [...totals.values()].filter((f) => f.name === '(idle)').reduce((sum, f) => sum + f.selfMs, 0);
  const busyMs = totalUs / 1000 - idleMs;
  const functions = [...totals.values()]
    .filter((f) => f.name !== '(idle)')
    .sort((a, b) => b.selfMs - a.selfMs)
    .slice(0, top)
    .map((f) => ({ ...f, selfMs: Number(f.selfMs.toFixed(1)), percent: busyMs > 0 ? Number(((f.selfMs * 100) / busyMs).toFixed(1)) : 0 }));
  return { totalMs: Number((totalUs / 1000).toFixed(1)), idleMs: Number(idleMs.toFixed(1)), functions };
}

export function formatProfile(summary: ProfileSummary): string {
  const lines = summary.functions.map(
    (f, i) =>
      `  ${String(i + 1).padStart(2)}. ${f.selfMs.toFixed(1).padStart(9)} ms ${f.percent.toFixed(1).padStart(5)}%  ${f.name}${f.location ? `  ${f.location}` : ''}`,
  );
  const busy = summary.totalMs - summary.idleMs;
  return [
    `  sampled ${summary.totalMs.toFixed(0)} ms, of which busy ${busy.toFixed(0)} ms (idle ${summary.idleMs.toFixed(0)} ms); top ${summary.functions.length} functions by self time, % of the busy time:`,
    ...lines,
  ].join('\n');
}

if (require.main === module) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node dist/bench/bench/http-profile.js <file.cpuprofile> [top]');
    process.exit(2);
  }
  console.log(formatProfile(summarizeProfile(file, top ? Number(top) : 15)));
}
