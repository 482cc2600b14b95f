// `gw root-key --rotate`: gives root a new generated key, prints it once and revokes the old one
// at once. Runs where the accounts database is reachable (DATABASE_URL; `npx gw` starts the embedded
// PostgreSQL of GW_DATA_DIR for it while the gateway is stopped), in a checkout through `npx gw` or in the accounts image:
//   node --conditions=gw-dist dist/cli/rotate-root-key.js
import {
  connectNats,
  createAuditPublisher,
  openServiceDatabase,
  runCommand,
  systemClock,
  type Logger,
  type NatsConnection,
} from '@gw/kit';
import { recoverRootKey } from '../domain/recover-root-key.js';
import type { AccountEvents } from '../domain/ports/deps.js';
import { DrizzleAccountsStore } from '../store/accounts-store.js';
import { natsAccountEvents } from '../transport/nats/account-events.js';
import { loadCommandConfig } from './config.js';

/** Nothing to tell when NATS is down: the edges fall back on their auth cache TTL. */
const UNANNOUNCED: AccountEvents = { accountChanged: () => undefined, audit: () => undefined };

async function natsOrNothing(url: string, log: Logger): Promise<NatsConnection | undefined> {
  try {
    return await connectNats(url, 'gw-root-key', log);
  } catch {
    return undefined;
  }
}

runCommand('root-key', async (log) => {
  const config = loadCommandConfig(process.env);
  const database = await openServiceDatabase(
    config,
    'accounts',
    new URL('../../migrations', import.meta.url),
    log,
  );
  const nc = await natsOrNothing(config.NATS_URL, log);
  try {
    const audit = nc ? await createAuditPublisher(nc, log) : undefined;
    const events = nc && audit ? natsAccountEvents(nc, audit) : UNANNOUNCED;
    const { rootId, key } = await recoverRootKey({
      store: new DrizzleAccountsStore(database.db),
      events,
      clock: systemClock,
    });
    process.stdout.write(`New root API key (shown once, keep it safe): ${key}\n`);
    if (nc && audit) {
      await audit.settled();
      await nc.flush();
      process.stderr.write(
        `The old root key is revoked: gw.account.changed.${rootId} told every edge to drop it.\n`,
      );
    } else {
      process.stderr.write(
        `NATS at ${config.NATS_URL} is unreachable, so the edges were not told: the old root key is ` +
          'refused by accounts now, and by each edge once its cached entry expires ' +
          '(GW_AUTH_CACHE_TTL_MS, 30 s by default). The operation log has no entry for this rotation.\n',
      );
    }
  } finally {
    await nc?.drain();
    await database.close();
  }
});
