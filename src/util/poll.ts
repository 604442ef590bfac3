/**
 * The one polling loop (the terminal's waits, the sandbox triggers'): reads until `done` says the awaited state is reached or the time is up; between
 * two reads it runs `work` (e.g. the in-process sandbox acquirer's due answers) and waits `intervalMs` when that did
 * nothing. Returns the last value read and whether it is the awaited one.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: { timeoutMs: number; intervalMs: number; work?: () => Promise<number> },
): Promise<{ value: T; reached: boolean }> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    let value = await read();
    if (done(value)) return { value, reached: true };
    const worked = options.work ? (await options.work()) > 0 : false;
    if (worked) {
      value = await read();
      if (done(value)) return { value, reached: true };
    }
    if (Date.now() >= deadline) return { value, reached: false };
    if (!worked) await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
  }
}
