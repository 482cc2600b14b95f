import { connectNats, listenAddress, runService, startGrpcService } from '@gw/kit';
import { loadMailerConfig } from './config.js';

// Skeleton: serves grpc.health.v1 only; the mailer RPCs are registered by their own issue.
runService('mailer', async (log) => {
  const config = loadMailerConfig(process.env);
  log.level = config.LOG_LEVEL;
  const nc = await connectNats(config.NATS_URL, 'mailer', log);
  const { server } = await startGrpcService({
    service: 'mailer',
    address: listenAddress('mailer', config),
    token: config.GW_INTERNAL_TOKEN,
    log,
  });
  return [
    ['grpc', () => server.stop()],
    ['nats', () => nc.drain()],
  ];
});
