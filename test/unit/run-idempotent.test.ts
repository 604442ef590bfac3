import fs from 'node:fs';
import path from 'node:path';
import { createTestRuntime, dialectName, type TestRuntime } from '../helpers/db';
import { operatorContext } from '../../src/domain/authority';
import type { CallerContext } from '../../src/domain/context';
import { runIdempotent, type IdempotentCall } from '../../src/services/idempotency';
import { newId } from '../../src/util/ids';

/**
 * The Idempotency-Key rule in one place (src/services/idempotency.ts runIdempotent), which the API pipeline and the
 * CLI both call: what a caller sees of it, whatever the door.
 */

let t: TestRuntime;
beforeAll(async () => {
  t = await createTestRuntime();
});
afterAll(() => t.close());

const tenantA = newId();
const caller = (tenantId = tenantA): CallerContext => operatorContext(t.rt, { level: 'tenant', tenantId, livemode: false, operator: 'ops' });
const call = (key: string | undefined, input: unknown = { amount: 1 }, more: Partial<IdempotentCall<{ n: number }, { n: number }>> = {}) => ({
  key, keyField: '--idempotency-key', operation: 'createThing', target: { id: 'x' }, input, ...more,
});

describe(`runIdempotent (${dialectName})`, () => {
  test('the same key and request replay the kept answer without running again; another request is 409', async () => {
    let runs = 0;
    const fn = async () => ({ n: ++runs });
    expect(await runIdempotent(caller(), call('k-1'), fn)).toEqual({ replayed: false, result: { n: 1 } });
    expect(await runIdempotent(caller(), call('k-1'), fn)).toEqual({ replayed: true, replay: { n: 1 } });
    for (const other of [call('k-1', { amount: 2 }), call('k-1', { amount: 1 }, { operation: 'createOther' }), call('k-1', { amount: 1 }, { target: { id: 'y' } })]) {
      await expect(runIdempotent(caller(), other, fn)).rejects.toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    }
    // a rule of its own replays whatever the request (issuing API keys)
    expect(await runIdempotent(caller(), call('k-1', { amount: 3 }, { anyInput: true }), fn)).toEqual({ replayed: true, replay: { n: 1 } });
    expect(runs).toBe(1);
  });

  test('keys are the caller\'s: another tenant with the same key runs its own; no key runs every time', async () => {
    let runs = 0;
    const fn = async () => ({ n: ++runs });
    await runIdempotent(caller(), call('shared'), fn);
    expect(await runIdempotent(caller(newId()), call('shared'), fn)).toEqual({ replayed: false, result: { n: 2 } });
    await runIdempotent(caller(), call(undefined), fn);
    await runIdempotent(caller(), call(undefined), fn);
    expect(runs).toBe(4);
  });

  test('a failed request frees its key; a key of the wrong length is refused under the caller\'s name for it', async () => {
    await expect(runIdempotent(caller(), call('k-fail'), async () => {
      throw new Error('provider down');
    })).rejects.toThrow('provider down');
    expect(await runIdempotent(caller(), call('k-fail'), async () => ({ n: 7 }))).toEqual({ replayed: false, result: { n: 7 } });
    await expect(runIdempotent(caller(), call('x'.repeat(129)), async () => ({ n: 0 }))).rejects.toMatchObject({
      status: 400, code: 'INVALID_IDEMPOTENCY_KEY', errors: [{ path: '--idempotency-key' }],
    });
  });

  test('the operation runs in the transaction that keeps its answer, or in none when it opens its own', async () => {
    const seen: boolean[] = [];
    const fn = async (ctx: CallerContext) => {
      seen.push(Boolean(ctx.transaction));
      return { n: 1 };
    };
    await runIdempotent(caller(), call('k-tx'), fn);
    await runIdempotent(caller(), call('k-own', { amount: 1 }, { ownTransactions: true }), fn);
    await runIdempotent(caller(), call(undefined), fn);
    await runIdempotent(caller(), call(undefined, { amount: 1 }, { ownTransactions: true }), fn);
    expect(seen).toEqual([true, false, true, false]);
  });

  test('a duplicate that arrives while the first runs waits for it and replays its answer', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inFirst = new Promise<void>((resolve) => (entered = resolve));
    let runs = 0;
    const first = runIdempotent(caller(), call('k-wait', { amount: 1 }, { ownTransactions: true }), async () => {
      entered();
      await gate;
      return { n: ++runs };
    });
    await inFirst;
    const second = runIdempotent(caller(), call('k-wait', { amount: 1 }, { ownTransactions: true }), async () => ({ n: ++runs }));
    await expect(runIdempotent(caller(), call('k-wait', { amount: 2 }), async () => ({ n: ++runs }))).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    release();
    expect(await first).toEqual({ replayed: false, result: { n: 1 } });
    expect(await second).toEqual({ replayed: true, replay: { n: 1 } });
    expect(runs).toBe(1);
  });
});

describe('idempotency records in one place', () => {
  test('no module but src/services/idempotency.ts claims, completes or frees a key, or reads the records', () => {
    const root = path.resolve(__dirname, '../..');
    const files = (dir: string): string[] =>
      fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
    const all = [...files('src'), ...files('commands')].filter((f) => !f.startsWith(path.join('src', 'db')));
    const pattern = /\b(claimIdempotencyKey|completeIdempotencyKey|releaseIdempotencyKey|renewWhileRunning)\b|models\.Idempotency\b|\{\s*Idempotency\s*\}/;
    const users = all.filter((f) => pattern.test(fs.readFileSync(path.join(root, f), 'utf8')));
    expect(users).toEqual([path.join('src', 'services', 'idempotency.ts')]);
  });
});
