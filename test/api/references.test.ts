import { operations } from '../../src/api/index';
import type { Operation } from '../../src/api/registry';
import { REFERENCE_KINDS, isIdLike, namedIds, schemaFields, type SchemaField } from '../../src/api/references';
import { REFERENCE_MODELS } from '../../src/services/references';

// Every id of a request names its kind of record (src/api/references.ts), generated from the registry: an id-like
// field (format uuid, or a name ending in Id, Ids or _id) of any operation's body or query, nested objects and arrays
// included, without refersTo or notChecked fails here, so a new field is looked up in the caller's scope from the start.

const ops = operations as Operation[];
const fieldsOf = (op: Operation): (SchemaField & { op: Operation })[] =>
  [...(op.query ? schemaFields(op.query, 'query') : []), ...(op.body && !op.upload ? schemaFields(op.body, 'body') : [])].map((f) => ({
    ...f,
    op,
  }));

describe('ids of request schemas', () => {
  const all = ops.flatMap(fieldsOf);

  test('every id-like field of every request body and query declares the record it names (or why it is not looked up)', () => {
    const undeclared = all
      .filter((f) => isIdLike(f) && f.refersTo === undefined && f.notChecked === undefined)
      .map((f) => `${f.op.id}: ${f.path}: wrap its schema in refersTo(kind, …) or notChecked(why, …) (src/api/references.ts)`);
    expect(undeclared).toEqual([]);
  });

  test('the walk finds the ids of nested objects and arrays, and a declaration only on string fields', () => {
    const declared = all.filter((f) => f.refersTo !== undefined).map((f) => `${f.op.id} ${f.path}`);
    expect(declared).toEqual(
      expect.arrayContaining([
        'createTerminal body.providerCostScheduleId',
        'updateTerminal body.providerCostScheduleId',
        'inviteUser body.roleIds[]',
        'createRoutingRule body.outcome.terminals[]',
        'createRoutingRule body.outcome.splits[].terminalId',
        'updateAntifraudPlan body.ruleIds[]',
        'listPayments query.merchantId',
        'createFeeAssignment body.targetEntityId',
      ]),
    );
    expect(declared.length).toBeGreaterThan(60);
  });

  test('every kind of record has a table to be looked up in (or is the shared provider catalog)', () => {
    const kinds = new Set(
      all.flatMap((f) => (f.refersTo === undefined ? [] : typeof f.refersTo === 'string' ? [f.refersTo] : Object.values(f.refersTo.kinds))),
    );
    for (const kind of kinds) expect(REFERENCE_KINDS).toContain(kind);
    expect(
      Object.entries(REFERENCE_MODELS)
        .filter(([, model]) => model === null)
        .map(([kind]) => kind),
    ).toEqual(['providerIntegration']);
  });

  test('the ids a parsed request names, with the paths a refusal names', () => {
    const op = ops.find((o) => o.id === 'createRoutingRule')!;
    const [t1, t2, m1] = [
      '11111111-1111-4111-8111-111111111111',
      '22222222-2222-4222-8222-222222222222',
      '33333333-3333-4333-8333-333333333333',
    ];
    const body = op.body!.parse({
      name: 'r',
      conditions: { merchantIds: [m1] },
      outcome: {
        type: 'split',
        splits: [
          { terminalId: t1, weight: 1 },
          { terminalId: t2, weight: 2 },
        ],
      },
    });
    expect(namedIds(op.body, body, 'body')).toEqual([
      { path: 'body.conditions.merchantIds[0]', kind: 'merchant', id: m1, refusal: 400 },
      { path: 'body.outcome.splits[0].terminalId', kind: 'terminal', id: t1, refusal: 400 },
      { path: 'body.outcome.splits[1].terminalId', kind: 'terminal', id: t2, refusal: 400 },
    ]);
    const fees = ops.find((o) => o.id === 'createFeeAssignment')!;
    const assignment = (level: string) =>
      fees.body!.parse({ level, targetEntityId: t1, feeScheduleId: t2, currency: 'EUR', paymentMethod: 'card' });
    expect(namedIds(fees.body, assignment('channel'), 'body').map((n) => `${n.path} ${n.kind}`)).toEqual([
      'body.targetEntityId channel',
      'body.feeScheduleId feeSchedule',
    ]);
    expect(namedIds(fees.body, assignment('platform'), 'body').map((n) => `${n.path} ${n.kind}`)).toEqual([
      'body.feeScheduleId feeSchedule',
    ]);
  });
});
