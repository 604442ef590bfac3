import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createTestRuntime, dialectName, testConfig, type TestRuntime } from '../helpers/db';
import { closeRuntime, openRuntime } from '../../src/runtime';
import { operatorContext } from '../../src/services/access/operators';
import { inTransaction, type CallerContext } from '../../src/domain/context';
import { ManualClock } from '../../src/domain/clock';
import { ConflictError } from '../../src/domain/errors';
import {
  OWNER_LEASE_MS,
  claimIdempotencyKey,
  keyedEffect,
  ownerGone,
  processOwner,
  registerKeyOwner,
  runIdempotent,
  thisProcess,
  type IdempotentCall,
  type ProcessIdentity,
} from '../../src/services/idempotency';
import { operations } from '../../src/api';
import { newId } from '../../src/util/ids';

/**
 * The Idempotency-Key rule in one place (src/services/idempotency.ts runIdempotent), which the API pipeline and the
 * CLI both call: what a caller sees of it, whatever the door.
 */

let t: TestRuntime;
/** the injected clock: leases are read by it */
const clock = new ManualClock(new Date());
beforeAll(async () => {
  t = await createTestRuntime({ clock });
});
afterAll(() => t.close());

const tenantA = newId();
const caller = (tenantId = tenantA): CallerContext =>
  operatorContext(t.rt, { level: 'tenant', tenantId, livemode: false, operator: 'ops' });
const call = (
  key: string | undefined,
  input: unknown = { amount: 1 },
  more: Partial<IdempotentCall<{ n: number }, { n: number }>> = {},
) => ({
  key,
  keyField: '--idempotency-key',
  operation: 'createThing',
  target: { id: 'x' },
  input,
  ...more,
});

describe(`runIdempotent (${dialectName})`, () => {
  test('the same key and request replay the kept answer without running again; another request is 409', async () => {
    let runs = 0;
    const fn = async () => ({ n: ++runs });
    expect(await runIdempotent(caller(), call('k-1'), fn)).toEqual({ replayed: false, result: { n: 1 } });
    expect(await runIdempotent(caller(), call('k-1'), fn)).toEqual({ replayed: true, replay: { n: 1 } });
    for (const other of [
      call('k-1', { amount: 2 }),
      call('k-1', { amount: 1 }, { operation: 'createOther' }),
      call('k-1', { amount: 1 }, { target: { id: 'y' } }),
    ]) {
      await expect(runIdempotent(caller(), other, fn)).rejects.toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    }
    // a rule of its own replays whatever the request (issuing API keys)
    expect(await runIdempotent(caller(), call('k-1', { amount: 3 }, { anyInput: true }), fn)).toEqual({ replayed: true, replay: { n: 1 } });
    expect(runs).toBe(1);
  });

  test("keys are the caller's: another tenant with the same key runs its own; no key runs every time", async () => {
    let runs = 0;
    const fn = async () => ({ n: ++runs });
    await runIdempotent(caller(), call('shared'), fn);
    expect(await runIdempotent(caller(newId()), call('shared'), fn)).toEqual({ replayed: false, result: { n: 2 } });
    await runIdempotent(caller(), call(undefined), fn);
    await runIdempotent(caller(), call(undefined), fn);
    expect(runs).toBe(4);
  });

  test("a failed request frees its key; a key of the wrong length is refused under the caller's name for it", async () => {
    await expect(
      runIdempotent(caller(), call('k-fail'), async () => {
        throw new Error('provider down');
      }),
    ).rejects.toThrow('provider down');
    expect(await runIdempotent(caller(), call('k-fail'), async () => ({ n: 7 }))).toEqual({ replayed: false, result: { n: 7 } });
    await expect(runIdempotent(caller(), call('x'.repeat(129)), async () => ({ n: 0 }))).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_IDEMPOTENCY_KEY',
      errors: [{ path: '--idempotency-key' }],
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
    await expect(runIdempotent(caller(), call('k-wait', { amount: 2 }), async () => ({ n: ++runs }))).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    release();
    expect(await first).toEqual({ replayed: false, result: { n: 1 } });
    expect(await second).toEqual({ replayed: true, replay: { n: 1 } });
    expect(runs).toBe(1);
  });
});

