import request from 'supertest';
import type { Express } from 'express';
import { createApp } from '../../src/http/app';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { ManualClock } from '../../src/domain/clock';
import { createTestRuntime, type TestRuntime } from './db';
import type { AppConfig } from '../../src/config';
import { operatorContext } from '../../src/services/access/operators';
import { createApiKey } from '../../src/services/api-keys/keys';
import { createTenant } from '../../src/services/tenants/tenants';
import { createMerchantRecord } from '../../src/services/organization/records';

export interface ApiHarness extends TestRuntime {
  app: Express;
  clock: ManualClock;
  /** a sandbox tenant with its keys and a platform token */
  sandbox: SandboxCredentials;
  /** supertest bound to the app, with a bearer credential */
  as(credential: string): Caller;
}

export interface Caller {
  get(path: string): request.Test;
  post(path: string, body?: object): request.Test;
  patch(path: string, body?: object): request.Test;
  put(path: string, body?: object): request.Test;
  delete(path: string): request.Test;
}

export interface ApiHarnessOptions {
  config?: Partial<AppConfig>;
  /** where the harness's clock starts */
  start?: string;
}

export async function createApiHarness(options: ApiHarnessOptions = {}): Promise<ApiHarness> {
  const clock = new ManualClock(options.start ?? '2026-03-01T12:00:00.000Z');
  const base = await createTestRuntime({ clock, config: options.config });
  const app = createApp(base.rt);
  const sandbox = await createSandbox(base.rt);
  const as = (credential: string): Caller => {
    const auth = (t: request.Test) => t.set('Authorization', `Bearer ${credential}`);
    return {
      get: (path) => auth(request(app).get(path)),
      post: (path, body) => (body === undefined ? auth(request(app).post(path)) : auth(request(app).post(path)).send(body)),
      patch: (path, body) => auth(request(app).patch(path)).send(body ?? {}),
      put: (path, body) => auth(request(app).put(path)).send(body ?? {}),
      delete: (path) => auth(request(app).delete(path)),
    };
  };
  return { ...base, app, clock, sandbox, as };
}

/** The API harness a test file shares, with a place for what must end before it closes. */
export interface SharedApiHarness extends ApiHarness {
  /**
   * Runs fn after all the file's tests, before the harness closes (jest runs after-all hooks in the order they are
   * declared, so a file's own afterAll would find the harness closed).
   */
  beforeClose(fn: () => Promise<unknown> | unknown): void;
}

/**
 * Registers the API harness a test file shares: made before all (the returned object is filled then), closed after
 * all. `options` may be a function, called in that before-all hook, when they depend on an earlier hook (such as an
 * identity provider's address).
 */
export function useApiHarness(options: ApiHarnessOptions | (() => ApiHarnessOptions) = {}): SharedApiHarness {
  const h = {} as SharedApiHarness;
  const lastSteps: (() => Promise<unknown> | unknown)[] = [];
  const beforeClose = (fn: () => Promise<unknown> | unknown) => void lastSteps.push(fn);
  h.beforeClose = beforeClose;
  beforeAll(async () => {
    Object.assign(h, await createApiHarness(typeof options === 'function' ? options() : options), { beforeClose });
  });
  afterAll(async () => {
    try {
      for (const fn of lastSteps) await fn();
    } finally {
      await h.close?.();
    }
  });
  return h;
}

/** A live-mode tenant key for the sandbox tenant cannot exist (sandbox tenants hold no live keys); this makes a live tenant. */
export async function createLiveTenantKey(h: ApiHarness): Promise<{ tenantId: string; secretKey: string; id: string }> {
  const platform = operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: true });
  const tenant = await createTenant(platform, { name: 'Live tenant', livemode: true });
  const key = await createApiKey(operatorContext(h.rt, { level: 'tenant', tenantId: tenant.id, livemode: true }), { ownerType: 'tenant' });
  return { tenantId: tenant.id, secretKey: key.secretKey, id: key.id };
}

/** A second merchant of the sandbox's company, with a merchant API key of its own (test mode). */
export async function createSecondMerchant(h: ApiHarness, name = 'Second merchant'): Promise<{ merchantId: string; secretKey: string }> {
  const tenant = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  const merchantId = (await createMerchantRecord(tenant, { companyId: h.sandbox.companyId, name, defaultCurrency: 'EUR' })).id;
  const asMerchant = operatorContext(h.rt, { level: 'merchant', tenantId: h.sandbox.tenantId, merchantId, livemode: false });
  return {
    merchantId,
    secretKey: (await createApiKey(asMerchant, { name: `${name} key`, ownerType: 'merchant', livemode: false })).secretKey,
  };
}

export function expectProblem(res: request.Response, status: number, code?: string): void {
  if (res.status !== status || (code && res.body.code !== code)) {
    throw new Error(`expected ${status}${code ? ` ${code}` : ''}, got ${res.status}: ${JSON.stringify(res.body)}`);
  }
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
  if (code) expect(res.body.code).toBe(code);
}
