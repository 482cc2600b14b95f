import type { accounts } from '@gw/proto';

type Account = accounts.Account;

interface Entry {
  account: Account;
  expiresAt: number;
}

/** At most this many unknown keys are remembered (the oldest go first). */
const MAX_UNKNOWN = 10_000;

/**
 * API-key hash → account, answered from memory on the hot path. A miss asks accounts once
 * (concurrent misses for the same hash share one call). Entries leave on gw.account.changed.<id>
 * or after the TTL, the backstop for lost events. An invalidation that lands while a lookup is in
 * flight wins: the stale answer is returned to its caller but never stored.
 */
export class AuthCache {
  private readonly entries = new Map<string, Entry>();
  /** Each account has one key at a time, so an invalidation by id finds its entry directly. */
  private readonly hashByAccount = new Map<bigint, string>();
  private readonly inFlight = new Map<string, Promise<Account | undefined>>();
  /** Unknown keys, briefly: a repeated bad key costs one lookup per `unknownTtlMs`. */
  private readonly unknown = new Map<string, number>();
  private epoch = 0;

  constructor(
    private readonly lookup: (keyHash: string) => Promise<Account | undefined>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly unknownTtlMs = 0,
  ) {}

  async get(keyHash: string): Promise<Account | undefined> {
    const entry = this.entries.get(keyHash);
    if (entry && entry.expiresAt > this.now()) {
      return entry.account;
    }
    this.entries.delete(keyHash);
    if ((this.unknown.get(keyHash) ?? 0) > this.now()) {
      return undefined;
    }
    const pending = this.inFlight.get(keyHash);
    if (pending) {
      return pending;
    }
    const startedAt = this.epoch;
    const fetching = this.lookup(keyHash)
      .then((account) => {
        if (account && startedAt === this.epoch) {
          this.entries.set(keyHash, { account, expiresAt: this.now() + this.ttlMs });
          this.hashByAccount.set(account.id, keyHash);
        } else if (!account && this.unknownTtlMs > 0 && startedAt === this.epoch) {
          this.rememberUnknown(keyHash);
        }
        return account;
      })
      .finally(() => this.inFlight.delete(keyHash));
    this.inFlight.set(keyHash, fetching);
    return fetching;
  }

  /**
   * Drops every cached key of the account (rotation, disable, delete, limits) and of every account
   * below it: a cached entry carries what its ancestors impose (docs/decisions.md §13), so a
   * parent's change must reach its descendants' entries too. A key may have become valid (a
   * rotation to a chosen key): unknown keys are forgotten too. `subtree: false` skips the walk
   * when the change is already known to have reached the accounts below (docs/decisions.md §13).
   */
  invalidateAccount(accountId: bigint, keyHash?: string, subtree = true): void {
    this.epoch += 1;
    this.unknown.clear();
    if (keyHash) {
      this.entries.delete(keyHash);
    }
    const cached = this.hashByAccount.get(accountId);
    if (cached) {
      this.entries.delete(cached);
      this.hashByAccount.delete(accountId);
    }
    if (!subtree) {
      return;
    }
    const segment = `.${accountId}.`;
    for (const [hash, entry] of this.entries) {
      if (entry.account.dna.includes(segment)) {
        this.entries.delete(hash);
        this.hashByAccount.delete(entry.account.id);
      }
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private rememberUnknown(keyHash: string): void {
    this.unknown.delete(keyHash);
    this.unknown.set(keyHash, this.now() + this.unknownTtlMs);
    if (this.unknown.size > MAX_UNKNOWN) {
      const oldest = this.unknown.keys().next().value;
      if (oldest !== undefined) {
        this.unknown.delete(oldest);
      }
    }
  }
}
