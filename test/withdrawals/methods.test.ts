import type request from 'supertest';
import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { inTransaction, type CallerContext } from '../../src/domain/context';
import { HOUR_MS } from '../../src/domain/clock';
import { createMerchantRecord } from '../../src/services/organization/records';
import { createApiKey } from '../../src/services/api-keys/keys';
import { activateDueMethods, usableMethod } from '../../src/services/withdrawal-methods/methods';
import { withdrawalMethodCoolingJob } from '../../src/jobs/withdrawal-method-cooling';
import { backgroundJobs } from '../../src/jobs';

/**
 * Merchants' withdrawal methods over HTTP: the catalog, create (cooling for the tenant's period, 0 h active at once),
 * the cooling job and the lazy activation of usableMethod, new details restarting cooling, operator suspend and
 * reactivate, soft delete, list filters, merchant isolation, validation naming each bad detail; and no full IBAN or
 * account number in any response or audit entry.
 */

let tenantKey: string;
let merchantKey: string;
let merchantId: string;
let second: { merchantId: string; key: string };
let operator: CallerContext;

const BASE = '/v1/merchant-withdrawal-methods';
const MISSING = '00000000-0000-4000-8000-000000000000';
const IBAN = 'DE89370400440532013000';
const IBAN_SPACED = 'de89 3704 0044 0532 0130 00';
const IBAN_2 = 'GB82WEST12345698765432';
const IBAN_3 = 'FR1420041010050500013M02606';
const ACCOUNT = '000123456789';
const SECRETS = [IBAN, IBAN_2, IBAN_3, ACCOUNT, '370400440532013000', '12345698765432'];
const masked = (value: string) => `${'•'.repeat(value.length - 4)}${value.slice(-4)}`;

/** every response text, scanned for full details at the end */
const responses: string[] = [];

function as(key: string) {
  const caller = h.as(key);
  const keep = async (t: request.Test) => {
    const res = await t;
    responses.push(res.text);
    return res;
  };
  return {
    get: (path: string) => keep(caller.get(path)),
    post: (path: string, body?: object) => keep(caller.post(path, body)),
    patch: (path: string, body?: object) => keep(caller.patch(path, body)),
    delete: (path: string) => keep(caller.delete(path)),
  };
}

const paths = (res: { body: { errors?: { path: string }[] } }) => (res.body.errors ?? []).map((e) => e.path).sort();
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);
const auditOf = async (targetId: string) =>
  (
    await h.rt.db.models.AuditEntry.findAll({
      where: { targetId },
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
    })
  ).map(
    (r) =>
      r.get({ plain: true }) as {
        action: string;
        actorType: string;
        actorId: string;
        tenantId: string;
        merchantId: string;
        before: unknown;
        after: unknown;
      },
  );
const iso = (ms: number) => new Date(ms).toISOString();

const bankBody = (extra: object = {}) => ({
  methodType: 'bank_account',
  label: 'Main account',
  details: { iban: IBAN_SPACED, accountHolderName: 'Jane Doe', bic: 'DEUTDEFF' },
  ...extra,
});
const usBody = (extra: object = {}) => ({
  methodType: 'us_bank_account',
  label: 'ACH',
  details: { routingNumber: '021000021', accountNumber: ACCOUNT, accountHolderName: 'Jane Doe', accountType: 'checking' },
  ...extra,
});

async function create(key: string, body: object): Promise<Record<string, any>> {
  const res = await as(key).post(BASE, body);
  expect(res.status).toBe(201);
  return res.body.data;
}

async function setCooling(hours: number | null): Promise<void> {
  const res = await as(tenantKey).patch(`/v1/admin/tenants/${h.sandbox.tenantId}`, { withdrawalCoolingPeriodHours: hours });
  expect(res.status).toBe(200);
  expect(res.body.data.withdrawalCoolingPeriodHours).toBe(hours);
}

const use = (methodId: string, currency = 'EUR', owner = merchantId) =>
  inTransaction(operator, (tx) => usableMethod(tx, methodId, owner, currency));

