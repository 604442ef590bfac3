import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * The heap of `serve`, a process that stays up. Most of what a process allocates while it starts survives (module code,
 * the operation registry and its schemas, the models), so V8 keeps doubling its young generation while it starts (from
 * 1 MB to 16 MB a semi-space, 32 MB resident) and only gives it back when its memory reducer runs, 10 to 20 s after
 * the start; the old generation is left with the pages that the start's garbage fragmented. Serve therefore starts
 * with the young generation held at its initial size (bin/run.js calls holdYoungGeneration before anything else
 * is loaded), and once it listens (settleHeapAfterStart) compacts the old generation once and lets the young
 * generation grow again as V8 would: under load it grows as before, so requests cost what they cost (a young
 * generation held small for good would promote what a request keeps across its awaits).
 *
 * Hands off when node runs with heap flags of the operator's own (NODE_OPTIONS or node's arguments).
 */
const HELD = Symbol.for('payplane.youngGenerationHeld');
/** V8's own default of --semi-space-growth-factor */
const V8_SEMI_SPACE_GROWTH_FACTOR = 2;
const OPERATOR_HEAP_FLAGS = /--(?:max-|min-)?semi[-_]space|--semi[-_]space[-_]growth|--compact|--max[-_]heap[-_]size/;

function tunedByOperator(): boolean {
  return OPERATOR_HEAP_FLAGS.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);
}

type Held = Record<symbol, boolean | undefined>;

/** Keeps the young generation at its initial size (the flag is read each time V8 would grow it). */
export function holdYoungGeneration(): void {
  if (tunedByOperator()) return;
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  (globalThis as Held)[HELD] = true;
}

/**
 * After the start: one full collection that compacts the old generation (what the memory reducer would do later),
 * then the young generation may grow again. Nothing when holdYoungGeneration did not hold it. Takes 50 to 150 ms
 * once, before the first request is likely.
 */
export function settleHeapAfterStart(): void {
  const held = globalThis as Held;
  if (!held[HELD]) return;
  held[HELD] = undefined;
  try {
    const exposed = (globalThis as { gc?: unknown }).gc;
    let gc: () => void;
    if (typeof exposed === 'function') {
      gc = exposed as () => void;
    } else {
      // a context made while --expose-gc is on has gc(); contexts made later do not
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc') as () => void;
      v8.setFlagsFromString('--no-expose-gc');
    }
    v8.setFlagsFromString('--compact-on-every-full-gc');
    try {
      gc();
    } finally {
      v8.setFlagsFromString('--no-compact-on-every-full-gc');
    }
  } finally {
    v8.setFlagsFromString(`--semi-space-growth-factor=${V8_SEMI_SPACE_GROWTH_FACTOR}`);
  }
}
