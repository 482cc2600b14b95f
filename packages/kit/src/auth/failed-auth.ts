import { addressGroup } from '../ip.js';

/** At most this many client groups (and working keys) are remembered; the oldest go first. */
const MAX_ENTRIES = 100_000;
const WINDOW_MS = 60_000;
/** A held client group still gets one key looked up this often. */
const PROBE_MS = 1_000;
/** How long a key that authenticated passes a held group without waiting. */
const KNOWN_KEY_MS = 24 * 60 * 60_000;

/** Adds to a map that forgets its oldest entry past MAX_ENTRIES. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ENTRIES) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) {
      map.delete(oldest);
    }
  }
}

/**
 * Failed authentications per client group (an IPv4 address, an IPv6 /64), on this replica: past
 * the limit in a minute, the group is held, so a flood of random keys cannot turn into a flood of
 * database reads (with the negative cache, each distinct key costs one lookup at most). A held
 * group is never a lockout of the keys that work (docs/decisions.md §8): a key that has
 * authenticated on this replica in the last day passes, and one other key a second is looked up.
 */
export class FailedAuthLimiter {
  private readonly failures = new Map<string, { since: number; count: number; probedAt: number }>();
  /** Hashes of keys that authenticated, and when. */
  private readonly working = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Milliseconds until the client may try this key, or 0 when it may now. A held group's probe
   * is spent by the call that answers 0 for it.
   */
  waitFor(client: string, keyHash: string | undefined): number {
    const now = this.now();
    const entry = this.failures.get(addressGroup(client));
    if (!entry || now - entry.since >= WINDOW_MS || entry.count < this.perMinute) {
      return 0;
    }
    const workedAt = keyHash === undefined ? undefined : this.working.get(keyHash);
    if (workedAt !== undefined && now - workedAt < KNOWN_KEY_MS) {
      return 0;
    }
    if (keyHash !== undefined && now - entry.probedAt >= PROBE_MS) {
      entry.probedAt = now;
      return 0;
    }
    return entry.since + WINDOW_MS - now;
  }

  note(client: string): void {
    const now = this.now();
    const group = addressGroup(client);
    const entry = this.failures.get(group);
    if (!entry || now - entry.since >= WINDOW_MS) {
      remember(this.failures, group, { since: now, count: 1, probedAt: 0 });
      return;
    }
    entry.count += 1;
  }

  /** The key authenticated: a held group never holds it back. */
  succeeded(keyHash: string): void {
    remember(this.working, keyHash, this.now());
  }
}
