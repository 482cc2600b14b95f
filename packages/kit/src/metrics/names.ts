/**
 * Every sample carries `service` (edge, proxy, accounts, …), set by the service lifecycle.
 * Every metric the gateway's own code declares (besides prom-client's default process metrics),
 * in one closed set: code registers through these names, and the alert rules in
 * deploy/prometheus are checked against them. docs/operations.md says what each one means.
 */
export const METRIC = {
  /** edge, proxy: histogram {method, route, status}. */
  httpRequestDuration: 'gw_http_request_duration_seconds',
  /** every gRPC service: counter {grpc_service, grpc_method, grpc_code}. */
  grpcServerHandled: 'gw_grpc_server_handled_total',
  /** every gRPC service: histogram {grpc_service, grpc_method}. */
  grpcServerHandling: 'gw_grpc_server_handling_seconds',
  /** proxy: histogram {key_id, level, outcome}, time to the upstream's response headers. */
  upstreamRequestDuration: 'gw_upstream_request_duration_seconds',
  /** proxy: counter {key_id, reason}, a key (or a key for one model) put to sleep. */
  keySleeps: 'gw_key_sleeps_total',
  /** proxy: counter {level, direction}, a Level switched to its backup or back. */
  levelSwitches: 'gw_level_switches_total',
  /** proxy: gauge, usage events written to the outbox and not yet published. */
  usageOutboxDepth: 'gw_usage_outbox_depth',
  /** proxy: gauge, owners served from their last good key pool because reloading it failed. */
  staleKeyPools: 'gw_key_pools_stale',
  /** proxy: gauge, request body bytes held in memory now (bounded per process and per account). */
  requestBodyBytes: 'gw_request_body_bytes',
  /** proxy: counter, rate-limit checks counted on this replica alone because Redis was unreachable. */
  rateLimiterFallbacks: 'gw_rate_limiter_redis_fallbacks_total',
  /** billing: gauge, usage events the billing consumer has not processed yet. */
  billingConsumerLag: 'gw_billing_consumer_lag',
  /** every durable consumer: counter {consumer, reason}, messages set aside in GW_DEAD_LETTER. */
  eventsDeadLettered: 'gw_events_dead_lettered_total',
  /** billing: counter, nano-USD charged to accounts. */
  billingChargedNanoUsd: 'gw_billing_charged_nano_usd_total',
} as const;
