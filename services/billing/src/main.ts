import {
  connectNats,
  createLogger,
  exitOnStartupFailure,
  listenAddress,
  onShutdown,
  startGrpcService,
} from '@gw/kit';
import { loadBillingConfig } from './config.js';

const log = createLogger('billing');

// Skeleton: serves grpc.health.v1 only; the billing RPCs are registered by their own issue.
async function main() {
  const config = loadBillingConfig(process.env);
  log.level = config.LOG_LEVEL;
  const nc = await connectNats(config.NATS_URL, 'billing', log);

  const { server } = await startGrpcService({
    service: 'billing',
    address: listenAddress('billing', config),
    token: config.GW_INTERNAL_TOKEN,
    log,
  });

  onShutdown(log, [
    ['grpc', () => server.stop()],
    ['nats', () => nc.drain()],
  ]);
}

main().catch((error: unknown) => exitOnStartupFailure(log, error));
