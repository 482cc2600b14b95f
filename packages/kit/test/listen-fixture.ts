// A service of one HTTP server, bound by listenHttp inside runService exactly as the edge's and
// the proxy's main.ts do, on the address given as its argument (listen.int.test.ts).
import { createServer } from 'node:http';
import { runService } from '../src/lifecycle.js';
import { listenHttp } from '../src/listen.js';

runService('listen-fixture', async (log) => {
  const server = createServer();
  await listenHttp(server, process.argv[2] ?? '', log, 'fixture');
  return [['http', () => new Promise<void>((resolve) => server.close(() => resolve()))]];
});
