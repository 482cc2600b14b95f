import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addressVariable, createGrpcClient, type GrpcServiceName, type PromiseClient } from '@gw/kit';
import { accounts, billing, config, keypool, mailer, news } from '@gw/proto';
import { startNatsServer } from './nats.js';
import { createTestDatabase } from './postgres.js';
import { freePort, waitFor } from './ports.js';
import type { RunningProcess } from './process.js';
import {
  lastOutputs,
  serviceProcess,
  serving,
  sharedEnv,
  startAgainIfPortTaken,
  workspaceCompiled,
} from './service-launch.js';

const CLIENTS = {
  accounts: accounts.AccountsServiceClient,
  billing: billing.BillingServiceClient,
  keypool: keypool.KeypoolServiceClient,
  config: config.ConfigServiceClient,
  news: news.NewsServiceClient,
  mailer: mailer.MailerServiceClient,
};

/** The typed promise client of one gRPC service. */
export type ServiceClient<N extends GrpcServiceName> = PromiseClient<InstanceType<(typeof CLIENTS)[N]>>;

export interface ServiceOptions {
  /**
   * PostgreSQL URL of a database the test owns (to read or seed it). Without it, the service
   * gets a fresh database of its own on the machine's PostgreSQL, dropped when it stops.
   */
  databaseUrl?: string;
  env?: Record<string, string>;
  /**
   * The services it dials, started beside it on the same stores: billing dials accounts and
   * config, mailer dials accounts and config, keypool dials config; accounts, config and news
   * dial none.
   */
  with?: GrpcServiceName[];
  /** The deadline of each call of the clients it answers (the kit's default otherwise). */
  deadlineMs?: number;
}

export interface StartedService<N extends GrpcServiceName> {
  /** Where the service serves gRPC: `host:port`. */
  address: string;
  client: ServiceClient<N>;
  /** Every variable its processes got (the addresses of the services not started included). */
  env: Record<string, string>;
  natsUrl: string;
  /** Root's key (GW_ROOT_KEY): accounts creates root with it at its first start. */
  rootKey: string;
  /** A client of one of the services started (this one or one asked `with`), closed by `stop`. */
  clientOf<M extends GrpcServiceName>(name: M): ServiceClient<M>;
  /** Everything the service under test printed so far (its current process). */
  output(): string;
  /** SIGKILLs the service under test (not those beside it), as a crash would; `restart` starts it again. */
  kill(): Promise<void>;
  /** Stops the service (not those beside it) and starts it again with these variables changed. */
  restart(changes?: Record<string, string>): Promise<void>;
  /**
   * Starts one more process of the service on the same stores and resolves with its address at
   * once, before it serves: the test watches its health itself. `stop` stops it too.
   */
  launchReplica(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts one gRPC service as a real process (compiled in int runs, like `startGateway`'s) against
 * its own PostgreSQL database, the machine's Redis under fresh key prefixes and a private
 * nats-server, with the services it dials when asked `with`; resolves once each reports SERVING.
 * For tests of that service's own behaviour, through its typed client: no edge, proxy or the
 * services it does not need.
 */
export function startService<N extends GrpcServiceName>(
  name: N,
  options: ServiceOptions = {},
): Promise<StartedService<N>> {
  return startAgainIfPortTaken(() => startServiceOnce(name, options));
}

async function startServiceOnce<N extends GrpcServiceName>(
  name: N,
  options: ServiceOptions,
): Promise<StartedService<N>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-test-'));
  const ownDatabase = options.databaseUrl ? undefined : await createTestDatabase();
  const databaseUrl = options.databaseUrl ?? ownDatabase?.url;
  const { url: natsUrl, process: nats } = await startNatsServer(join(dataDir, 'nats'));
  const env = { ...(await sharedEnv({ dataDir, natsUrl, databaseUrl })), ...options.env };
  const names = [...new Set([...(options.with ?? []), name])];
  const processes = new Map<string, RunningProcess>();
  const clients = new Map<GrpcServiceName, { close(): void }>();

  const stop = async () => {
    clients.forEach((client) => client.close());
    await Promise.all([...processes.values()].map((p) => p.stop()));
    await nats.stop();
    await ownDatabase?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const launch = (service: GrpcServiceName) => {
    processes.set(service, serviceProcess(service, env, workspaceCompiled));
  };
  const servingNow = (service: GrpcServiceName) =>
    waitFor(() => serving(service, env), `${service} serving`, 60_000, 200);

  try {
    names.forEach(launch);
    for (const service of names) {
      await servingNow(service);
    }
  } catch (error) {
    const logs = lastOutputs([nats, ...processes.values()]);
    await stop();
    throw new Error(`${name} did not start: ${String(error)}\n${logs}`);
  }

  /** One client per service, made on first use. */
  const clientOf = <M extends GrpcServiceName>(service: M): ServiceClient<M> => {
    if (!clients.has(service)) {
      const address = env[addressVariable(service)] ?? '';
      const token = env.GW_INTERNAL_TOKEN ?? '';
      clients.set(
        service,
        createGrpcClient<InstanceType<(typeof CLIENTS)[GrpcServiceName]>>(
          CLIENTS[service],
          address,
          token,
          options.deadlineMs,
        ),
      );
    }
    return clients.get(service) as unknown as ServiceClient<M>;
  };

  return {
    address: env[addressVariable(name)] ?? '',
    client: clientOf(name),
    env,
    natsUrl,
    rootKey: env.GW_ROOT_KEY ?? '',
    clientOf,
    output: () => processes.get(name)?.output() ?? '',
    kill: async () => processes.get(name)?.kill(),
    async launchReplica() {
      const address = `127.0.0.1:${await freePort()}`;
      const replicaEnv = { ...env, [addressVariable(name)]: address };
      processes.set(`${name}-${processes.size}`, serviceProcess(name, replicaEnv, workspaceCompiled));
      return address;
    },
    async restart(changes = {}) {
      await processes.get(name)?.stop();
      Object.assign(env, changes);
      launch(name);
      await servingNow(name);
    },
    stop,
  };
}