/** Another process, as idempotency_owners knows it (its lease is not renewed: the test's clock decides it). */
const otherProcess = (identity: Partial<ProcessIdentity> = {}) =>
  registerKeyOwner(
    t.rt.db,
    clock,
    { host: 'elsewhere', machine: 'another-machine', pid: 4242, processStart: '1', ...identity },
    { renew: false },
  );
/** a claim by `owner` of the request call(key, input) makes (its scope and operation read from a probe runIdempotent wrote) */
async function claimAs(owner: ReturnType<typeof otherProcess>, key: string, input: unknown = { amount: 1 }): Promise<void> {
  // the scope and fingerprint runIdempotent uses: taken from a record it writes
  await runIdempotent(caller(), call(`probe-${key}`, input), async () => ({ n: 0 }));
  const probe = (await t.rt.db.models.Idempotency.findOne({ where: { key: `probe-${key}` }, raw: true })) as unknown as {
    scope: string;
    method: string;
    path: string;
  };
  const claim = await claimIdempotencyKey(
    t.rt.db,
    clock,
    { scope: probe.scope, key, method: probe.method, path: probe.path, body: bodyOf(probe, input) },
    { as: owner },
  );
  expect(claim.kind).toBe('owner');
}
/** the input as runIdempotent fingerprints it: sealer.mac('idempotency-body', its canonical JSON; the inputs here are flat) */
const bodyOf = (_probe: unknown, input: unknown) => t.rt.sealer.mac('idempotency-body', JSON.stringify(input));

