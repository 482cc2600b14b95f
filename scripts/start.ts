// `npm start`: runs the whole gateway locally, one process per service.
//
// 1 settle the environment (ports, data dir, secrets) · 2 make sure Redis and NATS answer,
// starting local servers when installed, and without DATABASE_URL start the one embedded
// PostgreSQL every service shares (a schema each, as with DATABASE_URL) · 3 spawn the gRPC services and proxy, wait for their
// ports · 4 spawn edge, print the public URL (and a root key created by this start) once its
// /healthz answers · 5 on Ctrl-C/SIGTERM stop everything, outside in, and last the PostgreSQL,
// Redis and NATS this start started itself; if any child dies on its own, stop the rest and exit
// non-zero. The proxy is the front door on the public HOST:PORT (docs/adr/0010): it passes every
// request that is not an AI call to the edge, which listens on EDGE_ADDR.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// The launcher is not a workspace package, so it reads the topology straight from the kit source
// (a dependency-free module).
import { ALL_SERVICES, type ServiceName } from '../packages/kit/src/topology.js';
import { recordSettings, releaseLock, takeLock } from '../packages/kit/src/local-gateway.js';
import { hasCluster, runningServer, startEmbeddedPostgres } from '../packages/cli/src/embedded-postgres.js';
import { ensureNats, ensureRedis, MissingDependencyError, type LocalServer } from './lib/local-deps.js';
import { compileForStart, START_FOLDER } from './lib/compile.js';
import { canConnect, dialHost, waitForHttp200, waitForPort } from './lib/net.js';
import {
  linePrefix,
  spawnLogged,
  spawnPrefixed,
  stopAll,
  type ExitInfo,
  type ManagedProcess,
} from './lib/processes.js';
import { nodeFlagsOf } from './lib/node-flags.js';
import { edgeListenEnv, launchPorts, listenOf } from './lib/ports.js';
import { persistentSecret } from './lib/secrets.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const STOP_TIMEOUT_MS = 15_000;
const PORT_TIMEOUT_MS = 90_000;
const width = Math.max('start'.length, ...ALL_SERVICES.map((name) => name.length));
const ownPrefix = linePrefix('start', width);

function say(line: string): void {
  process.stdout.write(`${ownPrefix}${line}\n`);
}

