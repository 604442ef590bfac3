import request from 'supertest';
import { dialectName, testConfig } from '../helpers/db';
import { useCliSandbox } from '../helpers/cli';
import { openRuntime, closeRuntime } from '../../src/runtime';
import { operatorContext } from '../../src/services/access/operators';
import { createApp } from '../../src/http/app';
import { createMerchantRecord } from '../../src/services/organization/records';

const s = useCliSandbox();
const cli = s.cli;
/** a merchant of the sandbox tenant with no profile yet */
let merchantId: string;

beforeAll(async () => {
  const rt = await openRuntime(testConfig(s.db));
  try {
    const op = operatorContext(rt, { level: 'tenant', tenantId: s.sandbox.tenantId, livemode: false });
    merchantId = (await createMerchantRecord(op, { companyId: s.sandbox.companyId, name: 'CLI profiles merchant' })).id;
  } finally {
    await closeRuntime(rt);
  }
});

async function apiGet(path: string) {
  const rt = await openRuntime(testConfig(s.db));
  try {
    return await request(createApp(rt)).get(path).set('Authorization', `Bearer ${s.sandbox.tenantKey.secretKey}`);
  } finally {
    await closeRuntime(rt);
  }
}

describe(`payplane integration-profiles (${dialectName})`, () => {
  test('create, list, get, update; validation names the flag; duplicates exit 5', async () => {
    const created = await cli(
      'integration-profiles',
      'create',
      '--merchant',
      merchantId,
      '--mode',
      'checkout',
      '--session-lifetime',
      '3600',
      '--cascading',
      '--max-decline-attempts',
      '2',
      '--cascade-policy',
      '{"onCodes":["05"]}',
      '--return-url',
      'https://shop.example.com/back',
      '--json',
    );
    expect(created.status).toBe(0);
    const profile = created.json();
    expect(profile).toMatchObject({
      tenantId: s.sandbox.tenantId,
      merchantId,
      mode: 'checkout',
      status: 'enabled',
      sessionLifetime: 3600,
      cascadingEnabled: true,
      maxDeclineAttempts: 2,
      cascadePolicy: { onCodes: ['05'] },
      returnUrl: 'https://shop.example.com/back',
      defaultLocale: null,
    });

    const [duplicate, invalid] = await Promise.all([
      cli('integration-profiles', 'create', '--merchant', merchantId, '--mode', 'checkout', '--session-lifetime', '600', '--json'),
      cli(
        'integration-profiles',
        'create',
        '--merchant',
        merchantId,
        '--mode',
        'api',
        '--session-lifetime',
        '10',
        '--cascade-policy',
        '[1]',
        '--json',
      ),
    ]);
    expect(duplicate.status).toBe(5);
    expect(duplicate.json().error).toMatchObject({ code: 'INTEGRATION_PROFILE_EXISTS', status: 409 });
    expect(invalid.status).toBe(2);
    expect(
      invalid
        .json()
        .error.errors.map((e: { path: string }) => e.path)
        .sort(),
    ).toEqual(['--cascade-policy', '--session-lifetime']);

    const [listed, got, updated] = await Promise.all([
      cli('integration-profiles', 'list', '--tenant', s.sandbox.tenantId, '--merchant', merchantId, '--json'),
      cli('integration-profiles', 'get', profile.id),
      cli(
        'integration-profiles',
        'update',
        profile.id,
        '--status',
        'disabled',
        '--no-cascading',
        '--return-url',
        'null',
        '--default-locale',
        'de-DE',
        '--json',
      ),
    ]);
    expect(listed.status).toBe(0);
    expect(listed.json().data.map((p: { id: string }) => p.id)).toEqual([profile.id]);
    expect(got.status).toBe(0);
    expect(got.stdout).toContain(profile.id);
    expect(got.stdout).toMatch(/sessionLifetime\s+3600 s/);
    expect(updated.status).toBe(0);
    expect(updated.json()).toMatchObject({
      id: profile.id,
      status: 'disabled',
      cascadingEnabled: false,
      returnUrl: null,
      defaultLocale: 'de-DE',
      sessionLifetime: 3600,
    });

    // what the CLI made is what the API serves
    const res = await apiGet(`/v1/admin/integration-profiles/${profile.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(updated.json());
  });
});
