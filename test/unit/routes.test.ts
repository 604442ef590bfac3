import { RouteTable } from '../../src/http/routes';
import { operations } from '../../src/api';

// The route table of the /v1 operations (src/http/routes.ts) keeps Express's matching rules: the API's behaviour
// through HTTP is covered by test/api/http.test.ts; these are its rules one by one, on the real registry.

const table = new RouteTable(operations);
const idOf = (method: string, path: string) => table.find(method, path)?.op.id ?? null;
const byPath = (method: string, path: string) => operations.find((op) => op.method === method && op.path === path)!.id;

describe('the route table of the /v1 operations', () => {
  test('every declared operation is found by its own method and path, with its parameters', () => {
    for (const op of operations) {
      const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => `value-of-${name}`);
      const found = table.find(op.method.toUpperCase(), path);
      expect([op.id, found?.op.id]).toEqual([op.id, op.id]);
      expect(found!.params).toEqual(Object.fromEntries(names.map((n) => [n, `value-of-${n}`])));
    }
  });

  test('literal segments win over parameters, whatever the order of declaration', () => {
    expect(idOf('GET', '/v1/api-keys/grantable-permissions')).toBe(byPath('get', '/v1/api-keys/grantable-permissions'));
    expect(idOf('GET', '/v1/api-keys/01a2')).toBe(byPath('get', '/v1/api-keys/{id}'));
  });

  test('case, one trailing slash and HEAD as Express takes them; two slashes or an empty parameter name nothing', () => {
    const get = byPath('get', '/v1/payments/{id}');
    expect(idOf('GET', '/V1/Payments/abc')).toBe(get);
    expect(table.find('GET', '/V1/Payments/AbC')!.params).toEqual({ id: 'AbC' });
    expect(idOf('GET', '/v1/payments/abc/')).toBe(get);
    expect(idOf('HEAD', '/v1/payments/abc')).toBe(get);
    expect(idOf('GET', '/v1/payments/abc//')).toBeNull();
    expect(idOf('GET', '/v1/payments//')).toBeNull();
    expect(idOf('GET', '/v1//abc')).toBeNull();
    // the Kelvin sign lower-cases to "k", but Express's case-insensitive expressions do not take it for one
    expect(idOf('GET', '/v1/api-KEYS/abc')).toBe(byPath('get', '/v1/api-keys/{id}'));
    expect(idOf('GET', '/v1/api-\u212aeys/abc')).toBeNull();
    expect(idOf('GET', '')).toBeNull();
    expect(idOf('GET', 'v1/payments')).toBeNull();
  });

  test("parameters are decoded as URI components; a malformed one is the client's 400", () => {
    expect(table.find('GET', '/v1/payments/a%20b%2Fc')!.params).toEqual({ id: 'a b/c' });
    let error: unknown;
    try {
      table.find('GET', '/v1/payments/%E0%A4%A');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ status: 400, message: "Failed to decode param '%E0%A4%A'" });
  });

  test('the methods of a path, for the Allow header of a 405', () => {
    expect(table.find('PUT', '/v1/payments')).toBeNull();
    expect(table.allowed('/v1/payments')).toEqual(['GET']);
    expect(table.allowed('/v1/checkout-sessions/abc')).toEqual(['GET', 'PATCH']);
    expect(table.allowed('/v1/nothing-here')).toEqual([]);
  });
});
