import { ipAllowed, isValidIpEntry } from '../../src/services/access/authenticate';
import fs from 'node:fs';
import path from 'node:path';
import { MIGRATION_NAMES, migrations } from '../../src/db/migrations';
import * as zod from 'zod';
import { allows, grantable, layerPermissions, permissionCatalog, permissionFixture } from '../../src/domain/permissions';
import { fixturePath } from '../../src/util/paths';
import { parseDatabaseUrl } from '../../src/db/database';
import { parseDuration } from '../../src/services/access/tokens';
import { fingerprint } from '../../src/services/idempotency';
import { apiKeyStatus, generateKeyPair, parseSecretKey, verifySecret } from '../../src/services/api-keys/secrets';
import {
  AuthenticationError,
  BusinessRuleError,
  ConflictError,
  NotFoundError,
  PermissionError,
  ValidationError,
  toProblem,
} from '../../src/domain/errors';
import { redact } from '../../src/util/secrets';
import { isCountry, isCurrency, minorUnits } from '../../src/domain/money';
import { newId } from '../../src/util/ids';

describe('ip allowlists', () => {
  test.each([
    ['127.0.0.1', ['127.0.0.1'], true],
    ['::ffff:127.0.0.1', ['127.0.0.1'], true],
    ['10.1.2.3', ['10.0.0.0/8'], true],
    ['11.1.2.3', ['10.0.0.0/8'], false],
    ['2001:db8::1', ['2001:db8::/32'], true],
    ['2001:db9::1', ['2001:db8::/32'], false],
    ['127.0.0.1', ['2001:db8::/32'], false],
    ['garbage', ['0.0.0.0/0'], false],
  ])('%s against %j is %s', (ip, list, expected) => {
    expect(ipAllowed(ip, list)).toBe(expected);
  });
  test('entries are validated', () => {
    expect(isValidIpEntry('10.0.0.0/8')).toBe(true);
    expect(isValidIpEntry('::1')).toBe(true);
    expect(isValidIpEntry('10.0.0.0/33')).toBe(false);
    expect(isValidIpEntry('example.com')).toBe(false);
  });
});

describe('permissions', () => {
  test('manage implies view of the same resource, nothing else', () => {
    const held = new Set(['payments:payments:manage']);
    expect(allows(held, 'payments:payments:view')).toBe(true);
    expect(allows(held, 'payments:refunds:view')).toBe(false);
    expect(allows(new Set(['payments:payments:view']), 'payments:payments:manage')).toBe(false);
    expect(allows(new Set(['payouts:withdrawals:create']), 'payouts:withdrawals:view')).toBe(false);
  });
  test("grantable = owner layer intersected with the caller's own", () => {
    expect(grantable('merchant', new Set(['payments:payments:manage', 'organization:tenants:manage']))).toEqual([
      'payments:payments:manage',
      'payments:payments:view',
    ]);
    expect(layerPermissions('platform').has('processing:providers:manage')).toBe(true);
    expect(layerPermissions('merchant').has('processing:providers:manage')).toBe(false);
    expect(permissionCatalog().size).toBeGreaterThan(40);
  });
  test('the shipped fixtures/permissions.json matches its schema (the catalog reads it without zod)', () => {
    const parsed = permissionFixture(zod).safeParse(JSON.parse(fs.readFileSync(fixturePath('permissions.json'), 'utf8')));
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(permissionFixture(zod).safeParse({ permissions: [{ code: 'payments', layers: ['merchant'], description: 'x' }] }).success).toBe(
      false,
    );
  });
});

describe('keys', () => {
  test('generated pairs share a public prefix; only the hash verifies', () => {
    const k = generateKeyPair(true);
    expect(k.secretKey).toMatch(/^sk_live_[A-Za-z0-9]{56}$/);
    expect(k.publicKey).toBe(`pk_live_${k.prefix}`);
    expect(parseSecretKey(k.secretKey)).toEqual({ livemode: true, prefix: k.prefix });
    expect(verifySecret(k.secretKey, k.secretHash)).toBe(true);
    expect(verifySecret(k.secretKey + 'x', k.secretHash)).toBe(false);
    expect(k.secretHash).not.toContain(k.secretKey.slice(8));
  });
  test('status is derived from revocation and expiry', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(apiKeyStatus({ status: 'active', expiresAt: null }, now)).toBe('active');
    expect(apiKeyStatus({ status: 'active', expiresAt: now }, now)).toBe('expired');
    expect(apiKeyStatus({ status: 'revoked', expiresAt: null }, now)).toBe('revoked');
  });
});

