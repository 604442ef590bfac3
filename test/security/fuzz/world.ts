import request from 'supertest';
import type { Operation } from '../../../src/api/registry';
import type { MoneyHarness } from '../../helpers/money';
import type { GenContext } from './schema';

export type CredentialName = 'merchant' | 'tenant' | 'platform' | 'clientSecret';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const POOL_CAP = 200;

interface Harvested {
  /** values of the path parameters the list was read with */
  params: Record<string, string>;
  id: string;
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
function plural(word: string): string {
  if (word.endsWith('y')) return `${word.slice(0, -1)}ies`;
  if (word.endsWith('s')) return word;
  return `${word}s`;
}
/** merchantId -> merchants, withdrawalMethodIds -> withdrawal-methods, endpoint_id -> endpoints */
function collectionOf(name: string): string | undefined {
  const base = name.replace(/_id$/, '').replace(/Ids?$/, '');
  if (base === name || base === '') return undefined;
  return plural(kebab(base));
}

/**
 * What the fuzzer knows of the running app: the credentials, the ids of real records (harvested from every list
 * and from every successful answer) and the ids it must never aim at (its own credentials and the sandbox tenant,
 * company and merchant they belong to).
 */
export class FuzzWorld implements GenContext {
  readonly protectedIds: Set<string>;
  /** list path template (as in the registry) -> records read from it */
  private readonly lists = new Map<string, Harvested[]>();
  /** field name (merchantId, brand, documents, ...) -> values seen */
  private readonly byName = new Map<string, string[]>();
  private readonly all: string[] = [];
  private readonly allSet = new Set<string>();
  private sessions: { id: string; secret: string; uses: number }[] = [];

  constructor(
    readonly h: MoneyHarness,
    readonly operations: Operation[],
  ) {
    const s = h.sandbox;
    this.protectedIds = new Set([s.tenantId, s.companyId, s.merchantId, s.tenantKey.id, s.merchantKey.id, s.platformUserId]);
  }

  secretOf(credential: Exclude<CredentialName, 'clientSecret'>): string {
    const s = this.h.sandbox;
    return credential === 'merchant' ? s.merchantKey.secretKey : credential === 'tenant' ? s.tenantKey.secretKey : s.platformToken;
  }

  /** A checkout session's clientSecret with rate budget left (60 requests a minute per session): a fresh session every 40 uses. */
  async clientSecret(): Promise<{ id: string; secret: string }> {
    let session = this.sessions.find((x) => x.uses < 40);
    if (!session) {
      const res = await this.h.as(this.secretOf('merchant')).post('/v1/checkout-sessions', {
        amount: { currency: 'EUR', valueMinor: 1234 },
        successUrl: 'https://shop.example/ok',
        cancelUrl: 'https://shop.example/cancel',
      });
      if (res.status !== 201) throw new Error(`checkout session for a clientSecret: ${res.status} ${JSON.stringify(res.body)}`);
      session = { id: res.body.data.id, secret: res.body.data.clientSecret, uses: 0 };
      this.sessions.push(session);
      this.observe(res.body, '/v1/checkout-sessions', {});
    }
    session.uses++;
    return session;
  }

  private addName(name: string, value: string): void {
    let pool = this.byName.get(name);
    if (!pool) this.byName.set(name, (pool = []));
    if (pool.length < POOL_CAP && !pool.includes(value)) pool.push(value);
  }

  private addId(id: string): void {
    if (!this.allSet.has(id) && this.all.length < POOL_CAP * 10) {
      this.allSet.add(id);
      this.all.push(id);
    }
  }

  /** Learns ids and named values from an answer; records of a list (or a create on that path) join its pool. */
  observe(body: unknown, listTemplate?: string, params: Record<string, string> = {}): void {
    const data = (body as { data?: unknown })?.data;
    if (data === undefined) return;
    const records = Array.isArray(data) ? data : [data];
    if (listTemplate) {
      let list = this.lists.get(listTemplate);
      if (!list) this.lists.set(listTemplate, (list = []));
      for (const r of records) {
        const id = (r as { id?: unknown })?.id;
        if (typeof id === 'string' && list.length < POOL_CAP && !list.some((x) => x.id === id)) list.push({ params, id });
      }
    }
    this.walk(records, undefined, 0);
  }

