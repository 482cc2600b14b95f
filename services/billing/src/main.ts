import { connectNats, listenAddress, runService, startGrpcService } from '@gw/kit';
import { loadBillingConfig } from './config.js';

// Skeleton: serves grpc.health.v1 only; the billing RPCs are registered by their own issue.
runService('billing', async (log) => {
  const config = loadBillingConfig(process.env);
  log.level = config.LOG_LEVEL;
  const nc = await connectNats(config.NATS_URL, 'billing', log);
  const { server } = await startGrpcService({
    service: 'billing',
    address: listenAddress('billing', config),
    token: config.GW_INTERNAL_TOKEN,
    log,
  });
  return [
    ['grpc', () => server.stop()],
    ['nats', () => nc.drain()],
  ];
});
