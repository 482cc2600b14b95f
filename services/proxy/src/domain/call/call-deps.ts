import type { Logger, PatternTable } from '@gw/kit';
import type { Limits } from '../limits.js';
import type {
  KeyHealthStore,
  KeySource,
  LevelEvents,
  ObjectOwners,
  OwnerAlerts,
  RateLimiter,
  UsageOutbox,
} from '../ports.js';
import type { RoundRobin } from '../route-plan.js';

/** The ports and settings the call pipeline runs on; built once per process. */
export interface CallDeps {
  keys: KeySource;
  health: KeyHealthStore;
  limiter: RateLimiter;
  outbox: UsageOutbox;
  /** Who created each stored upstream object (responses, conversations). */
  objects: ObjectOwners;
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
  };
}
