import { performance } from 'node:perf_hooks';
import { METRIC, serviceMetrics } from '@gw/kit';

/**
 * Upstream attempts by key id, Level and outcome (`ok`, `client_error`, or the failure class that
 * blames the key: `auth`, `rate_limit`, `server_error`, `timeout`, `connection`, `model`), timed
 * until the upstream's response headers. Key ids are the pool's, a set the operator bounds.
 */
const upstreamDuration = serviceMetrics().histogram(
  METRIC.upstreamRequestDuration,
  'Upstream attempts by key id, Level and outcome: time until the response headers',
  ['key_id', 'level', 'outcome'],
);

export function observeUpstream(keyId: string, level: number, outcome: string, startedAt: number): void {
  upstreamDuration.labels(keyId, String(level), outcome).observe((performance.now() - startedAt) / 1000);
}
