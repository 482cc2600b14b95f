// `npm start`: runs the whole gateway locally, one process per service.
//
// 1 settle the environment (ports, data dir, secrets) · 2 make sure Redis and NATS answer,
// starting local servers when installed · 3 spawn the gRPC services and proxy, wait for their
// ports · 4 spawn edge, print its URL (and a root key created by this start) once /healthz
// answers · 5 on Ctrl-C/SIGTERM stop everything, outside in; if any child dies on its own, stop
// the rest and exit non-zero.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// The launcher is not a workspace package, so it reads the topology straight from the kit source
// (a dependency-free module).
import {
  addressVariable,
  ALL_SERVICES,
  DEFAULT_ADDRESSES,
  LOCAL_METRICS_PORTS,
  metricsAddressVariable,
  splitAddress,
  type ServiceName,
} from '../packages/kit/src/topology.js';
import { ensureNats, ensureRedis, MissingDependencyError } from './lib/local-deps.js';
import { canConnect, dialHost, waitForHttp200, waitForPort } from './lib/net.js';
import { linePrefix, spawnPrefixed, stopAll, type ExitInfo, type ManagedProcess } from './lib/processes.js';
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
const port = source.PORT ?? '8080';
if (!/^\d{1,5}$/.test(port)) {
  say(`PORT must be a port number, got "${port}"`);
  process.exit(1);
}
const dataDir = resolve(source.GW_DATA_DIR ?? join(root, '.data'));
mkdirSync(dataDir, { recursive: true });
const redisUrl = source.REDIS_URL ?? 'redis://127.0.0.1:6379';
const natsUrl = source.NATS_URL ?? 'nats://127.0.0.1:4222';

const childEnv: NodeJS.ProcessEnv = {
  ...source,
  PORT: port,
  // The edge's port as the other processes know it: keypool and proxy refuse it as a Provider.
  GW_EDGE_PORT: port,
  GW_DATA_DIR: dataDir,
  REDIS_URL: redisUrl,
  NATS_URL: natsUrl,
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

/** Where a service listens: `<NAME>_ADDR` for gRPC services and proxy, PORT for edge. */
function listenOf(name: ServiceName): { host: string; port: number; variable: string } {
  if (name === 'edge') {
    return { host: '127.0.0.1', port: Number(port), variable: 'PORT' };
  }
  const variable = addressVariable(name);
  return { ...splitAddress(childEnv[variable] ?? DEFAULT_ADDRESSES[name]), variable };
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
  // Outside in: the edge stops taking requests (and flushes the key last-use times it owes
  // accounts) before the services behind it go. Children have their own process group, so a
  // terminal's Ctrl-C reaches only us and this order holds.
  const waves = [['edge'], ['proxy']].map((names) => processes.filter((p) => names.includes(p.name)));
  const rest = processes.filter((p) => !waves.flat().includes(p));
  const killed: string[] = [];
  for (const wave of [...waves, rest]) {
    killed.push(...(await stopAll(wave, STOP_TIMEOUT_MS)));
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
  const managed = spawnPrefixed(name, process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd,
    // Each process its own metrics address (docs/operations.md), away from every listen address.
    env: {
      ...childEnv,
      METRICS_ADDR: source[metricsAddressVariable(name)] ?? `127.0.0.1:${LOCAL_METRICS_PORTS[name]}`,
    },
    prefix: linePrefix(name, width),
    onLine: (line) => {
      createdRootKey ??= ROOT_KEY_LINE.exec(line)?.[1];
    },
  });
  processes.push(managed);
  void managed.exited.then(async (exit) => {
    if (!stopping) {
      say(`${name} exited unexpectedly (${describeExit(exit)}); stopping the others`);
      await shutdown(1);
    }
  });
  return managed;
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
    const redis = await ensureRedis(redisUrl, { log });
    const nats = await ensureNats(natsUrl, dataDir, { log });
    say(`Redis ${redis} (${redisUrl}), NATS ${nats} (${natsUrl}), data in ${dataDir}`);
  } catch (error) {
    if (error instanceof MissingDependencyError) {
      say(error.message);
      process.exit(1);
    }
    throw error;
  }

  for (const name of services) {
    const at = listenOf(name);
    if (at.port !== 0 && (await canConnect(at.host, at.port))) {
      say(
        `${dialHost(at.host)}:${at.port} (${at.variable}) is already in use: is the gateway already running? Set ${at.variable} to a free address.`,
      );
      process.exit(1);
    }
  }

  // 3 gRPC services and proxy, then wait until each one listens
  const backends = services.filter((name) => name !== 'edge');
  for (const name of backends) {
    launch(name);
  }
  const ready = await Promise.all(
    backends.map(async (name) => {
      const at = listenOf(name);
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

  // 4 edge last
  if (services.includes('edge')) {
    launch('edge');
    const url = `http://127.0.0.1:${port}`;
    if (await waitForHttp200(`${url}/healthz`, { timeoutMs: PORT_TIMEOUT_MS, signal: stopped.signal })) {
      process.stdout.write(`\n${ownPrefix}gateway ready: ${url}\n`);
      if (createdRootKey) {
        process.stdout.write(
          `${ownPrefix}root was created with this key (shown once; lost later: npx gw root-key --rotate):\n` +
            `${ownPrefix}  export ROOT_KEY=${createdRootKey}\n`,
        );
      }
      process.stdout.write('\n');
    } else if (!isStopping()) {
      say(
        `edge did not answer ${url}/healthz within ${PORT_TIMEOUT_MS / 1000}s (still running; see its log)`,
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
