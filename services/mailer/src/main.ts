import {
  connectNats,
  createLogger,
  exitOnStartupFailure,
  listenAddress,
  onShutdown,
  startGrpcService,
} from '@gw/kit';
import { loadMailerConfig } from './config.js';

const log = createLogger('mailer');

// Skeleton: serves grpc.health.v1 only; the mailer RPCs are registered by their own issue.
async function main() {
  const config = loadMailerConfig(process.env);
  log.level = config.LOG_LEVEL;
  const nc = await connectNats(config.NATS_URL, 'mailer', log);

  const { server } = await startGrpcService({
    service: 'mailer',
    address: listenAddress('mailer', config),
    token: config.GW_INTERNAL_TOKEN,
    log,
  });

  onShutdown(log, [
    ['grpc', () => server.stop()],
    ['nats', () => nc.drain()],
  ]);
}

main().catch((error: unknown) => exitOnStartupFailure(log, error));
