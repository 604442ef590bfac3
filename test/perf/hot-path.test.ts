import { useApiHarness } from '../helpers/api';
import { runDueSandboxOperations } from '../../src/services/sandbox/acquirer';
import { dialectName } from '../helpers/db';
import { UniqueConstraintError } from 'sequelize';
import { insertLater } from '../../src/db/rows';
import { newId } from '../../src/util/ids';
import { withTransaction } from '../../src/domain/context';
import { operatorContext } from '../../src/services/access/operators';
import { scoped } from '../../src/db/scoped';
import { createSandbox } from '../../src/services/sandbox/provision';

// Issue 22: the hot operations run on prepared statements (src/db/statements.ts: plain rows, no model instances),
// with fewer round trips than before. Each operation is run three times (authentication may find its key cached or
// not) and the least number of statements it sent is compared with the count this issue brought it to; every
// statement it sent must be a prepared one. Counts before issue 22 (SQLite): session 9, complete 47, the sandbox
// acquirer's answer 34, GET 1.

const h = useApiHarness({ config: { sandboxDelayMs: 0 } });
beforeAll(async () => {}, 60_000);

interface Sent {
  count: number;
  /** statements sent through Sequelize's query pipeline rather than as prepared statements */
  slow: string[];
}

async function sent<T>(fn: () => Promise<T>): Promise<{ result: T } & Sent> {
  const sequelize = h.rt.db.sequelize;
  const out: Sent = { count: 0, slow: [] };
  const hook = (_options: unknown, query: unknown) => {
    out.count++;
    const q = query as { fast?: boolean; sql?: string };
    if (!q.fast) out.slow.push(String(q.sql ?? (query as { options?: { sql?: string } }).options ?? 'a Sequelize query').slice(0, 120));
  };
  sequelize.addHook('beforeQuery', 'hot-path', hook as never);
  try {
    return { result: await fn(), ...out };
  } finally {
    sequelize.removeHook('beforeQuery', 'hot-path');
  }
}

const CARD = { paymentMethod: { type: 'card', card: { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123' } } };

describe(`hot operations on prepared statements, with fewer round trips (${dialectName})`, () => {
  test('create a session, complete it, the sandbox acquirer answers, read the payment', async () => {
    const key = h.sandbox.merchantKey.secretKey;
    const least = { session: Infinity, complete: Infinity, acquirer: Infinity, get: Infinity };
    const slow: string[] = [];
    for (let round = 0; round < 3; round++) {
      const session = await sent(() => h.as(key).post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 1_000 } }));
      expect(session.result.status).toBe(201);
      const { id, clientSecret } = session.result.body.data as { id: string; clientSecret: string };
      const complete = await sent(() => h.as(clientSecret).post(`/v1/checkout-sessions/${id}/complete`, CARD));
      expect(complete.result.status).toBe(200);
      const acquirer = await sent(() => runDueSandboxOperations(h.rt));
      expect(acquirer.result).toBe(1);
      const paymentId = complete.result.body.data.paymentId as string;
      const read = await sent(() => h.as(key).get(`/v1/payments/${paymentId}`));
      expect(read.result.status).toBe(200);
      expect(read.result.body.data.status).toBe('captured');
      for (const [name, r] of Object.entries({ session, complete, acquirer, get: read })) {
        least[name as keyof typeof least] = Math.min(least[name as keyof typeof least], r.count);
        slow.push(...r.slow.map((s) => `${name}: ${s}`));
      }
    }
    expect(slow).toEqual([]);
    // BEGIN and COMMIT count. The session: BEGIN, the count of configuration changes (its merchant, tenant and
    // checkout profile are kept from the last transaction while the count stays: db/statements' ConfigCache), the
    // session, the endpoints of its event, its audit entry and its event (written together before COMMIT), COMMIT; the
    // key cached. The acquirer's answer marks its operation done in the transaction that applies it (26 before: a
    // transaction of its own); complete takes its terminal from the routing it read and writes the payment naming its
    // first attempt (37 before). Configuration kept between transactions: session 9 to 7, complete 35 to 26, the
    // acquirer's answer 24 to 20. A write that is one statement goes alone, without BEGIN and COMMIT
    // (Database.writeAlone): the sandbox acquirer's record of the authorization (complete 26 to 24) and its claim of
    // due operations (the answer 20 to 18). A provider's "pending" answer is recorded by two compare-and-set updates,
    // without reading the payment and the attempt first (complete 24 to 22). Postgres writes what a transaction
    // deferred (its audit entries, events and deliveries) in one statement, the INSERTs before the last as WITH
    // clauses: one statement less in each transaction that deferred rows of two tables.
    // The first attempt is sent with its terminal, provider and credentials as complete's transaction read them, and
    // the sandbox acquirer finds a repeated authorization by its unique reference instead of looking first
    // (complete 22 to 18).
    // BEGIN reads the count of configuration changes in the same trip (Statements.begin): on Postgres one statement
    // of the two (one less in each transaction that reads configuration: session 6 to 5, complete 17 to 16, the
    // answer 17 to 16); on SQLite two statements run one after the other without a turn of the event loop, so a
    // transaction that reads no configuration sends one statement more (complete's record of the pending answer:
    // 18 to 19) but no transaction waits for the event loop once more for the count.
    // A row a transaction read by its id is not read again by id under another scope (complete reads its session by
    // its merchant, then by its tenant): 19 to 18, and 16 to 15.
    // A ledger posting's lines and its releases are written with the transaction's other deferred rows before its
    // COMMIT: on Postgres in the one statement of those (the answer 16 to 14), on SQLite in the same trip.
    // Settlement statements (issue 23): the capture's posting opens its merchant's statement of the day with an INSERT …
    // ON CONFLICT DO NOTHING deferred with the entries: on Postgres a WITH clause of the same one statement (no more
    // statements), on SQLite one statement more in the same trip (the answer 18 to 19).
    const expected = { session: 7, complete: 18, acquirer: 19, get: 1 };
    expect(least).toEqual(dialectName === 'postgres' ? { session: 5, complete: 15, acquirer: 14, get: 1 } : expected);
  });
});

