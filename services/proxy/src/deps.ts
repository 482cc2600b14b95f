import type { AddressList, SelfAddresses, UpstreamAddressPolicy } from '@gw/kit';
import type { BodyBudget } from './domain/body-budget.js';
import type { CallDeps } from './domain/ports/deps.js';
import type { OwnerPool, PoolKey } from './domain/pool.js';
import type { ProviderDefaults } from './domain/providers.js';
import type { Callers } from './transport/http/callers.js';
import type { SessionRegistry } from './transport/http/realtime-sessions.js';
import type { HttpUpstream } from './transport/upstream/http.js';

/**
 * Everything the proxy's handlers use, built once in main.ts: the call pipeline's ports plus what
 * its transports need. Nothing in it belongs to one request (each handler gets its own exchange),
 * and every part is an interface, so tests and other transports plug in their own.
 */
export interface ProxyDeps extends CallDeps {
  config: CallDeps['config'] & {
    GW_INTERNAL_TOKEN: string;
    PROXY_UPSTREAM_TIMEOUT_MS: number;
    PROXY_ANSWER_TIMEOUT_MS: number;
    PROXY_STREAM_IDLE_MS: number;
    PROXY_USAGE_GRACE_MS: number;
    PROXY_JSON_LIMIT_BYTES: number;
    PROXY_UPLOAD_LIMIT_BYTES: number;
    PROXY_BODY_TIMEOUT_MS: number;
    PROXY_REALTIME_MAX_FRAME_BYTES: number;
  };
  /** Who makes each AI call, from the key it carries. */
  callers: Callers;
  /** The gateway's own endpoints: never dialled upstream (docs/decisions.md §7). */
  self: SelfAddresses;
  /** Loopback and private ranges a tenant owner's pool may reach (GW_TENANT_PRIVATE_CIDRS). */
  tenantPrivate: AddressList;
  upstream: HttpUpstream;
  /** Request bodies held in memory, bounded per process and per account. */
  bodies: BodyBudget;
  /** Open realtime sessions, ended when their account is revoked. */
  sessions: SessionRegistry;
  providers: {
    defaults: ProviderDefaults;
    /** Vertex AI: an access token for the key (cached); throws when it cannot be had. */
    accessToken(key: PoolKey): Promise<string>;
  };
}

/** The connect-time address rule for this pool: root's may reach loopback and private models. */
export function upstreamPolicy(
  deps: Pick<ProxyDeps, 'self' | 'tenantPrivate'>,
  pool: OwnerPool,
): UpstreamAddressPolicy {
  return { rootPool: pool.ownerIsRoot, self: deps.self, tenantPrivate: deps.tenantPrivate };
}
