import type { FailureClass } from '../key-health.js';

/** What the shared store says about an owner's pool right now. */
export interface PoolState {
  /** Ids of keys asleep now, and `keyModelField(keyId, model)` of a key asleep for one model. */
  sleeping: Set<string>;
  /** For each entry of `sleeping`: when it wakes (epoch ms) and the failure that put it to sleep. */
  sleepDetails: Map<string, { until: number; failure: string }>;
  /** Levels whose traffic is switched to their backup (cool-down running). */
  switched: Set<number>;
  /** Levels whose cool-down has ended but are still marked: switch them back. */
  cooledDown: number[];
  /**
   * Keys, and `keyModelField(keyId, model)` pairs, with failures or sleeps a success must reset;
   * a success of any other writes nothing.
   */
  failing: Set<string>;
}

/** A healthy pool's state: nothing asleep, switched or failing (also what a store down answers). */
export function emptyPoolState(): PoolState {
  return {
    sleeping: new Set(),
    sleepDetails: new Map(),
    switched: new Set(),
    cooledDown: [],
    failing: new Set(),
  };
}

/** Key failure counters, sleeping keys and switched Levels, shared by every proxy replica. */
export interface KeyHealthStore {
  /** One round trip. Fails open (nothing asleep or switched) when the store is down. */
  state(ownerId: string): Promise<PoolState>;
  /** Counts the failure against the key and its Level; answers the Level's failures in the window. */
  recordFailure(
    ownerId: string,
    keyId: string,
    level: number,
    failure: FailureClass,
    retryAfterMs?: number,
  ): Promise<number>;
  /**
   * Counts a refusal of the model against the (key, model) pair: after FAILURES_BEFORE_SLEEP in
   * a row the pair sleeps on the ladder (listed in /x-conf, woken by DelKeys).
   */
  recordModelFailure(ownerId: string, keyId: string, model: string): Promise<void>;
  /**
   * A served call: the key's and the (key, model) pair's counters reset and, when the key was
   * probed awake, it wakes.
   */
  recordSuccess(ownerId: string, keyId: string, model: string): Promise<void>;
  /** Whether this request may probe the Level's sleeping keys (one per Level per interval). */
  claimProbe(ownerId: string, level: number, intervalMs: number): Promise<boolean>;
  /** Marks the Level switched until `until`; false when another replica did it first. */
  switchLevel(ownerId: string, level: number, until: number): Promise<boolean>;
  /** Clears an ended switch; false when another replica did it first. */
  switchBack(ownerId: string, level: number): Promise<boolean>;
}
