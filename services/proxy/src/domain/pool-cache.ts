import type { OwnerPool } from './pool.js';

export interface PoolCacheOptions {
  /** A pool is reloaded after this long (backstop for lost invalidation events). */
  maxAgeMs: number;
  /** After a failed reload, the kept pool serves this long before the next try. */
  retryMs: number;
  now: () => number;
  /** Told once each time an owner starts being served from a kept pool (and why). */
  onKept: (ownerId: string, error: unknown) => void;
}

/**
 * Owner pools in memory, loaded at most once at a time per owner. A reload that fails (keypool or
 * its database down) keeps the last pool that loaded: AI traffic goes on with the keys it had,
 * and the owner counts as stale (health and metrics say so) until a reload succeeds. Only an
 * owner never loaded has no pool to give (the load's error).
 */
export class PoolCache {
  private readonly entries = new Map<string, { until: number; pool: Promise<OwnerPool> }>();
  private readonly kept = new Map<string, OwnerPool>();
  private readonly stale = new Set<string>();

  constructor(
    private readonly load: (ownerId: string) => Promise<OwnerPool>,
    private readonly options: PoolCacheOptions,
  ) {}

  get(ownerId: string): Promise<OwnerPool> {
    const now = this.options.now();
    const entry = this.entries.get(ownerId);
    if (entry && now < entry.until) {
      return entry.pool;
    }
    const pool = this.load(ownerId).then(
      (loaded) => {
        this.kept.set(ownerId, loaded);
        this.stale.delete(ownerId);
        return loaded;
      },
      (error: unknown) => {
        const kept = this.kept.get(ownerId);
        const current = this.entries.get(ownerId);
        if (!kept) {
          if (current?.pool === pool) {
            this.entries.delete(ownerId);
          }
          throw error;
        }
        if (!this.stale.has(ownerId)) {
          this.stale.add(ownerId);
          this.options.onKept(ownerId, error);
        }
        if (current?.pool === pool) {
          current.until = this.options.now() + this.options.retryMs;
        }
        return kept;
      },
    );
    this.entries.set(ownerId, { until: now + this.options.maxAgeMs, pool });
    return pool;
  }

  /** The owner's keys or config changed: the next call loads its pool again. */
  drop(ownerId: string): void {
    this.entries.delete(ownerId);
  }

  /** Owners served from a kept pool because their last reload failed. */
  staleOwners(): number {
    return this.stale.size;
  }
}
