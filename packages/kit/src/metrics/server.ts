import { createServer, type Server } from 'node:http';
import { listenHttp } from '../listen.js';
import type { Logger } from '../log.js';
import type { Metrics } from './registry.js';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * A server of its own for `GET /metrics`, on the process's metrics address: Prometheus scrapes
 * it from inside the cluster, and it never shares a port with the public API. Anything else is 404.
 */
export async function serveMetrics(metrics: Metrics, address: string, log: Logger): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '/').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.text().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      (error: unknown) => {
        log.error({ err: error }, 'metrics could not be collected');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  const bound = await listenHttp(server, address, log, 'metrics');
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