  private walk(value: unknown, key: string | undefined, depth: number): void {
    if (depth > 6 || value === null || value === undefined) return;
    if (Array.isArray(value)) {
      for (const item of value.slice(0, 50)) {
        if (key && item && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string')
          this.addName(key, (item as { id: string }).id);
        this.walk(item, key, depth + 1);
      }
      return;
    }
    if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (typeof v === 'string') {
          if (UUID.test(v)) this.addId(v);
          if (v.length <= 200) this.addName(k, v);
        } else {
          this.walk(v, k, depth + 1);
        }
      }
    }
  }

  /** Real values for a field or parameter of this name. */
  idsFor(name: string): string[] {
    const out = [...(this.byName.get(name) ?? [])];
    const collection = collectionOf(name);
    if (collection) {
      out.push(...(this.byName.get(collection.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase())) ?? []));
      for (const [template, records] of this.lists) {
        const last = template.split('/').pop()!;
        if (!last.startsWith('{') && last.endsWith(collection)) out.push(...records.map((r) => r.id));
      }
    }
    return [...new Set(out)];
  }

  allIds(): string[] {
    return this.all;
  }

  /** Same as idsFor, without the fuzzer's own credentials and the records they belong to. */
  pathIdsFor(name: string): string[] {
    return this.idsFor(name).filter((id) => !this.protectedIds.has(id));
  }

  /**
   * Real combinations of the path parameters of an operation: for its deepest parameter read from a list (the
   * path up to that parameter), the records of that list with the parameters they were read with.
   */
  tuplesFor(path: string): Record<string, string>[] {
    const segments = path.split('/');
    for (let i = segments.length - 1; i >= 0; i--) {
      const m = /^\{(.+)\}$/.exec(segments[i]);
      if (!m) continue;
      const list = this.lists.get(segments.slice(0, i).join('/'));
      if (!list?.length) continue;
      return list.map((r) => ({ ...r.params, [m[1]]: r.id })).filter((t) => Object.values(t).every((v) => !this.protectedIds.has(v)));
    }
    return [];
  }

  listTemplates(): string[] {
    return [...this.lists.keys()];
  }

  /** Reads every list (and the lists under each record found) with every credential its operation allows. */
  async harvest(): Promise<void> {
    const lists = this.operations.filter((op) => op.kind === 'list' && op.method === 'get');
    const singles = this.operations.filter((op) => op.kind === 'single' && op.method === 'get' && op.path.includes('{'));
    for (let round = 0; round < 2; round++) {
      for (const op of lists) {
        const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        const tuples = names.length ? this.tuplesFor(op.path).slice(0, 4) : [{}];
        for (const tuple of tuples) {
          if (names.some((n) => !(n in tuple))) continue;
          const url = op.path.replace(/\{([^}]+)\}/g, (_m, n: string) => encodeURIComponent((tuple as Record<string, string>)[n]));
          for (const level of op.levels) {
            const credential = level === 'M' ? 'merchant' : level === 'T' ? 'tenant' : 'platform';
            const res = await request(this.h.app)
              .get(`${url}?limit=100`)
              .set('Authorization', `Bearer ${this.secretOf(credential)}`);
            if (res.status === 200) this.observe(res.body, op.path, tuple);
          }
        }
      }
      for (const op of singles) {
        for (const tuple of this.tuplesFor(op.path).slice(0, 3)) {
          const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
          if (names.some((n) => !(n in tuple))) continue;
          const url = op.path.replace(/\{([^}]+)\}/g, (_m, n: string) => encodeURIComponent(tuple[n]));
          const credential = op.levels.includes('T') ? 'tenant' : op.levels.includes('M') ? 'merchant' : 'platform';
          const res = await request(this.h.app)
            .get(url)
            .set('Authorization', `Bearer ${this.secretOf(credential)}`);
          if (res.status === 200) this.observe(res.body);
        }
      }
    }
  }

  /** Throws when one of the fuzzer's own credentials stopped working (an operation reached them after all). */
  async checkCredentials(after: string): Promise<void> {
    const checks: [Exclude<CredentialName, 'clientSecret'>, string][] = [
      ['merchant', '/v1/api-keys?limit=1'],
      ['tenant', '/v1/api-keys?limit=1'],
      ['platform', '/v1/admin/tenants?limit=1'],
    ];
    for (const [credential, url] of checks) {
      const res = await request(this.h.app)
        .get(url)
        .set('Authorization', `Bearer ${this.secretOf(credential)}`);
      if (res.status !== 200)
        throw new Error(`after ${after}, the ${credential} credential answers ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
}
