import {
  apiBalanceEnv,
  authEnv,
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

/** The service's environment; services/<name>/README.md's Configuration is generated from it. */
export const configShape = {
  ...serviceEnv,
  ...natsEnv,
  ...usageStreamEnv,
  // The gateway's own endpoints, never dialled as an upstream (docs/decisions.md §7): PROXY_ADDR
  // is where this server listens (the gateway's public port under `npm start`); KEYPOOL_ADDR and
  // CONFIG_ADDR are dialled, and EDGE_ADDR, when set, gets every request this server does not serve.
  ...selfAddressEnv,
  ...tenantPrivateEnv,
  // The proxy authenticates every AI call itself (keys from accounts, cached; AllowIPs; the spend
  // floor), with the same rules and settings as the edge's management routes.
  ...authEnv,
  ...apiBalanceEnv,
  GW_DATA_DIR: z
    .string()
    .min(1)
    .default('.data')
    .describe('The proxy keeps its usage outbox under `<GW_DATA_DIR>/proxy/outbox`.'),
  PROXY_OUTBOX_MAX: positiveInt(10_000).describe(
    'More unpublished usage events than this: new AI calls get 503 before upstream.',
  ),
  PROXY_OUTBOX_FSYNC: env
    .flag(false)
    .describe('fsync the outbox after every append (survives an OS crash, costs a disk flush per call).'),
  PROXY_UPSTREAM_TIMEOUT_MS: positiveInt(60_000).describe(
    "A streamed call's upstream must send its response headers within this time, or the key failed (timeout); nothing after the headers counts as a timeout.",
  ),
  PROXY_ANSWER_TIMEOUT_MS: positiveInt(600_000).describe(
    'The same for a call answered whole (no stream): upstream answers only once it is done.',
  ),
  PROXY_UPSTREAM_IDLE_SOCKET_MS: positiveInt(4_000).describe(
    "Idle keep-alive sockets to upstreams close after this, before the upstreams' own idle timeouts.",
  ),
  PROXY_STREAM_IDLE_MS: positiveInt(120_000).describe('A response body silent for this long is cut.'),
  PROXY_USAGE_GRACE_MS: env
    .integer(30_000)
    .describe(
      'After the client leaves, keep reading upstream this long for its usage (docs/decisions.md §2).',
    ),
  PROXY_JSON_LIMIT_BYTES: positiveInt(16 * 1024 * 1024).describe(
    'Largest JSON request body (chat, embeddings, …); larger is 413.',
  ),
  PROXY_UPLOAD_LIMIT_BYTES: positiveInt(64 * 1024 * 1024).describe(
    'Largest upload (audio and image multipart bodies); larger is 413.',
  ),
  PROXY_BODY_BUFFER_MAX_BYTES: positiveInt(256 * 1024 * 1024).describe(
    'Request bytes the whole process holds in memory at once; over it: 429.',
  ),
  PROXY_BODY_BUFFER_ACCOUNT_MAX_BYTES: positiveInt(128 * 1024 * 1024).describe(
    'Request bytes one account holds in memory at once (at least one largest upload); over it: 429.',
  ),
  PROXY_REALTIME_MAX_FRAME_BYTES: positiveInt(4 * 1024 * 1024).describe(
    'Largest realtime frame, either way; a larger one closes the session (1009, message too big).',
  ),
  PROXY_BODY_TIMEOUT_MS: positiveInt(120_000).describe(
    'A request body must arrive within this time (a slow upload is 408).',
  ),
  PROXY_CLOUD_A_API_VERSION: z
    .string()
    .min(1)
    .default('2024-10-21')
    .describe("Azure OpenAI (`cloud_a`) `api-version` when a key's `api_versions` names none."),
  PROXY_CLOUD_A_RESPONSES_API_VERSION: z
    .string()
    .min(1)
    .default('2025-03-01-preview')
    .describe('The same for the responses API, which has its own versions.'),
  PROXY_CLOUD_B_TOKEN_URL: env
    .url('https://oauth2.googleapis.com/token')
    .describe('Google Vertex AI (`cloud_b`): where service-account JWTs are exchanged for access tokens.'),
  PROXY_PROBE_INTERVAL_MS: positiveInt(30_000).describe(
    "How often a Level whose keys are all asleep lends one to a probe of the upstream's health.",
  ),
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
    }, `must be a JSON object of model patterns (at most ${MAX_PATTERN_WILDCARDS} "*" each) to limits`)
    .describe(
      'Per-model rate limits where neither the account\'s ModelLimits nor the owner\'s MODEL_LIMITS set one, in the MODEL_LIMITS format (`{"<pattern>": {"rpm": 60, "tpm": 100000}}`); empty: unlimited.',
    ),
  PROXY_LEVEL_COOLDOWN_MS: positiveInt(60 * 60_000).describe(
    'How long a Level with too many failures sends its traffic to its SWITCH_OVER backup.',
  ),
  PROXY_DRAIN_MS: positiveInt(25_000).describe(
    "On SIGTERM, how long calls in flight may take to finish (new ones get 503 and Retry-After); past it the rest are cut, still metered. Keep it under the orchestrator's grace period (Kubernetes: 30 s).",
  ),
  PROXY_MAX_IN_FLIGHT_PER_ACCOUNT: positiveInt(256).describe(
    'Calls of one account in flight at once, across replicas (docs/decisions.md §1).',
  ),
  PROXY_SPEND_HOLD_MS: positiveInt(10_000).describe(
    "How long a served call's cost stays held against the balance: longer than billing's lag.",
  ),
  PROXY_ESTIMATE_OUTPUT_TOKENS: positiveInt(1_024).describe(
    'Output tokens a call that sets no max_tokens is estimated at, for the spend hold.',
  ),
  GW_KEY_STATE_PREFIX: z
    .string()
    .default('gw:keystate:')
    .describe(
      'Redis key prefix of the shared key state (failure counters, sleeping keys), shared with keypool.',
    ),
  ...mailQueueEnv,
};

export function loadProxyConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(configShape, source);
}
