import { pollUntil } from '../../src/util/poll';

// The CLI's one polling loop (payments get --wait, refunds create's and events trigger's sandbox answers).
describe('pollUntil', () => {
  test('reads until done, waiting between reads when there is no work', async () => {
    let reads = 0;
    const result = await pollUntil(
      async () => ++reads,
      (n) => n >= 3,
      { timeoutMs: 5_000, intervalMs: 1 },
    );
    expect(result).toEqual({ value: 3, reached: true });
  });

  test('runs the work between reads and reads again at once when it did something', async () => {
    let state = 0;
    const work = jest.fn(async () => {
      state += 1;
      return 1;
    });
    const result = await pollUntil(
      async () => state,
      (s) => s === 2,
      { timeoutMs: 5_000, intervalMs: 60_000, work },
    );
    expect(result).toEqual({ value: 2, reached: true });
    expect(work).toHaveBeenCalledTimes(2);
  });

  test('gives up at the deadline with the last value read', async () => {
    const started = Date.now();
    const result = await pollUntil(
      async () => 'processing',
      (s) => s !== 'processing',
      { timeoutMs: 50, intervalMs: 10, work: async () => 0 },
    );
    expect(result).toEqual({ value: 'processing', reached: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });
});
