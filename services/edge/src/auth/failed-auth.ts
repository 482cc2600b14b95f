/** At most this many client addresses are remembered; the oldest are forgotten first. */
const MAX_CLIENTS = 100_000;
const WINDOW_MS = 60_000;

/**
 * Failed authentications per client address, on this replica: past the limit in a minute, the
 * address is refused (429) without a lookup, so a flood of random keys cannot turn into a flood
 * of database reads (with the negative cache, each distinct key costs one lookup at most).
 */
export class FailedAuthLimiter {
  private readonly failures = new Map<string, { since: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until the address may try again, or 0 when it may now. */
  waitFor(client: string): number {
    const entry = this.failures.get(client);
    if (!entry || this.now() - entry.since >= WINDOW_MS) {
      return 0;
    }
    return entry.count >= this.perMinute ? entry.since + WINDOW_MS - this.now() : 0;
  }

  note(client: string): void {
    const now = this.now();
    const entry = this.failures.get(client);
    if (!entry || now - entry.since >= WINDOW_MS) {
      this.failures.delete(client);
      this.failures.set(client, { since: now, count: 1 });
      if (this.failures.size > MAX_CLIENTS) {
        const oldest = this.failures.keys().next().value;
        if (oldest !== undefined) {
          this.failures.delete(oldest);
        }
      }
      return;
    }
    entry.count += 1;
  }
}