const h = useApiHarness();
beforeAll(async () => {
  tenantKey = h.sandbox.tenantKey.secretKey;
  merchantKey = h.sandbox.merchantKey.secretKey;
  merchantId = h.sandbox.merchantId;
  operator = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  const other = await createMerchantRecord(operator, { companyId: h.sandbox.companyId, name: 'Second merchant' });
  const asOther = operatorContext(h.rt, { level: 'merchant', tenantId: h.sandbox.tenantId, merchantId: other.id, livemode: false });
  second = { merchantId: other.id, key: (await createApiKey(asOther, { ownerType: 'merchant', livemode: false })).secretKey };
});

describe(`merchant withdrawal methods (${dialectName})`, () => {
  test('the catalog lists each type with its required detail keys, for merchants and tenants', async () => {
    for (const key of [merchantKey, tenantKey]) {
      const res = await as(key).get('/v1/withdrawal-method-types');
      expect(res.status).toBe(200);
      expect(res.body.pagination).toEqual({ nextCursor: null, prevCursor: null, hasMore: false, totalCount: res.body.data.length });
      const byType = Object.fromEntries(res.body.data.map((t: { type: string }) => [t.type, t]));
      expect(byType.bank_account).toMatchObject({
        name: expect.any(String),
        description: expect.any(String),
        currencies: [],
        requiredDetails: ['iban', 'accountHolderName'],
      });
      expect(byType.bank_account.details).toContainEqual({ key: 'iban', label: 'IBAN', required: true, format: 'iban', masked: true });
      expect(byType.us_bank_account).toMatchObject({
        currencies: ['USD'],
        requiredDetails: ['routingNumber', 'accountNumber', 'accountHolderName'],
      });
      expect(byType.us_bank_account.details).toContainEqual({
        key: 'accountType',
        label: 'Account type',
        required: false,
        format: 'enum',
        masked: false,
        values: ['checking', 'savings'],
      });
    }
  });

  let main: Record<string, any>;

  test('a merchant saves a bank account: cooling for the default 24 h, details normalized and masked, audited', async () => {
    const t0 = h.clock.now().getTime();
    main = await create(merchantKey, bankBody());
    expect(main).toEqual({
      id: expect.any(String),
      tenantId: h.sandbox.tenantId,
      merchantId,
      livemode: false,
      methodType: 'bank_account',
      label: 'Main account',
      details: { iban: masked(IBAN), accountHolderName: 'Jane Doe', bic: 'DEUTDEFF' },
      status: 'cooling',
      activatesAt: iso(t0 + 24 * HOUR_MS),
      createdAt: iso(t0),
      updatedAt: iso(t0),
      deletedAt: null,
    });
    expect((await as(merchantKey).get(`${BASE}/${main.id}`)).body.data).toEqual(main);
    expect((await as(tenantKey).get(`${BASE}/${main.id}`)).body.data).toEqual(main);
    // the full details are sealed at rest: the row holds neither the IBAN nor anything but the masked form in clear
    const row = (await h.rt.db.models.MerchantWithdrawalMethod.findByPk(main.id))!.get({ plain: true }) as {
      detailsSealed: string;
      createdBy: string;
    };
    expect(row.detailsSealed).not.toContain(IBAN);
    expect(JSON.parse(h.rt.sealer.open(row.detailsSealed))).toEqual({ iban: IBAN, accountHolderName: 'Jane Doe', bic: 'DEUTDEFF' });
    expect(row.createdBy).toBe(h.sandbox.merchantKey.id);
    const audit = await auditOf(main.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'withdrawal_method.created',
      actorType: 'api_key',
      tenantId: h.sandbox.tenantId,
      merchantId,
      before: null,
    });
    expect(audit[0].after).toEqual(main);
  });

  test('tenant callers name the merchant: 400 without it, 404 for one they cannot see', async () => {
    let res = await as(tenantKey).post(BASE, usBody());
    expectProblem(res, 400);
    expect(paths(res)).toEqual(['body.merchantId']);
    res = await as(tenantKey).post(BASE, usBody({ merchantId: MISSING }));
    expectProblem(res, 404);
    expect(paths(res)).toEqual(['body.merchantId']);
    // a merchant caller cannot save a method for another merchant
    res = await as(merchantKey).post(BASE, usBody({ merchantId: second.merchantId }));
    expectProblem(res, 404);
    const us = await create(tenantKey, usBody({ merchantId }));
    expect(us).toMatchObject({ merchantId, methodType: 'us_bank_account', status: 'cooling' });
    expect(us.details).toEqual({
      routingNumber: '021000021',
      accountNumber: masked(ACCOUNT),
      accountHolderName: 'Jane Doe',
      accountType: 'checking',
    });
  });

  test('bad input is 400 naming every bad field, and nothing is saved', async () => {
    const before = await h.rt.db.models.MerchantWithdrawalMethod.count();
    // a wrong IBAN check digit
    let res = await as(merchantKey).post(BASE, bankBody({ details: { iban: 'DE89370400440532013001', accountHolderName: 'Jane Doe' } }));
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors).toEqual([{ path: 'body.details.iban', message: expect.stringMatching(/check digits/) }]);
    // a missing required key and an unknown one, at once
    res = await as(merchantKey).post(BASE, bankBody({ details: { iban: IBAN, nickname: 'salary' } }));
    expectProblem(res, 400);
    expect(paths(res)).toEqual(['body.details.accountHolderName', 'body.details.nickname']);
    // a type the catalog does not hold
    res = await as(merchantKey).post(BASE, bankBody({ methodType: 'crypto_wallet' }));
    expectProblem(res, 400, 'UNKNOWN_WITHDRAWAL_METHOD_TYPE');
    expect(paths(res)).toEqual(['body.methodType']);
    // a routing number whose check digit does not match
    res = await as(merchantKey).post(
      BASE,
      usBody({ details: { routingNumber: '021000022', accountNumber: ACCOUNT, accountHolderName: 'Jane Doe' } }),
    );
    expectProblem(res, 400);
    expect(res.body.errors).toEqual([{ path: 'body.details.routingNumber', message: expect.stringMatching(/check digit/) }]);
    // the body's own shape: required fields, strings only
    res = await as(merchantKey).post(BASE, { methodType: 'bank_account', details: { iban: 42 } });
    expectProblem(res, 400);
    expect(paths(res)).toEqual(['body.details.iban', 'body.label']);
    res = await as(merchantKey).post(BASE, bankBody({ status: 'active' }));
    expectProblem(res, 400);
    expect(paths(res)).toEqual(['body.status']);
    expect(await h.rt.db.models.MerchantWithdrawalMethod.count()).toBe(before);
  });

  let twoHours: Record<string, any>;

  test("the tenant's cooling period applies; 0 hours makes a method active at once; null is the default again", async () => {
    const now = () => h.clock.now().getTime();
    await setCooling(2);
    twoHours = await create(merchantKey, bankBody({ label: 'Two hours', details: { iban: IBAN_2, accountHolderName: 'Jane Doe' } }));
    expect(twoHours).toMatchObject({ status: 'cooling', activatesAt: iso(now() + 2 * HOUR_MS) });
    await setCooling(0);
    const instant = await create(merchantKey, bankBody({ label: 'Instant' }));
    expect(instant).toMatchObject({ status: 'active', activatesAt: iso(now()) });
    expect((await use(instant.id)).method.status).toBe('active');
    await setCooling(null);
    expect(await create(merchantKey, bankBody({ label: 'Default again' }))).toMatchObject({
      status: 'cooling',
      activatesAt: iso(now() + 24 * HOUR_MS),
    });
    // the tenant's setting through the model as well
    await h.rt.db.models.Tenant.update({ withdrawalCoolingPeriodHours: 72 }, { where: { id: h.sandbox.tenantId } });
    expect(await create(merchantKey, bankBody({ label: 'Three days' }))).toMatchObject({
      status: 'cooling',
      activatesAt: iso(now() + 72 * HOUR_MS),
    });
    await h.rt.db.models.Tenant.update({ withdrawalCoolingPeriodHours: null }, { where: { id: h.sandbox.tenantId } });
  });

  test('the cooling job of serve activates the methods whose activatesAt has passed, audited as the system', async () => {
    expect(backgroundJobs).toContain(withdrawalMethodCoolingJob);
    h.clock.advance(2 * HOUR_MS);
    let job = withdrawalMethodCoolingJob.start(h.rt);
    await job.stop();
    expect((await as(merchantKey).get(`${BASE}/${twoHours.id}`)).body.data).toMatchObject({
      status: 'active',
      activatesAt: twoHours.activatesAt,
    });
    expect((await as(merchantKey).get(`${BASE}/${main.id}`)).body.data.status).toBe('cooling');
    const activated = (await auditOf(twoHours.id)).filter((a) => a.action === 'withdrawal_method.activated');
    expect(activated).toHaveLength(1);
    expect(activated[0]).toMatchObject({
      actorType: 'system',
      tenantId: h.sandbox.tenantId,
      merchantId,
      before: { status: 'cooling' },
      after: { status: 'active' },
    });
    // nothing more is due: a second run moves nothing
    expect(await activateDueMethods(h.rt)).toBe(0);

    h.clock.advance(22 * HOUR_MS);
    job = withdrawalMethodCoolingJob.start(h.rt);
    await job.stop();
    main = (await as(merchantKey).get(`${BASE}/${main.id}`)).body.data;
    expect(main.status).toBe('active');
  });

  test('usableMethod: activates a due cooling method itself, opens the details; refuses cooling, suspended, wrong currency, invisible', async () => {
    const cooling = await create(merchantKey, bankBody({ label: 'Lazy', details: { iban: IBAN_3, accountHolderName: 'Jean Dupont' } }));
    await expect(use(cooling.id)).rejects.toMatchObject({
      status: 422,
      code: 'WITHDRAWAL_METHOD_NOT_ACTIVE',
      detail: expect.stringContaining(cooling.activatesAt),
      errors: [{ path: 'body.withdrawalMethodId' }],
    });
    h.clock.advance(24 * HOUR_MS);
    // the job has not run: the withdrawal activates it on the spot
    const usable = await use(cooling.id);
    expect(usable.method).toMatchObject({ id: cooling.id, status: 'active' });
    expect(usable.type.type).toBe('bank_account');
    expect(usable.details).toEqual({ iban: IBAN_3, accountHolderName: 'Jean Dupont' });
    expect((await as(merchantKey).get(`${BASE}/${cooling.id}`)).body.data.status).toBe('active');
    expect((await auditOf(cooling.id)).map((a) => [a.action, a.actorType])).toEqual([
      ['withdrawal_method.created', 'api_key'],
      ['withdrawal_method.activated', 'user'],
    ]);
    // the job finds nothing left to do for it
    await activateDueMethods(h.rt);
    expect((await auditOf(cooling.id)).filter((a) => a.action === 'withdrawal_method.activated')).toHaveLength(1);

    // a type limited to USD takes USD only
    const us = (await as(merchantKey).get(`${BASE}?methodType=us_bank_account`)).body.data[0];
    await expect(use(us.id, 'EUR')).rejects.toMatchObject({ status: 422, code: 'WITHDRAWAL_METHOD_CURRENCY' });
    expect((await use(us.id, 'USD')).details.accountNumber).toBe(ACCOUNT);
    // suspended
    expect((await as(tenantKey).post(`${BASE}/${us.id}/suspend`)).status).toBe(200);
    await expect(use(us.id, 'USD')).rejects.toMatchObject({
      status: 422,
      code: 'WITHDRAWAL_METHOD_NOT_ACTIVE',
      detail: expect.stringMatching(/suspended/),
    });
    expect((await as(tenantKey).post(`${BASE}/${us.id}/reactivate`)).status).toBe(200);
    // another merchant's, absent, or named in a field of the caller's choosing: 404 naming the field
    await expect(use(us.id, 'USD', second.merchantId)).rejects.toMatchObject({
      status: 404,
      errors: [{ path: 'body.withdrawalMethodId' }],
    });
    await expect(inTransaction(operator, (tx) => usableMethod(tx, MISSING, merchantId, 'EUR', 'withdrawalMethodId'))).rejects.toMatchObject(
      {
        status: 404,
        errors: [{ path: 'withdrawalMethodId' }],
      },
    );
  });

  test('PATCH: a label alone changes nothing else; the same details change nothing; new details restart cooling', async () => {
    const t = () => h.clock.now().getTime();
    h.clock.advance(1000);
    let res = await as(merchantKey).patch(`${BASE}/${main.id}`, { label: 'Salary account' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...main, label: 'Salary account', updatedAt: iso(t()) });
    main = res.body.data;
    // the same details written differently: nothing changes, nothing is audited
    const auditCount = (await auditOf(main.id)).length;
    res = await as(merchantKey).patch(`${BASE}/${main.id}`, {
      details: { iban: IBAN_SPACED, accountHolderName: ' Jane Doe', bic: 'deutdeff' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(main);
    expect(await auditOf(main.id)).toHaveLength(auditCount);
    // new details: validated, then cooling again for the tenant's period
    res = await as(merchantKey).patch(`${BASE}/${main.id}`, { details: { iban: 'DE89370400440532013001', accountHolderName: 'Jane Doe' } });
    expectProblem(res, 400);
    expect(paths(res)).toEqual(['body.details.iban']);
    h.clock.advance(1000);
    res = await as(merchantKey).patch(`${BASE}/${main.id}`, { label: 'Moved', details: { iban: IBAN_2, accountHolderName: 'Jane Doe' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      ...main,
      label: 'Moved',
      details: { iban: masked(IBAN_2), accountHolderName: 'Jane Doe' },
      status: 'cooling',
      activatesAt: iso(t() + 24 * HOUR_MS),
      updatedAt: iso(t()),
    });
    await expect(use(main.id)).rejects.toMatchObject({ code: 'WITHDRAWAL_METHOD_NOT_ACTIVE' });
    const updated = (await auditOf(main.id)).filter((a) => a.action === 'withdrawal_method.updated');
    expect(updated.at(-1)).toMatchObject({
      before: { status: 'active', label: 'Salary account' },
      after: { status: 'cooling', label: 'Moved' },
    });
    main = res.body.data;
    // an empty body, an unknown field
    expectProblem(await as(merchantKey).patch(`${BASE}/${main.id}`, {}), 400);
    res = await as(merchantKey).patch(`${BASE}/${main.id}`, { label: 'Other', status: 'active' });
    expectProblem(res, 400);
    expect(paths(res)).toEqual(['body.status']);
  });

  test('suspend and reactivate: operators only; illegal moves are 409; reactivation returns to cooling while activatesAt is ahead', async () => {
    for (const move of ['suspend', 'reactivate']) expectProblem(await as(merchantKey).post(`${BASE}/${main.id}/${move}`), 403);
    expect((await as(merchantKey).get(`${BASE}/${main.id}`)).body.data.status).toBe('cooling');

    // cooling → suspended → (still ahead) cooling
    let res = await as(tenantKey).post(`${BASE}/${main.id}/suspend`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'suspended', activatesAt: main.activatesAt });
    expectProblem(await as(tenantKey).post(`${BASE}/${main.id}/suspend`), 409, 'INVALID_STATE_TRANSITION');
    // a suspended method keeps its label changeable, not its details
    expect((await as(merchantKey).patch(`${BASE}/${main.id}`, { label: 'Held' })).status).toBe(200);
    expectProblem(
      await as(merchantKey).patch(`${BASE}/${main.id}`, { details: { iban: IBAN, accountHolderName: 'Jane Doe' } }),
      409,
      'WITHDRAWAL_METHOD_SUSPENDED',
    );
    res = await as(tenantKey).post(`${BASE}/${main.id}/reactivate`);
    expect(res.body.data).toMatchObject({ status: 'cooling', activatesAt: main.activatesAt });
    expectProblem(await as(tenantKey).post(`${BASE}/${main.id}/reactivate`), 409, 'INVALID_STATE_TRANSITION');

    // suspended past its activatesAt: the job leaves it suspended; reactivation makes it active
    await as(tenantKey).post(`${BASE}/${main.id}/suspend`);
    h.clock.advance(25 * HOUR_MS);
    await activateDueMethods(h.rt);
    expect((await as(tenantKey).get(`${BASE}/${main.id}`)).body.data.status).toBe('suspended');
    res = await as(tenantKey).post(`${BASE}/${main.id}/reactivate`);
    expect(res.body.data.status).toBe('active');
    // active → suspended → active
    expect((await as(tenantKey).post(`${BASE}/${main.id}/suspend`)).body.data.status).toBe('suspended');
    expect((await as(tenantKey).post(`${BASE}/${main.id}/reactivate`)).body.data.status).toBe('active');
    expectProblem(await as(tenantKey).post(`${BASE}/${main.id}/reactivate`), 409, 'INVALID_STATE_TRANSITION');
    const actions = (await auditOf(main.id)).map((a) => a.action);
    expect(actions.filter((a) => a === 'withdrawal_method.suspended')).toHaveLength(3);
    expect(actions.filter((a) => a === 'withdrawal_method.reactivated')).toHaveLength(3);
    main = (await as(tenantKey).get(`${BASE}/${main.id}`)).body.data;
  });

  test("merchant isolation: another merchant's key sees none of them (404), lists only its own", async () => {
    const mine = await create(second.key, bankBody({ label: 'Second merchant' }));
    expect(mine.merchantId).toBe(second.merchantId);
    const other = as(second.key);
    expectProblem(await other.get(`${BASE}/${main.id}`), 404);
    expectProblem(await other.patch(`${BASE}/${main.id}`, { label: 'Hijack' }), 404);
    expectProblem(await other.delete(`${BASE}/${main.id}`), 404);
    expect(ids(await other.get(BASE))).toEqual([mine.id]);
    // a merchant filter naming another merchant names a record the caller cannot see: 404 naming the parameter
    const filtered = await other.get(`${BASE}?merchantId=${merchantId}`);
    expectProblem(filtered, 404);
    expect(paths(filtered)).toEqual(['query.merchantId']);
    expectProblem(await as(merchantKey).get(`${BASE}/${mine.id}`), 404);
    expect(ids(await as(merchantKey).get(`${BASE}?limit=100`))).not.toContain(mine.id);
    expect(ids(await as(tenantKey).get(`${BASE}?merchantId=${second.merchantId}`))).toEqual([mine.id]);
    expect((await as(tenantKey).get(`${BASE}/${main.id}`)).body.data.label).toBe('Held');
  });

  test('list filters: merchantId, methodType, status, livemode (accepted), sortOrder, limit and cursor', async () => {
    const all = (await as(tenantKey).get(`${BASE}?limit=100`)).body;
    expect(all.pagination.totalCount).toBe(all.data.length);
    expect(all.data.length).toBeGreaterThan(6);
    const merchantOnly = (await as(tenantKey).get(`${BASE}?merchantId=${merchantId}&limit=100`)).body.data;
    expect(merchantOnly.every((m: { merchantId: string }) => m.merchantId === merchantId)).toBe(true);
    expect(merchantOnly).toHaveLength(all.data.length - 1);
    const us = (await as(tenantKey).get(`${BASE}?methodType=us_bank_account`)).body.data;
    expect(us).toHaveLength(1);
    for (const status of ['cooling', 'active', 'suspended']) {
      const rows = (await as(tenantKey).get(`${BASE}?status=${status}&limit=100`)).body.data;
      expect(rows.map((m: { status: string }) => m.status)).toEqual(rows.map(() => status));
      expect(rows.length).toBe(all.data.filter((m: { status: string }) => m.status === status).length);
    }
    expect(
      (await as(tenantKey).get(`${BASE}?status=active&merchantId=${merchantId}&methodType=bank_account&limit=100`)).body.data.length,
    ).toBeGreaterThan(0);
    // livemode is accepted; rows stay the caller's mode
    expect(ids(await as(tenantKey).get(`${BASE}?livemode=true&limit=100`))).toEqual(ids({ body: all }));
    const asc = ids(await as(tenantKey).get(`${BASE}?sortOrder=asc&limit=100`));
    expect(asc).toEqual([...ids({ body: all })].reverse());
    const page1 = (await as(tenantKey).get(`${BASE}?limit=2`)).body;
    expect(page1.pagination.hasMore).toBe(true);
    const page2 = (await as(tenantKey).get(`${BASE}?limit=2&cursor=${page1.pagination.nextCursor}`)).body;
    expect(ids({ body: page2 })).toEqual(ids({ body: all }).slice(2, 4));
    let res = await as(tenantKey).get(`${BASE}?status=deleted`);
    expectProblem(res, 400);
    expect(paths(res)).toEqual(['query.status']);
    res = await as(tenantKey).get(`${BASE}?merchantId=nope&livemode=maybe`);
    expectProblem(res, 400);
    expect(paths(res)).toEqual(['query.livemode', 'query.merchantId']);
  });

  test('delete is a soft delete: 404 afterwards for every read and move, gone from lists, audited', async () => {
    const gone = await create(merchantKey, bankBody({ label: 'To delete' }));
    const res = await as(merchantKey).delete(`${BASE}/${gone.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...gone, updatedAt: iso(h.clock.now().getTime()), deletedAt: iso(h.clock.now().getTime()) });
    expectProblem(await as(merchantKey).get(`${BASE}/${gone.id}`), 404);
    expectProblem(await as(tenantKey).get(`${BASE}/${gone.id}`), 404);
    expectProblem(await as(merchantKey).delete(`${BASE}/${gone.id}`), 404);
    expectProblem(await as(merchantKey).patch(`${BASE}/${gone.id}`, { label: 'Back' }), 404);
    expectProblem(await as(tenantKey).post(`${BASE}/${gone.id}/suspend`), 404);
    expect(ids(await as(tenantKey).get(`${BASE}?limit=100`))).not.toContain(gone.id);
    await expect(use(gone.id)).rejects.toMatchObject({ status: 404 });
    expect((await auditOf(gone.id)).map((a) => a.action)).toEqual(['withdrawal_method.created', 'withdrawal_method.deleted']);
    // a tenant deletes too
    const byTenant = await create(tenantKey, bankBody({ merchantId, label: 'Tenant deletes' }));
    expect((await as(tenantKey).delete(`${BASE}/${byTenant.id}`)).body.data.deletedAt).not.toBeNull();
  });

  test('no response and no audit entry ever holds a full IBAN or account number', async () => {
    expect(responses.length).toBeGreaterThan(50);
    for (const text of responses) for (const secret of SECRETS) expect(text).not.toContain(secret);
    const entries = (await h.rt.db.models.AuditEntry.findAll({ where: { targetType: 'withdrawal_method' } })).map((r) =>
      JSON.stringify(r.get({ plain: true })),
    );
    expect(entries.length).toBeGreaterThan(20);
    for (const entry of entries) for (const secret of SECRETS) expect(entry).not.toContain(secret);
    const rows = (await h.rt.db.models.MerchantWithdrawalMethod.findAll()).map((r) => JSON.stringify(r.get({ plain: true })));
    for (const row of rows) for (const secret of SECRETS) expect(row).not.toContain(secret);
  });
});
