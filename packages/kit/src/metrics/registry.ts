import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';
import { LatencyHistogram } from './histogram.js';

/**
 * Latency buckets in seconds, fixed for every histogram of the gateway so dashboards can add
 * them up across services: 5 ms to 2 min (an AI call that streams for a minute still lands in a
 * bucket).
 */
export const LATENCY_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
];

/** How often the event-loop lag is sampled (`nodejs_eventloop_lag_*`). */
const EVENT_LOOP_SAMPLE_MS = 1000;

/**
 * One process's Prometheus registry: the default process metrics (CPU, memory, event-loop lag,
 * handles) plus what the service declares through these helpers. Every name starts with `gw_`;
 * label names are fixed when the metric is declared and their values must come from small closed
 * sets (a route template, a status, a key id), never an account id or a raw path.
 */
export class Metrics {
  // A metric declared twice (two components built in one process, two test cases) is the same
  // metric: prom-client would refuse the second registration, so each helper reuses it.
  readonly registry = new Registry();

  constructor() {
    // The event-loop lag histogram samples once a second rather than prom-client's every 10 ms:
    // each sample wakes the process, a wake-up of an idle process cost about 0.75 ms of CPU on a
    // small virtual machine (bench/RESULTS.md, tenth round), and `npm start` runs eight of them
    // on whatever cores it is given. A scrape every 15 s still sees fifteen samples.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  }

  counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    const found = this.registry.getSingleMetric(name);
    if (found instanceof Counter) {
      return found;
    }
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** A gauge; `collect` (when given) sets its value at scrape time, so nothing is kept per request. */
  gauge<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    collect?: (gauge: Gauge<L>) => void | Promise<void>,
  ): Gauge<L> {
    const found = this.registry.getSingleMetric(name);
    if (found instanceof Gauge) {
      return found;
    }
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      ...(collect
        ? {
            collect: function (this: Gauge<L>) {
              return collect(this);
            },
          }
        : {}),
    });
  }

  histogram<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets: readonly number[] = LATENCY_BUCKETS,
  ): LatencyHistogram<L> {
    const found: unknown = this.registry.getSingleMetric(name);
    if (found instanceof LatencyHistogram) {
      return found as LatencyHistogram<L>;
    }
    const histogram = new LatencyHistogram(name, help, labelNames, buckets);
    // The registry takes any object that writes itself (`getForPromString`), not only its own kinds.
    this.registry.registerMetric(histogram as unknown as Metric);
    return histogram;
  }

  /** The exposition text Prometheus scrapes. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

let processMetrics: Metrics | undefined;

/**
 * The registry of this process, created on first use. A process runs one service, so one
 * registry serves its lifecycle, its gRPC server and its own components alike.
 */
export function serviceMetrics(): Metrics {
  processMetrics ??= new Metrics();
  return processMetrics;
}
