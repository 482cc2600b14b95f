import type { events } from '@gw/proto';
import type { FailureClass } from './key-health.js';
import type { LimitWindow } from './limits.js';
import type { OwnerPool } from './pool.js';

/** Where an owner's keys and routing configuration come from; answers from memory when it can. */
export interface KeySource {
  /** The owner's pool; throws AppError('unavailable') when it cannot be loaded. */
  get(ownerId: string): Promise<OwnerPool>;
  /** Owners served from the last pool that loaded, because reloading it failed. */
  staleOwners(): number;
  close(): Promise<void>;
}

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

/** Mail to the owner about its pool. */
export interface OwnerAlerts {
  /** An upstream refused a key's credentials (401/403): the key sleeps and the owner should look. */
  keyAuthFailed(ownerId: string, keyId: string): Promise<void>;
}

/** Level switch announcements (`gw.level.switched.<owner>`). */
export interface LevelEvents {
  levelSwitched(ownerId: string, level: number, until: number | undefined): void;
}

/** The durable usage outbox: append before anything else happens, publish in the background. */
export interface UsageOutbox {
  /** Events written but not yet acknowledged by the stream. */
  readonly size: number;
  /** True when the backlog is over its bound: new AI calls are refused before upstream. */
  isFull(): boolean;
  append(event: events.UsageRecorded): Promise<void>;
}

/** What the windows of one call said at admission. */
export interface Admission {
  ok: boolean;
  /** Each window: what it holds (this call included when admitted) and when its oldest part frees. */
  windows: Array<{ window: LimitWindow; count: number; freesAt: number }>;
  /** Refused: when the first window that was over frees (epoch ms). */
  retryAt: number;
}

/** Rate-limit windows, shared by every replica (one round trip per call). */
export interface RateLimiter {
  /** Checks every window and, when none is over, counts this request in the request windows. */
  admit(windows: readonly LimitWindow[], now: number): Promise<Admission>;
  /** Takes back a request admit counted (the call was refused before any upstream). */
  refund(windows: readonly LimitWindow[], now: number): Promise<void>;
  /**
   * Counts a served call's tokens in its token windows. They may wait briefly on this replica
   * (the Redis limiter sends them with the next admission, or within 50 ms).
   */
  addTokens(windows: readonly LimitWindow[], tokens: number, now: number): Promise<void>;
}

/**
 * Which account created each stored upstream object (a response, a conversation) through the
 * gateway: the owner's upstream keys are shared, so an id is usable only by the account that made it.
 */
export interface ObjectOwners {
  /** The account that created the object under this owner's pool, or undefined when none did. */
  ownerOf(ownerId: string, objectId: string): Promise<string | undefined>;
  /** Records the objects an answer created, for as long as upstream keeps them. */
  record(ownerId: string, objectIds: readonly string[], accountId: string): Promise<void>;
}

/** What a reservation attempt came to. */
export type Reservation = { ok: true } | { ok: false; reason: 'balance' | 'in_flight' };

/**
 * Money an account's calls may still cost, shared by every proxy replica (docs/decisions.md §1):
 * each call in flight holds its estimated cost; a served exchange holds its actual cost until
 * billing has surely charged it. A call is admitted only while the balance less what is held
 * stays above the floor.
 */
export interface SpendReservations {
  reserve(input: {
    accountId: string;
    callId: string;
    estimateNano: bigint;
    balanceNano: bigint;
    floorNano: bigint;
    maxInFlight: number;
    /** When an in-flight hold lapses on its own (a proxy that died never releases it). */
    inFlightUntil: number;
    now: number;
  }): Promise<Reservation>;
  /** A served exchange's actual cost, held until `until`. */
  hold(input: {
    accountId: string;
    holdId: string;
    costNano: bigint;
    until: number;
    now: number;
  }): Promise<void>;
  /** The call ended: its in-flight estimate is released. */
  release(accountId: string, callId: string): Promise<void>;
}