describe('small parsers', () => {
  test('database URLs', () => {
    expect(parseDatabaseUrl('postgres://u@h:5432/db')).toEqual({ dialect: 'postgres', location: 'postgres://u@h:5432/db' });
    expect(parseDatabaseUrl('sqlite::memory:')).toEqual({ dialect: 'sqlite', location: ':memory:' });
    expect(parseDatabaseUrl('sqlite:/tmp/x.db').location).toBe('/tmp/x.db');
    expect(() => parseDatabaseUrl('mysql://secret:pw@h/db')).toThrow(/\*\*\*/);
  });
  test('durations', () => {
    expect(parseDuration('90s')).toBe(90);
    expect(parseDuration('1h')).toBe(3600);
    expect(parseDuration('7d')).toBe(604800);
    expect(() => parseDuration('1y')).toThrow(ValidationError);
    expect(() => parseDuration('0m')).toThrow(ValidationError);
  });
  test('idempotency fingerprints ignore key order, not values', () => {
    expect(fingerprint('POST', '/v1/x', { a: 1, b: [1, 2] })).toBe(fingerprint('POST', '/v1/x', { b: [1, 2], a: 1 }));
    expect(fingerprint('POST', '/v1/x', { a: 1 })).not.toBe(fingerprint('POST', '/v1/x', { a: 2 }));
    expect(fingerprint('POST', '/v1/x', {})).not.toBe(fingerprint('POST', '/v1/y', {}));
  });
  test('money helpers', () => {
    expect(isCurrency('EUR')).toBe(true);
    expect(isCurrency('XYZ')).toBe(false);
    expect(minorUnits('JPY')).toBe(0);
    expect(minorUnits('BHD')).toBe(3);
    expect(isCountry('DE')).toBe(true);
    expect(isCountry('ZZ')).toBe(false);
  });
  test('ids are time-ordered, distinct and version 7, many within one millisecond', () => {
    // more than one pool of random bytes (256 ids), so that the pool is refilled on the way
    const ids = Array.from({ length: 2_000 }, newId);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // the time part is the clock's
    const ms = parseInt(ids[ids.length - 1].replace(/-/g, '').slice(0, 12), 16);
    expect(Math.abs(ms - Date.now())).toBeLessThan(60_000);
  });
});

describe('errors', () => {
  test('each category maps to its status and exit code', () => {
    const cases: Array<[Error & { status: number; exitCode: number }, number, number]> = [
      [new ValidationError('x'), 400, 2],
      [new AuthenticationError(), 401, 3],
      [new PermissionError('x'), 403, 3],
      [new NotFoundError('thing', 'id'), 404, 4],
      [new ConflictError('X', 'x'), 409, 5],
      [new BusinessRuleError('X', 'x'), 422, 6],
    ];
    for (const [error, status, exit] of cases) {
      expect(error.status).toBe(status);
      expect(error.exitCode).toBe(exit);
    }
  });
  test('problem details', () => {
    const p = toProblem(ValidationError.field('body.name', 'is required'), '/v1/x', 'req_1');
    expect(p).toEqual({
      type: 'https://payplane.dev/problems/validation-failed',
      title: 'Invalid request',
      status: 400,
      detail: 'body.name: is required',
      instance: '/v1/x',
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'body.name', message: 'is required' }],
      requestId: 'req_1',
    });
  });
  test('redaction removes secret-looking fields at any depth', () => {
    expect(redact({ a: 1, secretKey: 'sk', nested: [{ token: 't', ok: 'v' }], when: new Date(0) })).toEqual({
      a: 1,
      secretKey: '[redacted]',
      nested: [{ token: '[redacted]', ok: 'v' }],
      when: '1970-01-01T00:00:00.000Z',
    });
  });
});

describe('migrations', () => {
  test("no migration drops a column with Sequelize's removeColumn (on SQLite it rebuilds the table and loses its other indexes): dropColumns", () => {
    const dir = path.join(__dirname, '..', '..', 'src', 'db', 'migrations');
    // 0005 rebuilds the indexes of 0001 itself after its removeColumn
    const using = fs
      .readdirSync(dir)
      .filter((f) => f !== '0005_access.ts' && /\bqi\.removeColumn\(/.test(fs.readFileSync(path.join(dir, f), 'utf8')));
    expect(using).toEqual([]);
  });

  test('every migration file is listed once, in order, and loads with its up and down', () => {
    const dir = path.join(__dirname, '..', '..', 'src', 'db', 'migrations');
    const files = fs
      .readdirSync(dir)
      .filter((f) => /^\d{4}_\w+\.ts$/.test(f))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    expect([...MIGRATION_NAMES]).toEqual(files);
    expect(migrations.map((m) => m.name)).toEqual(files);
    for (const name of files) {
      const module = require(path.join(dir, name)) as { up?: unknown; down?: unknown };
      expect([name, typeof module.up, typeof module.down]).toEqual([name, 'function', 'function']);
    }
  });
});
