import {
  connectNats,
  createLogger,
  exitOnStartupFailure,
  listenAddress,
  onShutdown,
  startGrpcService,
} from '@gw/kit';
import { loadNewsConfig } from './config.js';

const log = createLogger('news');

// Skeleton: serves grpc.health.v1 only; the news RPCs are registered by their own issue.
async function main() {
  const config = loadNewsConfig(process.env);
  log.level = config.LOG_LEVEL;
  const nc = await connectNats(config.NATS_URL, 'news', log);

  const { server } = await startGrpcService({
    service: 'news',
    address: listenAddress('news', config),
    token: config.GW_INTERNAL_TOKEN,
    log,
  });

  onShutdown(log, [
    ['grpc', () => server.stop()],
    ['nats', () => nc.drain()],
  ]);
}

main().catch((error: unknown) => exitOnStartupFailure(log, error));
