import { connectNats, listenAddress, runService, startGrpcService } from '@gw/kit';
import { loadNewsConfig } from './config.js';

// Skeleton: serves grpc.health.v1 only; the news RPCs are registered by their own issue.
runService('news', async (log) => {
  const config = loadNewsConfig(process.env);
  log.level = config.LOG_LEVEL;
  const nc = await connectNats(config.NATS_URL, 'news', log);
  const { server } = await startGrpcService({
    service: 'news',
    address: listenAddress('news', config),
    token: config.GW_INTERNAL_TOKEN,
    log,
  });
  return [
    ['grpc', () => server.stop()],
    ['nats', () => nc.drain()],
  ];
});