describe(`a write on its own (${dialectName})`, () => {
  test('is one statement, without BEGIN or COMMIT, and takes its turn with the write transactions', async () => {
    const db = h.rt.db;
    const sentSql: string[] = [];
    const hook = (_options: unknown, query: { sql?: string }) => {
      sentSql.push(String(query.sql ?? ''));
    };
    const order: string[] = [];
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    // a transaction holding its writes open while the write alone is sent
    const transaction = db.transaction(async (t) => {
      await db.sql.run('UPDATE "tenants" SET "name" = "name" WHERE "id" = ?', [h.sandbox.tenantId], { transaction: t });
      inside();
      await held;
      order.push('transaction');
    });
    await entered;
    db.sequelize.addHook('beforeQuery', 'write-alone', hook as never);
    const alone = db
      .writeAlone((options) => db.sql.run('UPDATE "merchants" SET "name" = "name" WHERE "id" = ?', [h.sandbox.merchantId], options))
      .then((n) => {
        order.push('alone');
        return n;
      });
    await new Promise((resolve) => setTimeout(resolve, 50));
    finish();
    const [, changed] = await Promise.all([transaction, alone]);
    db.sequelize.removeHook('beforeQuery', 'write-alone');
    expect(changed).toBe(1);
    // SQLite: it waits for the transaction (one writer); Postgres: another row, so it need not
    if (dialectName === 'sqlite') expect(order).toEqual(['transaction', 'alone']);
    // the one COMMIT is the held transaction's
    expect(sentSql.filter((sql) => /^(BEGIN|START|COMMIT)/i.test(sql))).toEqual(['COMMIT;']);
    expect(sentSql.filter((sql) => sql.startsWith('UPDATE "merchants"'))).toHaveLength(1);
  });
});

