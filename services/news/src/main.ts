import {
  connectNats,
  createAuditPublisher,
  listenAddress,
  openServiceDatabase,
  runService,
  startGrpcService,
  systemClock,
} from '@gw/kit';
import { news as pb } from '@gw/proto';
import { loadNewsConfig } from './config.js';
import { DrizzleNewsStore } from './store/news-store.js';
import { newsHandlers } from './transport/grpc/news-service.js';

runService('news', async (log) => {
  const config = loadNewsConfig(process.env);
  log.level = config.LOG_LEVEL;
  const database = await openServiceDatabase(config, 'news', new URL('../migrations', import.meta.url), log);
  const nc = await connectNats(config.NATS_URL, 'news', log);
  const deps = {
    store: new DrizzleNewsStore(database.db),
    clock: systemClock,
    limits: {
      maxItemsPerAuthor: config.NEWS_MAX_ITEMS_PER_AUTHOR,
      postsPerMinute: config.NEWS_POSTS_PER_MINUTE,
    },
    audit: await createAuditPublisher(nc, log),
  };

  const { server } = await startGrpcService<pb.NewsServiceServer>({
    service: 'news',
    address: listenAddress('news', config),
    token: config.GW_INTERNAL_TOKEN,
    log,
    definition: pb.NewsServiceService,
    handlers: newsHandlers(deps),
    dependencies: { postgres: () => database.ping() },
  });

  return [
    ['grpc', () => server.stop()],
    ['nats', () => nc.drain()],
    ['database', () => database.close()],
  ];
});