function describeExit(exit: ExitInfo): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${String(exit.code)}`;
}

// 1 environment ------------------------------------------------------------------------------
const source = process.env;
// GW_PORT_BASE moves every port at once; a variable of its own still wins.
const launchAt = launchPorts(source);
if (launchAt instanceof Error) {
  say(launchAt.message);
  process.exit(1);
}
const { port, redisUrl, natsUrl, postgresPort, addresses, metricsAddress } = launchAt;
const dataDir = resolve(source.GW_DATA_DIR ?? join(root, '.data'));
mkdirSync(dataDir, { recursive: true });
// The data folder belongs to one launcher: `npx gw` refuses to change it while this lock is held.
const holder = takeLock(dataDir);
if (holder) {
  say(
    `another npm start (pid ${holder.pid}) runs on ${dataDir}: stop it first, or give this one its own GW_DATA_DIR`,
  );
  process.exit(1);
}
process.on('exit', () => releaseLock(dataDir));

const childEnv: NodeJS.ProcessEnv = {
  ...source,
  // The public port as the other processes know it: keypool and proxy refuse it as a Provider.
  GW_EDGE_PORT: port,
  GW_DATA_DIR: dataDir,
  REDIS_URL: redisUrl,
  NATS_URL: natsUrl,
  ...addresses,
  // Kept under the data dir so restarts (and a service started by hand) use the same values.
  GW_INTERNAL_TOKEN: source.GW_INTERNAL_TOKEN ?? persistentSecret(join(dataDir, 'internal.token')),
  GW_SECRET_KEY: source.GW_SECRET_KEY ?? persistentSecret(join(dataDir, 'secret.key')),
};

/** Services to run: all of them, or the comma list in GW_SERVICES (for working on a few). */
function selectedServices(): ServiceName[] {
  const wanted = source.GW_SERVICES?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (!wanted?.length) {
    return [...ALL_SERVICES];
  }
  const unknown = wanted.filter((name) => !(ALL_SERVICES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    say(`GW_SERVICES names unknown services: ${unknown.join(', ')} (known: ${ALL_SERVICES.join(', ')})`);
    process.exit(1);
  }
  return ALL_SERVICES.filter((name) => wanted.includes(name));
}

/**
 * The web console the edge serves at /console/ is built once (vite) when its build is missing,
 * so a fresh clone needs no extra command; `npm run build:console` rebuilds it after a change.
 */
function ensureConsoleBuilt(): void {
  if (existsSync(join(root, 'packages', 'console', 'dist', 'index.html'))) {
    return;
  }
  say('building the web console (once)');
  const built = spawnSync('npm', ['run', 'build:console'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) {
    say('the console build failed: the gateway starts without /console/');
  }
}
ensureConsoleBuilt();

// 5 lifecycle --------------------------------------------------------------------------------
const processes: ManagedProcess[] = [];
/** Redis and NATS when this launcher started them: it stops them last, and only them. */
const ownServers: ManagedProcess[] = [];
// Each process named in `ps`: the services call themselves gw-<name> (kit's runService).
process.title = 'gw-start';
const stopped = new AbortController();
let stopping = false;
/** A function, not the variable, so that checks after an await are not narrowed away. */
const isStopping = () => stopping;

async function shutdown(exitCode: number): Promise<void> {
  if (stopping) {
    return;
  }
  stopping = true;
  stopped.abort();
  if (processes.some((p) => !p.done)) {
    say('stopping every service');
  }
  // Outside in: the proxy, the front door, stops taking requests first, then the edge (which
  // flushes the key last-use times it owes accounts) before the services behind it go. Children
  // have their own process group, so a terminal's Ctrl-C reaches only us and this order holds.
  const waves = [['proxy'], ['edge']].map((names) => processes.filter((p) => names.includes(p.name)));
  const rest = processes.filter((p) => !waves.flat().includes(p));
  const killed: string[] = [];
  for (const wave of [...waves, rest]) {
    killed.push(...(await stopAll(wave, STOP_TIMEOUT_MS)));
  }
  if (ownServers.some((p) => !p.done)) {
    say(`stopping what this start started: ${ownServers.map((p) => p.name).join(', ')}`);
    killed.push(...(await stopAll(ownServers, STOP_TIMEOUT_MS)));
  }
  if (killed.length > 0) {
    say(`killed after ${STOP_TIMEOUT_MS / 1000}s: ${killed.join(', ')}`);
  }
  process.exit(exitCode);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) {
      say(`${signal} again: killing every service now`);
      for (const p of processes) {
        p.child.kill('SIGKILL');
      }
      // Redis saves its snapshot on SIGTERM; both servers stop on it quickly.
      for (const p of ownServers) {
        p.child.kill(p.stopSignal ?? 'SIGTERM');
      }
      process.exit(1);
    }
    void shutdown(0);
  });
}

/** The key accounts prints once, when this start created root with a generated key. */
const ROOT_KEY_LINE = /Root API key \(shown once, keep it safe\): (\S+)/;
let createdRootKey: string | undefined;

function launch(name: ServiceName): ManagedProcess {
  const cwd = join(root, 'services', name);
  const managed = spawnPrefixed(
    name,
    process.execPath,
    [...nodeFlagsOf(name), '--conditions=gw-start', join(START_FOLDER, 'main.js')],
    {
      cwd,
      // Each process its own metrics address (docs/operations.md), away from every listen address.
      env: {
        ...childEnv,
        ...(name === 'edge' ? edgeListenEnv(addresses) : {}),
        METRICS_ADDR: metricsAddress(name),
      },
      prefix: linePrefix(name, width),
      // Only accounts prints the key; the other services' lines are copied without a look.
      ...(name === 'accounts'
        ? {
            onLine: (line: string) => {
              createdRootKey ??= ROOT_KEY_LINE.exec(line)?.[1];
            },
          }
        : {}),
    },
  );
  processes.push(managed);
  void managed.exited.then(async (exit) => {
    if (!stopping) {
      say(`${name} exited unexpectedly (${describeExit(exit)}); stopping the others`);
      await shutdown(1);
    }
  });
  return managed;
}

/** Stops the gateway when a server this start started dies on its own. */
function watch(server: ManagedProcess): void {
  ownServers.push(server);
  void server.exited.then(async (exit) => {
    if (!stopping) {
      say(`${server.name} exited unexpectedly (${describeExit(exit)}); stopping the others`);
      await shutdown(1);
    }
  });
}

/** Watches a server this start started; describes the server's state for the start line. */
function adopt(server: LocalServer): string {
  if (server.state === 'running') {
    return 'already running';
  }
  watch(server.process);
  return 'started here (stopped with the gateway)';
}

/**
 * Without DATABASE_URL: the one embedded PostgreSQL under the data folder, on 127.0.0.1 at
 * postgresPort, stopped last with the gateway; every service gets its URL as DATABASE_URL.
 * Answers false (after saying why) when it cannot start.
 */
async function startDatabase(): Promise<boolean> {
  if (source.DATABASE_URL) {
    return true;
  }
  // A server an earlier, killed start left on this folder is stopped below; anything else on the
  // port is not ours.
  if (runningServer(dataDir) === undefined && (await canConnect('127.0.0.1', postgresPort))) {
    say(
      `127.0.0.1:${postgresPort} (the embedded PostgreSQL's port) is already in use: set GW_POSTGRES_PORT (or GW_PORT_BASE) to a free port, or DATABASE_URL to use a PostgreSQL of your own`,
    );
    return false;
  }
  if (!hasCluster(dataDir) && existsSync(join(dataDir, 'pglite'))) {
    say(
      `${join(dataDir, 'pglite')} holds the data of an earlier version (a PGlite database per service): it is not read any more; this start begins with an empty database`,
    );
  }
  const logFile = join(dataDir, 'postgres.log');
  try {
    const started = await startEmbeddedPostgres({
      dataDir,
      port: postgresPort,
      logFile,
      log: say,
      // This start holds the folder's lock: a server still running there was left by a killed one.
      stopLeftover: true,
      spawnServer: (command, args, ids) => {
        const server = spawnLogged('postgres', command, args, logFile, { ...ids, stopSignal: 'SIGINT' });
        // Stopped by a Ctrl-C that comes while it starts, too.
        watch(server);
        return server.child;
      },
    });
    childEnv.DATABASE_URL = started.url;
  } catch (error) {
    if (!isStopping()) {
      say(error instanceof Error ? error.message : String(error));
    }
    return false;
  }
  return true;
}