describe(`what a transaction deferred, written before its COMMIT (${dialectName})`, () => {
  const eventRow = (id: string, tenantId: string) => {
    const at = new Date();
    return {
      id,
      type: 'payment.created',
      tenantId,
      merchantId: null,
      livemode: false,
      data: '{}',
      apiVersion: '2026-11-01',
      createdAt: at,
      updatedAt: at,
      deletedAt: null,
    };
  };

  test('rows of several tables are written in order (a delivery after its event) and commit together', async () => {
    const db = h.rt.db;
    const { Event, WebhookDelivery } = db.models;
    const created = await h
      .as(h.sandbox.tenantKey.secretKey)
      .post('/v1/admin/webhook-endpoints', { url: 'https://hooks.example.com/deferred', events: ['*'] });
    expect(created.status).toBe(201);
    const eventId = newId();
    const deliveryId = newId();
    const at = new Date();
    await db.transaction(async (transaction) => {
      // the event first, then its delivery (which names it by foreign key): written in that order, in one go
      await insertLater(db, Event as never, [eventRow(eventId, h.sandbox.tenantId)], transaction);
      await insertLater(
        db,
        WebhookDelivery as never,
        [
          {
            id: deliveryId,
            eventId,
            endpointId: created.body.data.id,
            eventType: 'payment.created',
            tenantId: h.sandbox.tenantId,
            merchantId: null,
            livemode: false,
            status: 'pending',
            attemptCount: 0,
            maxAttempts: 3,
            nextAttemptAt: at,
            createdAt: at,
            updatedAt: at,
          },
        ],
        transaction,
      );
    });
    expect(await Event.count({ where: { id: eventId } })).toBe(1);
    expect(await WebhookDelivery.count({ where: { id: deliveryId, eventId } })).toBe(1);
  });

  test("one of them refused: the transaction rolls back with the database's error, nothing of it is kept", async () => {
    const db = h.rt.db;
    const { Event, AuditEntry } = db.models;
    const taken = newId();
    await db.transaction((transaction) => insertLater(db, Event as never, [eventRow(taken, h.sandbox.tenantId)], transaction));
    const fresh = newId();
    const audited = newId();
    const at = new Date();
    const attempt = db.transaction(async (transaction) => {
      await insertLater(
        db,
        AuditEntry as never,
        [
          {
            id: audited,
            tenantId: h.sandbox.tenantId,
            merchantId: null,
            livemode: false,
            actorType: 'system',
            actorId: 'system',
            actorName: null,
            action: 'test.deferred',
            targetType: 'tenant',
            targetId: h.sandbox.tenantId,
            before: null,
            after: null,
            requestId: null,
            createdAt: at,
            updatedAt: at,
            deletedAt: null,
          },
        ],
        transaction,
      );
      // the second event's id is already taken: its INSERT is refused at the flush
      await insertLater(db, Event as never, [eventRow(fresh, h.sandbox.tenantId), eventRow(taken, h.sandbox.tenantId)], transaction);
    });
    await expect(attempt).rejects.toBeInstanceOf(UniqueConstraintError);
    expect(await Event.count({ where: { id: fresh } })).toBe(0);
    expect(await AuditEntry.count({ where: { id: audited } })).toBe(0);
    // and the connection it ran on (SQLite: the one writer) is left with no transaction open: the next one commits
    const next = newId();
    await db.transaction((transaction) => insertLater(db, Event as never, [eventRow(next, h.sandbox.tenantId)], transaction));
    expect(await Event.count({ where: { id: next } })).toBe(1);
  });
});

describe(`a row read by its id in a transaction (${dialectName})`, () => {
  test('is not read again under another scope while the transaction has not written its table; a scope it is outside of still finds nothing', async () => {
    const db = h.rt.db;
    const { tenantId, merchantId } = h.sandbox;
    const merchantCtx = operatorContext(h.rt, { level: 'merchant', tenantId, merchantId, livemode: false, operator: 'test' });
    const tenantCtx = operatorContext(h.rt, { level: 'tenant', tenantId, livemode: false, operator: 'test' });
    const other = await createSandbox(h.rt, { name: 'Another tenant' });
    const otherCtx = operatorContext(h.rt, { level: 'tenant', tenantId: other.tenantId, livemode: false, operator: 'test' });
    const session = await h
      .as(h.sandbox.merchantKey.secretKey)
      .post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 700 } });
    const id = session.body.data.id as string;
    const selects: string[] = [];
    const hook = (_options: unknown, query: { sql?: string }) => {
      if (String(query.sql).startsWith('SELECT') && String(query.sql).includes('FROM "checkout_sessions"')) selects.push(String(query.sql));
    };
    db.sequelize.addHook('beforeQuery', 'by-id', hook as never);
    try {
      await db.transaction(async (transaction) => {
        const byMerchant = await scoped(withTransaction(merchantCtx, transaction), db.models.CheckoutSession).get(id);
        const byTenant = await scoped(withTransaction(tenantCtx, transaction), db.models.CheckoutSession).get(id);
        expect(byTenant).toEqual(byMerchant);
        expect(selects).toHaveLength(1);
        // each answer is the caller's own copy
        byTenant.metadata = { changed: 'yes' };
        expect((await scoped(withTransaction(tenantCtx, transaction), db.models.CheckoutSession).get(id)).metadata).toEqual({});
        expect(selects).toHaveLength(1);
        // another tenant's caller: the row is outside its scope, so it is asked of the database, which finds nothing
        expect(await scoped(withTransaction(otherCtx, transaction), db.models.CheckoutSession).find(id)).toBeNull();
        expect(selects).toHaveLength(2);
        // a write to the table: the next read goes to the database again
        await db.sql.run('UPDATE "checkout_sessions" SET "merchantReference" = ? WHERE "id" = ?', ['ref-1', id], { transaction });
        const after = await scoped(withTransaction(tenantCtx, transaction), db.models.CheckoutSession).get(id);
        expect(after.merchantReference).toBe('ref-1');
        expect(selects).toHaveLength(3);
      });
    } finally {
      db.sequelize.removeHook('beforeQuery', 'by-id');
    }
  });
});
