import { createLogger, type Logger } from './log.js';
import { loadMetricsConfig } from './metrics/config.js';
import { serviceMetrics, type Metrics } from './metrics/registry.js';
import { serveMetrics } from './metrics/server.js';

export type ShutdownStep = [name: string, step: () => Promise<void> | void];

/**
 * Graceful stop: on SIGTERM or SIGINT the steps run in the order given (stop accepting, drain
 * in-flight work, close connections), each bounded, then the process exits 0.
 */
export function onShutdown(log: Logger, steps: ShutdownStep[], timeoutMs = 10_000): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      return;
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    const killer = setTimeout(() => {
      log.error('shutdown took too long, exiting');
      process.exit(1);
    }, timeoutMs);
    killer.unref();
    for (const [name, step] of steps) {
      try {
        await step();
      } catch (error) {
        log.warn({ err: error, step: name }, 'shutdown step failed');
      }
    }
    log.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

/** Logs a fatal start-up error (every bad variable, an unreachable dependency) and exits 1. */
export function exitOnStartupFailure(log: Logger, error: unknown): never {
  log.fatal({ err: error }, 'start-up failed');
  process.exit(1);
}

/**
 * The frame of every service's main.ts: one root logger and the process's metrics registry; the
 * start function builds and starts everything and returns its shutdown steps in order; a start-up
 * failure exits 1 with the reason. Once started, the process serves `GET /metrics` on
 * METRICS_ADDR when it is set, closed last on shutdown so the final scrape still sees the drain.
 */
/**
 * What a service's start answers: its shutdown steps, and optionally a longer bound for the whole
 * graceful stop than the default 10 s (a proxy draining long calls).
 */
export type Started = ShutdownStep[] | { steps: ShutdownStep[]; shutdownTimeoutMs: number };

export function runService(name: string, start: (log: Logger, metrics: Metrics) => Promise<Started>): void {
  // Named in `ps` and `top` (gw-accounts, gw-edge, …) instead of one more `node` line.
  process.title = `gw-${name}`;
  const log = createLogger(name);
  const metrics = serviceMetrics();
  // Every sample says which service wrote it, however the scraper names its targets.
  metrics.registry.setDefaultLabels({ service: name });
  start(log, metrics)
    .then(async (started) => {
      const { steps, shutdownTimeoutMs } = Array.isArray(started)
        ? { steps: started, shutdownTimeoutMs: undefined }
        : started;
      const { METRICS_ADDR } = loadMetricsConfig();
      if (METRICS_ADDR) {
        const server = await serveMetrics(metrics, METRICS_ADDR, log);
        steps.push(['metrics', () => server.close()]);
      }
      return { steps, shutdownTimeoutMs };
    })
    .then(
      ({ steps, shutdownTimeoutMs }) => onShutdown(log, steps, shutdownTimeoutMs),
      (error: unknown) => exitOnStartupFailure(log, error),
    );
}
