import { describe, expect, it } from 'vitest';
import { ownerPool, type OwnerPool } from './pool.js';
import { PoolCache } from './pool-cache.js';

/** A keypool that answers with the current version of the owner's pool, or fails while down. */
function keypool() {
  const world = { down: false, version: 1, loads: 0 };
  const load = (ownerId: string): Promise<OwnerPool> => {
    world.loads += 1;
    return world.down
      ? Promise.reject(new Error('keypool unavailable'))
      : Promise.resolve(
          ownerPool({ ownerId, version: String(world.version), config: {}, ownerIsRoot: false, keys: [] }),
        );
  };
  return { world, load };
}

describe('PoolCache', () => {
  it('keeps serving the last pool that loaded while reloads fail, and says so', async () => {
    const { world, load } = keypool();
    const clock = { now: 0 };
    const kept: string[] = [];
    const cache = new PoolCache(load, {
      maxAgeMs: 30_000,
      retryMs: 5_000,
      now: () => clock.now,
      onKept: (ownerId) => kept.push(ownerId),
    });
    expect((await cache.get('7')).version).toBe('1');

    world.down = true;
    cache.drop('7');
    expect((await cache.get('7')).version).toBe('1');
    clock.now = 31_000;
    expect((await cache.get('7')).version).toBe('1');
    expect(cache.staleOwners()).toBe(1);
    expect(kept).toEqual(['7']);

    // Within the retry pause the kept pool answers without another load.
    const loads = world.loads;
    await cache.get('7');
    expect(world.loads).toBe(loads);

    world.down = false;
    world.version = 2;
    clock.now = 37_000;
    expect((await cache.get('7')).version).toBe('2');
    expect(cache.staleOwners()).toBe(0);
  });

  it('fails for an owner never loaded, and tries again on the next call', async () => {
    const { world, load } = keypool();
    world.down = true;
    const cache = new PoolCache(load, {
      maxAgeMs: 30_000,
      retryMs: 5_000,
      now: () => 0,
      onKept: () => undefined,
    });
    await expect(cache.get('8')).rejects.toThrow(/unavailable/);
    world.down = false;
    expect((await cache.get('8')).version).toBe('1');
  });
});
