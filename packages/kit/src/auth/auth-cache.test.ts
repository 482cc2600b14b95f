import type { accounts } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { AuthCache } from './auth-cache.js';

function account(id: bigint, dna = `.1.${id}.`): accounts.Account {
  return { id, dna } as accounts.Account;
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('AuthCache', () => {
  it('answers repeated lookups from memory', async () => {
    let calls = 0;
    const cache = new AuthCache(async () => {
      calls += 1;
      return account(7n);
    }, 30_000);
    await cache.get('h1');
    await cache.get('h1');
    expect(calls).toBe(1);
  });

  it('shares one backend call between concurrent misses of the same key', async () => {
    let calls = 0;
    const gate = deferred<accounts.Account>();
    const cache = new AuthCache(() => {
      calls += 1;
      return gate.promise;
    }, 30_000);
    const both = Promise.all([cache.get('h1'), cache.get('h1')]);
    gate.resolve(account(1n));
    expect((await both).map((a) => a?.id)).toEqual([1n, 1n]);
    expect(calls).toBe(1);
  });

  it('asks again after an invalidation of the account', async () => {
    let calls = 0;
    const cache = new AuthCache(async () => {
      calls += 1;
      return account(7n);
    }, 30_000);
    await cache.get('h1');
    cache.invalidateAccount(7n);
    await cache.get('h1');
    expect(calls).toBe(2);
  });

  it("drops the entries of an account's descendants with the account's own", async () => {
    const byHash: Record<string, accounts.Account> = {
      parent: account(5n, '.1.5.'),
      child: account(8n, '.1.5.8.'),
      grandchild: account(9n, '.1.5.8.9.'),
      cousin: account(55n, '.1.55.'),
    };
    const calls: string[] = [];
    const cache = new AuthCache(async (hash) => {
      calls.push(hash);
      return byHash[hash];
    }, 30_000);
    for (const hash of Object.keys(byHash)) {
      await cache.get(hash);
    }
    cache.invalidateAccount(5n);
    for (const hash of Object.keys(byHash)) {
      await cache.get(hash);
    }
    expect(calls.slice(4).sort()).toEqual(['child', 'grandchild', 'parent']);
  });

  it('expires entries after the TTL backstop', async () => {
    let now = 0;
    let calls = 0;
    const cache = new AuthCache(
      async () => {
        calls += 1;
        return account(7n);
      },
      1_000,
      () => now,
    );
    await cache.get('h1');
    now = 999;
    await cache.get('h1');
    now = 1_000;
    await cache.get('h1');
    expect(calls).toBe(2);
  });

  it('never stores an answer that was in flight when an invalidation arrived', async () => {
    let calls = 0;
    const gate = deferred<accounts.Account>();
    const cache = new AuthCache(() => {
      calls += 1;
      return calls === 1 ? gate.promise : Promise.resolve(undefined);
    }, 30_000);
    const stale = cache.get('h1');
    cache.invalidateAccount(7n);
    gate.resolve(account(7n));
    expect((await stale)?.id).toBe(7n);
    expect(await cache.get('h1')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not cache unknown keys', async () => {
    let calls = 0;
    const cache = new AuthCache(async () => {
      calls += 1;
      return undefined;
    }, 30_000);
    await cache.get('nope');
    await cache.get('nope');
    expect(calls).toBe(2);
  });

  it('remembers an unknown key for its short TTL, and forgets it on any account change', async () => {
    let now = 0;
    let calls = 0;
    let known: accounts.Account | undefined = undefined;
    const cache = new AuthCache(
      async () => {
        calls += 1;
        return known;
      },
      30_000,
      () => now,
      500,
    );
    expect(await cache.get('bad')).toBeUndefined();
    expect(await cache.get('bad')).toBeUndefined();
    expect(calls).toBe(1);
    now = 501;
    await cache.get('bad');
    expect(calls).toBe(2);
    known = account(9n);
    cache.invalidateAccount(9n);
    expect((await cache.get('bad'))?.id).toBe(9n);
    expect(calls).toBe(3);
  });

  it('asks every time for unknown keys when the negative TTL is zero', async () => {
    let calls = 0;
    const cache = new AuthCache(async () => {
      calls += 1;
      return undefined;
    }, 30_000);
    await cache.get('bad');
    await cache.get('bad');
    expect(calls).toBe(2);
  });
});
