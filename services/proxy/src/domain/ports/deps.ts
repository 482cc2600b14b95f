import type { Logger, PatternTable } from '@gw/kit';
import type { Limits } from '../limits.js';
import type { RoundRobin } from '../route-plan.js';
import type { AdmissionStore } from './admission-store.js';
import type { KeyHealthStore } from './key-health-store.js';
import type { KeySource } from './key-source.js';
import type { LevelEvents } from './level-events.js';
import type { ObjectOwners } from './object-owners.js';
import type { OwnerAlerts } from './owner-alerts.js';
import type { RateLimiter } from './rate-limiter.js';
import type { SpendReservations } from './spend-reservations.js';
import type { UsageOutbox } from './usage-outbox.js';

/** The ports and settings the call pipeline runs on; built once per process. */
export interface CallDeps {
  keys: KeySource;
  /** Admission's rate limits, pool state and spend reservation, in one round trip. */
  admission: AdmissionStore;
  health: KeyHealthStore;
  limiter: RateLimiter;
  outbox: UsageOutbox;
  /** Who created each stored upstream object (responses, conversations). */
  objects: ObjectOwners;
  /** What each account's calls in flight and not yet charged may cost. */
  spend: SpendReservations;
  roundRobin: RoundRobin;
  levels: LevelEvents;
  alerts: OwnerAlerts;
  /** PROXY_DEFAULT_MODEL_LIMITS, compiled. */
  defaultModelLimits: PatternTable<Limits>;
  log: Logger;
  config: {
    /** At most one probe of a Level's sleeping keys per interval. */
    PROXY_PROBE_INTERVAL_MS: number;
    /** How long a switched Level sends its traffic to its backup. */
    PROXY_LEVEL_COOLDOWN_MS: number;
    /** At most this many calls of one account in flight at once, across replicas. */
    PROXY_MAX_IN_FLIGHT_PER_ACCOUNT: number;
    /** How long a served call's cost stays held: longer than billing takes to charge it. */
    PROXY_SPEND_HOLD_MS: number;
    /** Output tokens a call that sets no maximum is estimated at. */
    PROXY_ESTIMATE_OUTPUT_TOKENS: number;
  };
}
