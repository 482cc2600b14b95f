import type { SleepingKey } from '../model.js';

/** Sleeping keys live in Redis with a TTL so every proxy replica agrees. */
export interface SleepStore {
  /** Keys asleep, and (key, model) pairs asleep, of the owner at `now`. */
  list(ownerId: bigint, now: Date): Promise<SleepingKey[]>;
  /**
   * Wakes the given keys (and their pairs), or every key and pair of the owner; returns how many
   * sleeps it ended (those still running at `now`).
   */
  clear(ownerId: bigint, keyIds: readonly bigint[] | 'all', now: Date): Promise<number>;
}