describe(`Idempotency-Keys held by live processes only (${dialectName})`, () => {
  test('a process on another machine holds its key while its lease runs, and not once the injected clock passes it', async () => {
    const other = otherProcess();
    await other.ready;
    await claimAs(other, 'k-lease');
    const rows = () =>
      t.rt.db.models.Idempotency.findAll({ where: { key: 'k-lease' }, raw: true }) as unknown as Promise<
        Array<{ state: string; ownerProcess: string }>
      >;
    expect((await rows()).map((r) => [r.state, r.ownerProcess])).toEqual([['in_progress', other.id]]);
    let runs = 0;
    const fn = async () => ({ n: ++runs });
    // its lease runs (the clock stands still, then moves to the last moment of the lease): a retry waits
    const held = runIdempotent(caller(), call('k-lease'), fn);
    clock.advance(OWNER_LEASE_MS - 1);
    await expect(Promise.race([held.then(() => 'answered'), new Promise((r) => setTimeout(() => r('waiting'), 300))])).resolves.toBe(
      'waiting',
    );
    expect(runs).toBe(0);
    // the lease runs out (the other process stopped renewing it): the waiting retry takes the key over and runs
    clock.advance(1);
    expect(await held).toEqual({ replayed: false, result: { n: 1 } });
    expect((await rows()).map((r) => [r.state, r.ownerProcess])).toEqual([['completed', null]]);
  });

  test("a process on this machine is known gone at once: its pid ended, or is another process's; a live one is waited for", async () => {
    const me = thisProcess();
    if (me.machine === null || me.processStart === null) return expect(process.platform).not.toBe('linux');
    // a process that ran and ended: its pid no longer runs
    const ended = spawnSync(process.execPath, ['-e', '']).pid!;
    const dead = otherProcess({ host: me.host, machine: me.machine, pid: ended, processStart: '123' });
    // this pid, but a start time of another process (the pid was used again)
    const reused = otherProcess({ host: me.host, machine: me.machine, pid: process.pid, processStart: `${me.processStart}0` });
    // a live process: this one, under another owner (another runtime of this process)
    const live = otherProcess({ ...me });
    for (const o of [dead, reused, live]) await o.ready;
    const self = { id: 'the-checker', identity: me };
    const row = async (o: typeof dead) => (await t.rt.db.models.IdempotencyOwner.findByPk(o.id, { raw: true })) as never;
    expect([
      ownerGone(await row(dead), clock.now(), self),
      ownerGone(await row(reused), clock.now(), self),
      ownerGone(await row(live), clock.now(), self),
    ]).toEqual([true, true, false]);
    // no row: gone (a row is cleared a day after its lease ran out)
    expect(ownerGone(null, clock.now(), self)).toBe(true);

    let runs = 0;
    const fn = async () => ({ n: ++runs });
    await claimAs(dead, 'k-dead');
    const started = Date.now();
    expect(await runIdempotent(caller(), call('k-dead'), fn)).toEqual({ replayed: false, result: { n: 1 } });
    // at once: no wait for a lease (the clock did not move)
    expect(Date.now() - started).toBeLessThan(5_000);
    await claimAs(live, 'k-live');
    await expect(claimIdempotencyKey(t.rt.db, clock, await requestOf('k-live'), { waitMs: 100 })).rejects.toMatchObject({
      status: 409,
      code: 'IDEMPOTENCY_KEY_IN_USE',
    });
  });

  test("a key this process could not free (its release failed) is not held for the process's life: the retry takes it at once", async () => {
    let runs = 0;
    const failing = async (): Promise<{ n: number }> => {
      runs += 1;
      throw new ConflictError('SOMETHING_REFUSED', 'refused');
    };
    // the release after the failure meets a database error: the key stays in_progress, named by this process
    const destroy = jest.spyOn(t.rt.db.models.Idempotency, 'destroy').mockRejectedValueOnce(new Error('database went away'));
    const releaseFailures: unknown[] = [];
    await expect(
      runIdempotent(caller(), call('k-unreleased', { amount: 1 }, { onReleaseFailure: (e) => releaseFailures.push(e) }), failing),
    ).rejects.toMatchObject({ code: 'SOMETHING_REFUSED' });
    destroy.mockRestore();
    expect(releaseFailures).toHaveLength(1);
    const row = (await t.rt.db.models.Idempotency.findOne({ where: { key: 'k-unreleased' }, raw: true })) as unknown as {
      state: string;
      ownerProcess: string;
    };
    expect(row).toMatchObject({ state: 'in_progress', ownerProcess: processOwner(t.rt.db, clock).id });
    // its request ended: the retry (this process, no clock moved) runs at once instead of waiting for a 409
    const started = Date.now();
    expect(await runIdempotent(caller(), call('k-unreleased'), async () => ({ n: ++runs }))).toEqual({ replayed: false, result: { n: 2 } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('a registration whose write failed leaves no renewal behind (the next claim registers again)', async () => {
    const create = jest.spyOn(t.rt.db.models.IdempotencyOwner, 'create').mockRejectedValueOnce(new Error('database went away'));
    const update = jest.spyOn(t.rt.db.models.IdempotencyOwner, 'update');
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    try {
      const failed = registerKeyOwner(t.rt.db, clock, { host: 'here', machine: null, pid: 1, processStart: null }, { renew: true });
      await expect(failed.ready).rejects.toThrow('database went away');
      jest.advanceTimersByTime(OWNER_LEASE_MS * 2);
      jest.useRealTimers();
      // a renewal the ticks started would reach the table within this
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(update).not.toHaveBeenCalled();
    } finally {
      jest.useRealTimers();
      create.mockRestore();
      update.mockRestore();
    }
  });

  test("this process's row: written once per database, with its pid and a lease by the injected clock; its claims name it", async () => {
    const owner = processOwner(t.rt.db, clock);
    await owner.ready;
    expect(processOwner(t.rt.db, clock)).toBe(owner);
    const row = (await t.rt.db.models.IdempotencyOwner.findByPk(owner.id, { raw: true })) as unknown as { pid: number; aliveUntil: Date };
    expect(row.pid).toBe(process.pid);
    expect(new Date(row.aliveUntil).getTime()).toBeGreaterThan(clock.now().getTime() - 600_000);
    // a claim it makes names it
    await runIdempotent(caller(), call('k-mine', { amount: 1 }, { ownTransactions: true }), async () => {
      const claim = (await t.rt.db.models.Idempotency.findOne({ where: { key: 'k-mine' }, raw: true })) as unknown as {
        ownerProcess: string;
      };
      expect(claim.ownerProcess).toBe(owner.id);
      return { n: 1 };
    });
  });
});

describe(`a process that stops lets its keys go (${dialectName})`, () => {
  test("closing the database clears the process's row: a key it still held is free at once", async () => {
    // another runtime of this process on the same database: its own owner row
    const second = await openRuntime(testConfig(t.db), { clock });
    const owner = processOwner(second.db, clock);
    await owner.ready;
    const other = operatorContext(second, { level: 'tenant', tenantId: tenantA, livemode: false, operator: 'ops' });
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    // a request of that runtime that holds its key (it never ends: its process "stops" under it)
    void runIdempotent(other, call('k-stopped', { amount: 1 }, { ownTransactions: true }), () => {
      inside();
      return new Promise<{ n: number }>(() => undefined);
    });
    await entered;
    expect(await t.rt.db.models.IdempotencyOwner.count({ where: { id: owner.id } })).toBe(1);
    // held while it runs: this process lives (same pid and start), and the lease has not run out
    await expect(claimIdempotencyKey(t.rt.db, clock, await requestOf('k-stopped'), { waitMs: 100 })).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_IN_USE',
    });
    await closeRuntime(second);
    expect(await t.rt.db.models.IdempotencyOwner.count({ where: { id: owner.id } })).toBe(0);
    expect(await runIdempotent(caller(), call('k-stopped', { amount: 1 }, { ownTransactions: true }), async () => ({ n: 3 }))).toEqual({
      replayed: false,
      result: { n: 3 },
    });
  });
});

/** The request runIdempotent makes of call(key) (scope, operation, target, input digest). */
async function requestOf(key: string) {
  const r = (await t.rt.db.models.Idempotency.findOne({ where: { key }, raw: true })) as unknown as {
    scope: string;
    method: string;
    path: string;
  };
  return { scope: r.scope, key, method: r.method, path: r.path, body: bodyOf(r, { amount: 1 }) };
}

describe(`an operation with transactions of its own: its committed effect answers a retry (${dialectName})`, () => {
  /** an operation that commits its effect (a row of its own, here a marked key) and then stops: a defect, or a process dying */
  const effectThen = (stop: () => never, log: string[]) => async (ctx: CallerContext) => {
    await inTransaction(ctx, async (tx) => {
      await keyedEffect(tx);
      log.push('effect');
    });
    return stop();
  };

  test('committed then a defect: the key stays, free, and the retry answers by resume without running again', async () => {
    const log: string[] = [];
    const own = (more: Partial<IdempotentCall<{ n: number }, { n: number }>> = {}) =>
      call('k-applied', { amount: 1 }, { ownTransactions: true, resume: async () => ({ n: 99 }), ...more });
    await expect(
      runIdempotent(
        caller(),
        own(),
        effectThen(() => {
          throw new Error('a defect after the effect');
        }, log),
      ),
    ).rejects.toThrow('a defect');
    const kept = (await t.rt.db.models.Idempotency.findOne({ where: { key: 'k-applied' }, raw: true })) as unknown as {
      state: string;
      ownerProcess: string | null;
      appliedAt: Date | null;
    };
    expect([kept.state, kept.ownerProcess, kept.appliedAt !== null]).toEqual(['in_progress', null, true]);
    const started = Date.now();
    expect(
      await runIdempotent(
        caller(),
        own(),
        effectThen(() => {
          throw new Error('must not run again');
        }, log),
      ),
    ).toEqual({ replayed: false, result: { n: 99 } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(log).toEqual(['effect']);
    // kept now: a third send replays it
    expect(await runIdempotent(caller(), own(), async () => ({ n: 0 }))).toEqual({ replayed: true, replay: { n: 99 } });
  });

  test('committed then the process died: a retry takes the key over at once and answers by resume', async () => {
    const me = thisProcess();
    if (me.machine === null || me.processStart === null) return expect(process.platform).not.toBe('linux');
    const ended = spawnSync(process.execPath, ['-e', '']).pid!;
    const dead = otherProcess({ host: me.host, machine: me.machine, pid: ended, processStart: '7' });
    await dead.ready;
    await claimAs(dead, 'k-died');
    // what the dead request's intent transaction committed with its effect
    await t.rt.db.models.Idempotency.update({ appliedAt: clock.now() }, { where: { key: 'k-died' } });
    let runs = 0;
    const answer = await runIdempotent(
      caller(),
      call('k-died', { amount: 1 }, { ownTransactions: true, resume: async () => ({ n: -1 }) }),
      async () => ({ n: ++runs }),
    );
    expect([answer, runs]).toEqual([{ replayed: false, result: { n: -1 } }, 0]);
    // a key without its effect committed runs the operation (nothing of it was committed)
    await claimAs(dead, 'k-died-early');
    const early = await runIdempotent(
      caller(),
      call('k-died-early', { amount: 1 }, { ownTransactions: true, resume: async () => ({ n: -1 }) }),
      async () => ({ n: ++runs }),
    );
    expect([early, runs]).toEqual([{ replayed: false, result: { n: 1 } }, 1]);
  });

  test("a domain error is the operation's answer: the key is freed for another run, committed or not; no key marks nothing", async () => {
    const log: string[] = [];
    const refused = () => {
      throw new ConflictError('SOMETHING_REFUSED', 'refused after its intent');
    };
    const own = call('k-refused', { amount: 1 }, { ownTransactions: true, resume: async () => ({ n: 99 }) });
    await expect(runIdempotent(caller(), own, effectThen(refused, log))).rejects.toMatchObject({ code: 'SOMETHING_REFUSED' });
    expect(await t.rt.db.models.Idempotency.count({ where: { key: 'k-refused' } })).toBe(0);
    expect(await runIdempotent(caller(), own, async () => ({ n: 5 }))).toEqual({ replayed: false, result: { n: 5 } });
    // without a key, and outside runIdempotent: keyedEffect writes nothing
    await runIdempotent(caller(), call(undefined, { amount: 1 }, { ownTransactions: true }), async (ctx) => {
      await inTransaction(ctx, (tx) => keyedEffect(tx));
      return { n: 0 };
    });
    await inTransaction(caller(), (tx) => keyedEffect(tx));
  });

  test('every operation with transactions of its own declares how its answer is rebuilt (resume)', () => {
    const own = operations.filter((op) => op.ownTransactions);
    expect(own.length).toBeGreaterThan(0);
    expect(own.filter((op) => op.kind !== 'single' || !op.resume).map((op) => op.id)).toEqual([]);
  });
});

describe('idempotency records in one place', () => {
  test('no module but src/services/idempotency.ts claims, completes or frees a key, or reads the records', () => {
    const root = path.resolve(__dirname, '../..');
    const files = (dir: string): string[] =>
      fs
        .readdirSync(path.join(root, dir), { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
    const all = [...files('src'), ...files('commands')].filter((f) => !f.startsWith(path.join('src', 'db')));
    const pattern =
      /\b(claimIdempotencyKey|completeIdempotencyKey|releaseIdempotencyKey|freeIdempotencyKey|registerKeyOwner)\b|models\.Idempotency(Owner)?\b|\{\s*Idempotency(Owner)?\s*\}/;
    const users = all.filter((f) => pattern.test(fs.readFileSync(path.join(root, f), 'utf8')));
    expect(users).toEqual([path.join('src', 'services', 'idempotency.ts')]);
  });
});
