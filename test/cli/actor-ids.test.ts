import os from 'node:os';
import { Op } from 'sequelize';
import { withRuntimeOf, dialectName } from '../helpers/db';
import { useCliSandbox } from '../helpers/cli';
import { withdrawalsOfSandbox } from '../helpers/withdrawals';
import { operatorUserId } from '../../src/services/access/operators';
import { isUuid } from '../../src/db/scoped';

/**
 * Issue 20 item 14, "who did it is not an id". The specification types createdBy, approvedBy, … as the uuid of the
 * issuing user or API key. The operator at the terminal acts as a platform user of its OS account (or --operator /
 * PAYPLANE_OPERATOR), created on first use with externalIdpId os:<account>. After a CLI scenario (sandbox init, keys,
 * roles, fee schedules and assignments, risk lists, rules, plans and configuration, withdrawals approved, rejected,
 * canceled and executed), every column of every model whose name ends in `By` holds the id of an existing user or API
 * key: the columns are read from the models, so a new table or a new *By column is checked without naming it here.
 * `lockedBy` is left out: it names the worker process holding a job's claim, not who changed a record.
 */

jest.setTimeout(240_000);

/** *By columns that are not "who did it": a job claim's worker */
const NOT_AN_ACTOR = new Set(['lockedBy']);

const s = useCliSandbox();
const cli = s.ok;

let requestWithdrawal: (valueMinor: number) => Promise<string>;

beforeAll(async () => {
  ({ requestWithdrawal } = await withdrawalsOfSandbox(s.db, s.sandbox, 'actor-ids'));
});

describe(`who did it is an id (${dialectName})`, () => {
  test('after a CLI scenario every *By column of every model holds the id of an existing user or API key', async () => {
    const tenant = ['--tenant', s.sandbox.tenantId];
    await cli('keys', 'create', ...tenant, '--name', 'Reporting', '--json');
    await cli('roles', 'create', ...tenant, '--name', 'Viewer', '--permission', 'access:users:view', '--json');
    const schedule = (
      await cli(
        'fee-schedules',
        'create',
        ...tenant,
        '--name',
        'Flat',
        '--transaction-type',
        'payment',
        '--method',
        'fixed',
        '--currency',
        'EUR',
        '--fixed',
        '0.30',
        '--json',
      )
    ).json();
    await cli('fee-schedules', 'activate', schedule.id, '--json');
    await cli(
      'fee-assignments',
      'create',
      '--level',
      'merchant',
      '--target',
      s.sandbox.merchantId,
      '--schedule',
      schedule.id,
      '--currency',
      'EUR',
      '--payment-method',
      'card',
      '--tenant',
      s.sandbox.tenantId,
      '--json',
    );
    const list = (
      await cli('risk', 'lists', 'create', ...tenant, '--name', 'Blocked IPs', '--entry-type', 'ip', '--operator', 'alice', '--json')
    ).json();
    await cli('risk', 'lists', 'add-entry', list.id, '203.0.113.7', ...tenant, '--operator', 'alice', '--json');
    const rule = (
      await cli(
        'risk',
        'rules',
        'create',
        ...tenant,
        '--name',
        'Big amounts',
        '--score-impact',
        '5',
        '--conditions-json',
        '[{"field":"amount","operator":"gt","value":"100000"}]',
        '--operator',
        'bob',
        '--json',
      )
    ).json();
    await cli('risk', 'plans', 'create', ...tenant, '--name', 'Default', '--rules', rule.id, '--json');
    await cli('risk', 'config', 'set', ...tenant, '--challenge-score', '40', '--operator', 'carol', '--json');

    const [toExecute, toReject, toCancel] = [
      await requestWithdrawal(1_000),
      await requestWithdrawal(2_000),
      await requestWithdrawal(3_000),
    ];
    await cli('withdrawals', 'approve', toExecute, '--operator', 'alice', '--json');
    await cli('withdrawals', 'execute', toExecute, '--complete', '--reference', 'BANK-1', '--operator', 'bob', '--json');
    await cli('withdrawals', 'reject', toReject, '--reason', 'Destination not verified', '--operator', 'carol', '--json');
    await cli('withdrawals', 'cancel', toCancel, '--yes', '--json');

    await withRuntimeOf(s.db, async (rt) => {
      const models = Object.values(rt.db.models) as unknown as {
        name: string;
        tableName: string;
        getAttributes(): Record<string, unknown>;
        findAll(o: object): Promise<Record<string, unknown>[]>;
      }[];
      const users = new Set(
        (await rt.db.models.User.findAll({ attributes: ['id'], raw: true })).map((u) => (u as unknown as { id: string }).id),
      );
      const keys = new Set(
        (await rt.db.models.ApiKey.findAll({ attributes: ['id'], raw: true })).map((k) => (k as unknown as { id: string }).id),
      );
      const bad: string[] = [];
      const filled = new Map<string, number>();
      for (const model of models) {
        for (const column of Object.keys(model.getAttributes()).filter((c) => c.endsWith('By') && !NOT_AN_ACTOR.has(c))) {
          const rows = await model.findAll({ attributes: ['id', column], where: { [column]: { [Op.ne]: null } }, raw: true });
          for (const row of rows) {
            const value = String(row[column]);
            filled.set(column, (filled.get(column) ?? 0) + 1);
            if (!isUuid(value) || (!users.has(value) && !keys.has(value)))
              bad.push(`${model.tableName}.${column} of ${String(row.id)}: ${value}`);
          }
        }
      }
      expect(bad).toEqual([]);
      // the scenario reached the columns it is about
      for (const column of ['createdBy', 'approvedBy', 'rejectedBy', 'canceledBy', 'executedBy', 'completedBy', 'updatedBy']) {
        expect([column, (filled.get(column) ?? 0) > 0]).toEqual([column, true]);
      }

      // the operators are platform users named by their OS account, created once each
      const account = os.userInfo().username;
      for (const name of ['alice', 'bob', 'carol', 'merchant-admin', account]) {
        const user = await rt.db.models.User.findByPk(operatorUserId(name));
        expect(user?.get({ plain: true })).toMatchObject({
          layer: 'platform',
          tenantId: null,
          externalIdpId: `os:${name}`,
          status: 'active',
          entityScope: { type: 'all' },
        });
      }
      const { count } = await rt.db.models.User.findAndCountAll({ where: { externalIdpId: { [Op.like]: 'os:%' } } });
      expect(count).toBe(5);
      // records carry the user's id with createdByType user
      const key = await rt.db.models.ApiKey.findOne({ where: { name: 'Reporting' } });
      expect(key?.get({ plain: true })).toMatchObject({ createdBy: operatorUserId(account), createdByType: 'user' });
      // audit entries name the account as well as the user
      const approved = await rt.db.models.AuditEntry.findOne({
        where: { targetId: toExecute, action: { [Op.like]: 'withdrawal.approve%' } },
      });
      expect(approved?.get({ plain: true })).toMatchObject({ actorType: 'user', actorId: operatorUserId('alice'), actorName: 'os:alice' });
    });

    // what the API shows: the audit entry's actor with the account's name, the withdrawal's approver as the user's id
    const entries = (await cli('withdrawals', 'get', toExecute, '--json')).json();
    expect(entries).toMatchObject({
      approvedBy: operatorUserId('alice'),
      executedBy: operatorUserId('bob'),
      completedBy: operatorUserId('bob'),
    });
  });
});
