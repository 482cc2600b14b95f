import type {
  AddressList,
  Logger,
  PatternTable,
  RequestDetails,
  SelfAddresses,
  UpstreamAddressPolicy,
} from '@gw/kit';
import type { Limits } from './domain/limits.js';
import type {
  KeyHealthStore,
  KeySource,
  LevelEvents,
  OwnerAlerts,
  RateLimiter,
  UsageOutbox,
} from './domain/ports.js';
import type { OwnerPool, PoolKey } from './domain/pool.js';
import type { ProviderDefaults } from './domain/providers.js';
import type { RoundRobin } from './domain/route-plan.js';
import type { RealtimeSessions } from './transport/http/realtime-sessions.js';
import type { UpstreamClient } from './transport/upstream/http.js';

/** Everything the proxy's HTTP handlers use; built once in main.ts. */
export interface ProxyDeps {
  config: {
    GW_INTERNAL_TOKEN: string;
    PROXY_UPSTREAM_TIMEOUT_MS: number;
    PROXY_ANSWER_TIMEOUT_MS: number;
    PROXY_STREAM_IDLE_MS: number;
    PROXY_USAGE_GRACE_MS: number;
    PROXY_JSON_LIMIT_BYTES: number;
    PROXY_UPLOAD_LIMIT_BYTES: number;
    PROXY_BODY_TIMEOUT_MS: number;
    PROXY_LEVEL_COOLDOWN_MS: number;
    PROXY_PROBE_INTERVAL_MS: number;
  };
  /** The gateway's own endpoints: never dialled upstream (docs/decisions.md §7). */
  self: SelfAddresses;
  /** Loopback and private ranges a tenant owner's pool may reach (GW_TENANT_PRIVATE_CIDRS). */
  tenantPrivate: AddressList;
  keys: KeySource;
  upstream: UpstreamClient;
  /** Open realtime sessions, ended when their account is revoked. */
  sessions: RealtimeSessions;
  limiter: RateLimiter;
  /** PROXY_DEFAULT_MODEL_LIMITS, compiled. */
  defaultModelLimits: PatternTable<Limits>;
  health: KeyHealthStore;
  outbox: UsageOutbox;
  roundRobin: RoundRobin;
  levels: LevelEvents;
  alerts: OwnerAlerts;
  providers: {
    defaults: ProviderDefaults;
    /** cloud_b: an access token for the key (cached); throws when it cannot be had. */
    accessToken(key: PoolKey): Promise<string>;
  };
  log: Logger;
  /** Set per request by the HTTP server: what the relay learns for the access line (account, key, Level). */
  access?: RequestDetails;
}

/** The connect-time address rule for this pool: root's may reach loopback and private models. */
export function upstreamPolicy(
  deps: Pick<ProxyDeps, 'self' | 'tenantPrivate'>,
  pool: OwnerPool,
): UpstreamAddressPolicy {
  return { rootPool: pool.ownerIsRoot, self: deps.self, tenantPrivate: deps.tenantPrivate };
}

/** What the failure bookkeeping needs, from the proxy's dependencies. */
export function failureDeps(deps: ProxyDeps) {
  return {
    health: deps.health,
    levels: deps.levels,
    alerts: deps.alerts,
    levelCooldownMs: deps.config.PROXY_LEVEL_COOLDOWN_MS,
    log: deps.log,
  };
}
