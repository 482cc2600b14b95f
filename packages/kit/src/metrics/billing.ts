import { METRIC } from './names.js';
import type { Metrics } from './registry.js';

/**
 * The billing service's two metrics, declared here so its names match the alert rules:
 * `consumerLag` is read at scrape time (the usage consumer's pending messages), `charged` is
 * called once per charge that reached the ledger.
 */
export function billingMetrics(
  metrics: Metrics,
  consumerLag: () => number | Promise<number>,
): { charged(nanoUsd: bigint): void } {
  metrics.gauge(
    METRIC.billingConsumerLag,
    'Usage events the billing consumer has not processed yet',
    [],
    async (gauge) => {
      gauge.set(await consumerLag());
    },
  );
  const charged = metrics.counter(METRIC.billingChargedNanoUsd, 'nano-USD charged to accounts');
  return { charged: (nanoUsd) => charged.inc(Number(nanoUsd)) };
}