async function main(): Promise<void> {
  const services = selectedServices();
  for (const name of services) {
    if (!existsSync(join(root, 'services', name, 'src', 'main.ts'))) {
      say(`services/${name}/src/main.ts does not exist (set GW_SERVICES to run only some services)`);
      process.exit(1);
    }
  }

  // 2 backing servers
  try {
    const log = (line: string) => say(line);
    const redis = adopt(await ensureRedis(redisUrl, dataDir, { log }));
    const nats = adopt(await ensureNats(natsUrl, dataDir, { log }));
    say(`Redis ${redis} (${redisUrl}), NATS ${nats} (${natsUrl}), data in ${dataDir}`);
    if (!(await startDatabase())) {
      await shutdown(1);
      return;
    }
    say(
      source.DATABASE_URL
        ? 'database: DATABASE_URL'
        : `database: embedded PostgreSQL on 127.0.0.1:${postgresPort} (started here, stopped with the gateway)`,
    );
  } catch (error) {
    if (error instanceof MissingDependencyError) {
      say(error.message);
      await shutdown(1);
      return;
    }
    throw error;
  }
  // What `npx gw` reads to find this gateway (its NATS, its services, where its data is).
  recordSettings(dataDir, {
    natsUrl,
    redisUrl,
    edgeUrl: `http://127.0.0.1:${port}`,
    addresses,
    externalDatabase: Boolean(source.DATABASE_URL),
    startedAt: new Date().toISOString(),
  });

  for (const name of services) {
    const at = listenOf(addresses, name);
    if (at.port !== 0 && (await canConnect(at.host, at.port))) {
      say(
        `${dialHost(at.host)}:${at.port} (${at.variable}) is already in use: is the gateway already running? Set ${at.variable} (or GW_PORT_BASE) to a free address.`,
      );
      await shutdown(1);
      return;
    }
  }

  // 3 gRPC services and proxy (transpiled first), then wait until each one listens
  await compileForStart([
    join(root, 'packages', 'kit'),
    join(root, 'packages', 'proto'),
    ...services.map((name) => join(root, 'services', name)),
  ]);
  const backends = services.filter((name) => name !== 'edge');
  for (const name of backends) {
    launch(name);
  }
  const ready = await Promise.all(
    backends.map(async (name) => {
      const at = listenOf(addresses, name);
      return at.port === 0 ||
        (await waitForPort(at.host, at.port, { timeoutMs: PORT_TIMEOUT_MS, signal: stopped.signal }))
        ? undefined
        : name;
    }),
  );
  if (isStopping()) {
    return;
  }
  const late = ready.filter((name) => name !== undefined);
  if (late.length > 0) {
    say(`not listening after ${PORT_TIMEOUT_MS / 1000}s: ${late.join(', ')}`);
    await shutdown(1);
    return;
  }

  // 4 edge last; the gateway is ready once its public /healthz answers through the proxy (the
  // edge's own address when the proxy is not run)
  if (services.includes('edge')) {
    launch('edge');
    const edgeAt = listenOf(addresses, 'edge');
    const url = services.includes('proxy')
      ? `http://127.0.0.1:${port}`
      : `http://${dialHost(edgeAt.host)}:${edgeAt.port}`;
    if (await waitForHttp200(`${url}/healthz`, { timeoutMs: PORT_TIMEOUT_MS, signal: stopped.signal })) {
      process.stdout.write(`\n${ownPrefix}gateway ready: ${url}\n`);
      if (createdRootKey) {
        process.stdout.write(
          `${ownPrefix}root was created with this key (shown once; lost later: npx gw root-key --rotate):\n` +
            `${ownPrefix}  export ROOT_KEY=${createdRootKey}\n`,
        );
      }
      const names = ownServers.map((p) => p.name);
      const own = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join('');
      process.stdout.write(
        `${ownPrefix}Ctrl-C stops it${own ? ` and the ${own} this start started` : ''}\n\n`,
      );
    } else if (!isStopping()) {
      say(
        `the gateway did not answer ${url}/healthz within ${PORT_TIMEOUT_MS / 1000}s (still running; see its log)`,
      );
    }
  } else {
    say(`running: ${services.join(', ')}`);
  }
  // From here the exit watchers in launch() and the signal handlers decide when to stop.
}

main().catch(async (error: unknown) => {
  say(`start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  await shutdown(1);
});
