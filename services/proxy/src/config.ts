import {
  env,
  loadConfig,
  mailQueueEnv,
  MAX_PATTERN_WILDCARDS,
  natsEnv,
  selfAddressEnv,
  serviceEnv,
  tenantPrivateEnv,
  tooManyWildcards,
  usageStreamEnv,
} from '@gw/kit';
import { z } from 'zod';

const positiveInt = (fallback: number) => env.integer(fallback, { min: 1 });

const shape = {
  ...serviceEnv,
  ...natsEnv,
  /** GW_USAGE's retention (declared by the proxy and billing alike). */
  ...usageStreamEnv,
  /**
   * Every <SERVICE>_ADDR (PROXY_ADDR is where this server listens and the edge dials it;
   * KEYPOOL_ADDR and CONFIG_ADDR are dialled), GW_EDGE_PORT, GW_PUBLIC_URL and GW_SELF_HOSTS:
   * the gateway's own endpoints, never dialled as an upstream (docs/decisions.md §7).
   */
  ...selfAddressEnv,
  /** Loopback and private ranges tenant owners may use as upstream or mail server (docs/decisions.md §7). */
  ...tenantPrivateEnv,
  /** The proxy keeps its usage outbox under `<GW_DATA_DIR>/proxy/outbox`. */
  GW_DATA_DIR: z.string().min(1).default('.data'),
  /** More unpublished usage events than this: new AI calls get 503 before upstream. */
  PROXY_OUTBOX_MAX: positiveInt(10_000),
  /** fsync the outbox after every append (survives an OS crash, costs a disk flush per call). */
  PROXY_OUTBOX_FSYNC: env.flag(false),
  /**
   * A streamed call's upstream must send its response headers within this time, or the key
   * failed (timeout). Nothing that happens after the headers counts as a timeout.
   */
  PROXY_UPSTREAM_TIMEOUT_MS: positiveInt(60_000),
  /** The same for a call answered whole (no stream): upstream answers only once it is done. */
  PROXY_ANSWER_TIMEOUT_MS: positiveInt(600_000),
  /** Idle keep-alive sockets to upstreams close after this, before the upstreams' own idle timeouts. */
  PROXY_UPSTREAM_IDLE_SOCKET_MS: positiveInt(4_000),
  /** A response body silent for this long is cut. */
  PROXY_STREAM_IDLE_MS: positiveInt(120_000),
  /** After the client leaves, keep reading upstream this long for its usage (docs/decisions.md §2). */
  PROXY_USAGE_GRACE_MS: env.integer(30_000),
  /** Largest JSON request body (chat, embeddings, …); larger is 413. */
  PROXY_JSON_LIMIT_BYTES: positiveInt(16 * 1024 * 1024),
  /** Largest upload (audio and image multipart bodies); larger is 413. */
  PROXY_UPLOAD_LIMIT_BYTES: positiveInt(64 * 1024 * 1024),
  /**
   * Request bytes held in memory at once, the whole process (over it: 429) and one account (over
   * it: 429); the account's bound is at least one largest upload.
   */
  PROXY_BODY_BUFFER_MAX_BYTES: positiveInt(256 * 1024 * 1024),
  PROXY_BODY_BUFFER_ACCOUNT_MAX_BYTES: positiveInt(128 * 1024 * 1024),
  /** Largest realtime frame, either way; a larger one closes the session (1009, message too big). */
  PROXY_REALTIME_MAX_FRAME_BYTES: positiveInt(4 * 1024 * 1024),
  /** A request body must arrive within this time (a slow upload is 408). */
  PROXY_BODY_TIMEOUT_MS: positiveInt(120_000),
  /** cloud_a `api-version` when a key's `api_versions` names none (responses has its own). */
  PROXY_CLOUD_A_API_VERSION: z.string().min(1).default('2024-10-21'),
  PROXY_CLOUD_A_RESPONSES_API_VERSION: z.string().min(1).default('2025-03-01-preview'),
  /** cloud_b: where service-account JWTs are exchanged for access tokens. */
  PROXY_CLOUD_B_TOKEN_URL: env.url('https://oauth2.googleapis.com/token'),
  /** How often a Level whose keys are all asleep lends one (asleep for the upstream's health) to a probe. */
  PROXY_PROBE_INTERVAL_MS: positiveInt(30_000),
  /**
   * Per-model rate limits where neither the account's ModelLimits nor the owner's MODEL_LIMITS
   * set one, in the MODEL_LIMITS format (`{"<pattern>": {"rpm": 60, "tpm": 100000}}`); unset:
   * unlimited.
   */
  PROXY_DEFAULT_MODEL_LIMITS: z
    .string()
    .default('')
    .refine((text) => {
      try {
        const value: unknown = text ? JSON.parse(text) : {};
        return (
          !!value &&
          typeof value === 'object' &&
          !Array.isArray(value) &&
          !Object.keys(value).some(tooManyWildcards)
        );
      } catch {
        return false;
      }
    }, `must be a JSON object of model patterns (at most ${MAX_PATTERN_WILDCARDS} "*" each) to limits`),
  /** How long a Level with too many failures sends its traffic to its SWITCH_OVER backup. */
  PROXY_LEVEL_COOLDOWN_MS: positiveInt(60 * 60_000),
  /**
   * On SIGTERM, how long calls in flight may take to finish (new ones are refused with 503 and
   * Retry-After at once); past it the rest are cut, still metered. Keep it under the orchestrator's
   * grace period (Kubernetes: 30 s).
   */
  PROXY_DRAIN_MS: positiveInt(25_000),
  /** Calls of one account in flight at once, across replicas (docs/decisions.md §1). */
  PROXY_MAX_IN_FLIGHT_PER_ACCOUNT: positiveInt(256),
  /** How long a served call's cost stays held against the balance: longer than billing's lag. */
  PROXY_SPEND_HOLD_MS: positiveInt(10_000),
  /** Output tokens a call that sets no max_tokens is estimated at, for the spend hold. */
  PROXY_ESTIMATE_OUTPUT_TOKENS: positiveInt(1_024),
  /** Redis key prefix of the shared key state (failure counters, sleeping keys). */
  GW_KEY_STATE_PREFIX: z.string().default('gw:keystate:'),
  ...mailQueueEnv,
};

export function loadProxyConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(shape, source);
}
