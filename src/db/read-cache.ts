import { LRUCache } from 'lru-cache';
import type { ModelStatic, Transaction } from 'sequelize';

/** How long a process may serve a cached row that another process changed (PAYPLANE_AUTH_CACHE_MS, 0 to 2000). */
export function readCacheTtlMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.PAYPLANE_AUTH_CACHE_MS ?? 1000);
  return Number.isFinite(value) ? Math.min(Math.max(Math.trunc(value), 0), 2000) : 1000;
}

/**
 * Short-lived copies of the rows every authenticated request reads (an API key by its prefix, the status of its
 * tenant and merchant). A write to a watched table through this process empties the cache at once and again when its
 * transaction commits; a read that started before a write never stores its now-stale answer. Other processes see a
 * change when their copy expires: after the TTL (at most 2 s).
 */
export class ReadCache {
  private generation = 0;
  private readonly entries: LRUCache<string, { value: unknown }> | null;
  private readonly loading = new Map<string, Promise<unknown>>();

  constructor(ttlMs: number, max = 10_000) {
    this.entries = ttlMs > 0 ? new LRUCache({ max, ttl: ttlMs }) : null;
  }

  async read<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (!this.entries) return load();
    const hit = this.entries.get(key);
    if (hit) return hit.value as T;
    // concurrent misses of one key share one load
    const pending = this.loading.get(key);
    if (pending) return pending as Promise<T>;
    const generation = this.generation;
    const loading = load().then((value) => {
      if (generation === this.generation) this.entries?.set(key, { value });
      return value;
    });
    this.loading.set(key, loading);
    try {
      return await loading;
    } finally {
      this.loading.delete(key);
    }
  }

  /** The value kept for `key`, if any (nothing is loaded). */
  peek<T>(key: string): T | undefined {
    return this.entries?.get(key)?.value as T | undefined;
  }

  invalidate(): void {
    this.generation++;
    this.loading.clear();
    this.entries?.clear();
  }

  /** Empties the cache on every create, update and delete of these tables' rows, and when that transaction commits. */
  watch(models: ModelStatic<never>[]): void {
    const onWrite = (...args: unknown[]) => {
      this.invalidate();
      const options = args[args.length - 1] as { transaction?: Transaction | null } | undefined;
      options?.transaction?.afterCommit(() => this.invalidate());
    };
    const hooks = [
      'afterCreate',
      'afterBulkCreate',
      'afterUpdate',
      'afterBulkUpdate',
      'afterDestroy',
      'afterBulkDestroy',
      'afterUpsert',
    ] as const;
    for (const model of models) for (const hook of hooks) model.addHook(hook as never, onWrite as never);
  }
}
