import { createTestRuntime, dialectName, type TestRuntime } from '../helpers/db';
import { ManualClock } from '../../src/domain/clock';
import {
  OWNER_LEASE_MS,
  claimIdempotencyKey,
  completeIdempotencyKey,
  registerKeyOwner,
  releaseIdempotencyKey,
} from '../../src/services/idempotency';

let t: TestRuntime;
const clock = new ManualClock('2026-03-01T00:00:00Z');
beforeAll(async () => {
  t = await createTestRuntime({ clock });
});
afterAll(() => t.close());

const request = (key: string) => ({ scope: 's:test', key, method: 'POST', path: '/v1/x', body: { a: 1 } });

describe(`idempotency claims (${dialectName})`, () => {
  test("a taken-over claim cannot complete or release the new owner's", async () => {
    // A: a process on another machine, whose lease only the clock ends
    const elsewhere = registerKeyOwner(
      t.rt.db,
      clock,
      { host: 'elsewhere', machine: 'another-machine', pid: 4242, processStart: '1' },
      { renew: false },
    );
    const a = await claimIdempotencyKey(t.rt.db, clock, request('fence'), { as: elsewhere });
    expect(a.kind).toBe('owner');
    clock.advance(OWNER_LEASE_MS + 1_000); // A's lease ran out without renewal: its process is presumed gone
    const b = await claimIdempotencyKey(t.rt.db, clock, request('fence'));
    expect(b.kind).toBe('owner');
    if (a.kind !== 'owner' || b.kind !== 'owner') throw new Error('unreachable');
    expect(b.id).toBe(a.id);
    await expect(t.rt.db.transaction((tx) => completeIdempotencyKey(t.rt.db, clock, a, 201, { late: true }, tx))).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_IN_USE',
    });
    await releaseIdempotencyKey(t.rt.db, a); // must not free B's claim
    await t.rt.db.transaction((tx) => completeIdempotencyKey(t.rt.db, clock, b, 201, { winner: true }, tx));
    const c = await claimIdempotencyKey(t.rt.db, clock, request('fence'));
    expect(c).toEqual({ kind: 'replay', status: 201, body: { winner: true }, sameRequest: true });
  });

  test('another body for a completed key is reported, not replayed silently', async () => {
    const a = await claimIdempotencyKey(t.rt.db, clock, request('other-body'));
    if (a.kind !== 'owner') throw new Error('expected owner');
    await t.rt.db.transaction((tx) => completeIdempotencyKey(t.rt.db, clock, a, 200, { ok: 1 }, tx));
    const b = await claimIdempotencyKey(t.rt.db, clock, { ...request('other-body'), body: { a: 2 } });
    expect(b).toMatchObject({ kind: 'replay', sameRequest: false });
  });
});
