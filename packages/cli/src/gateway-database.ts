import { join } from 'node:path';
import { addressVariable, isServing, lockHolder, releaseLock, takeLock, type GrpcServiceName } from '@gw/kit';
import type { GwConfig } from './config.js';
import {
  clusterDir,
  freeLocalPort,
  hasCluster,
  startEmbeddedPostgres,
  stopEmbeddedPostgres,
} from './embedded-postgres.js';

/**
 * Why `gw` must not change the data folder now, if it must not: the `npm start` that holds the
 * folder's lock is running (its processes hold what the command would rewrite).
 */
export function refusalWhileRunning(config: GwConfig, what: string): string | undefined {
  const holder = lockHolder(config.GW_DATA_DIR);
  return holder
    ? `the gateway on ${config.GW_DATA_DIR} is running (npm start, pid ${holder.pid}): stop it first (Ctrl-C), ${what}; nothing was changed`
    : undefined;
}

/**
 * Runs a command against the gateway's database: DATABASE_URL when set; otherwise the embedded
 * PostgreSQL in GW_DATA_DIR, which `gw` starts for the command (on a free port, holding the
 * folder's lock so that `npm start` waits) and stops after. Refused, before anything changes,
 * while the gateway on the folder runs, when that gateway keeps its data in DATABASE_URL, while
 * one of `stopped` still serves, or when the folder holds no database. Answers the exit code.
 */
export async function withGatewayDatabase(
  config: GwConfig,
  what: string,
  stopped: readonly GrpcServiceName[],
  run: (environment: NodeJS.ProcessEnv) => Promise<number>,
): Promise<number> {
  if (config.environment.DATABASE_URL) {
    return run(config.environment);
  }
  const refuse = (why: string) => {
    process.stderr.write(`gw: ${why}\n`);
    return 1;
  };
  const dataDir = config.GW_DATA_DIR;
  const running = refusalWhileRunning(config, what);
  if (running) {
    return refuse(running);
  }
  if (config.recorded?.externalDatabase) {
    return refuse(
      `the gateway on ${dataDir} keeps its data in DATABASE_URL: set DATABASE_URL to that database; nothing was changed`,
    );
  }
  for (const service of stopped) {
    const address = config.environment[addressVariable(service)] ?? '';
    if (await isServing(address, '')) {
      return refuse(`${service} is running at ${address}: stop it first, ${what}; nothing was changed`);
    }
  }
  if (!hasCluster(dataDir)) {
    return refuse(
      `${clusterDir(dataDir)} holds no embedded database (set GW_DATA_DIR to the gateway's data folder, or DATABASE_URL); nothing was changed`,
    );
  }
  const holder = takeLock(dataDir);
  if (holder) {
    return refuse(
      `npm start (pid ${holder.pid}) is starting on ${dataDir}: stop it first; nothing was changed`,
    );
  }
  try {
    let server;
    try {
      server = await startEmbeddedPostgres({
        dataDir,
        port: await freeLocalPort(),
        logFile: join(dataDir, 'postgres.log'),
      });
    } catch (error) {
      return refuse(`${error instanceof Error ? error.message : String(error)}; nothing was changed`);
    }
    process.stderr.write(`started the embedded PostgreSQL in ${clusterDir(dataDir)} for this command\n`);
    try {
      return await run({ ...config.environment, DATABASE_URL: server.url });
    } finally {
      await stopEmbeddedPostgres(server);
    }
  } finally {
    releaseLock(dataDir);
  }
}
