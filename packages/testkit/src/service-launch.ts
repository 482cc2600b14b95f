import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addressVariable, GRPC_SERVICES, isServing, type ServiceName } from '@gw/kit';
import { inheritedEnv, runsCompiledServices } from './config.js';
import { freePort } from './ports.js';
import { startProcess, type RunningProcess } from './process.js';

/**
 * How the test harness launches the gateway's processes, for `startGateway` (all of them) and
 * `startService` (one gRPC service and what it dials) alike: the environment they share, the
 * command of one process, and when it serves.
 */

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

/** A process behind the edge: a gRPC service or the proxy. */
export type BackingService = Exclude<ServiceName, 'edge'>;

/**
 * The folder a service runs from when compiled (what its image holds: `dist/` and production
 * dependencies); undefined runs its TypeScript source through tsx.
 */
export type CompiledRoot = ((service: ServiceName) => string) | undefined;

/** Each service's workspace folder, when the test run compiled them (see build-for-int-tests.ts). */
export const workspaceCompiled: CompiledRoot = runsCompiledServices()
  ? (service: ServiceName) => join(REPO, 'services', service)
  : undefined;

/**
 * The variables every process of one test's gateway shares: fresh secrets, Redis prefixes of its
 * own (Redis is the machine's, shared by parallel runs), its data folder, NATS and PostgreSQL,
 * and a free address for every backing service and the edge's port, whether or not the test
 * starts them (keypool, config and mailer refuse each of them as an upstream).
 */
export async function sharedEnv(stores: {
  dataDir: string;
  natsUrl: string;
  databaseUrl?: string;
}): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    GW_INTERNAL_TOKEN: randomBytes(24).toString('hex'),
    GW_ROOT_KEY: `sk-gw-test-${randomBytes(24).toString('base64url')}`,
    GW_SECRET_KEY: randomBytes(32).toString('hex'),
    GW_QUEUE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}`,
    GW_KEY_STATE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:`,
    GW_SIGNUP_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:signup:`,
    GW_CONSOLE_SESSION_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:console:`,
    GW_DATA_DIR: stores.dataDir,
    NATS_URL: stores.natsUrl,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ...(stores.databaseUrl ? { DATABASE_URL: stores.databaseUrl } : {}),
  };
  for (const service of [...GRPC_SERVICES, 'proxy'] as const) {
    env[addressVariable(service)] = `127.0.0.1:${await freePort()}`;
  }
  env.GW_EDGE_PORT = String(await freePort());
  return env;
}

/** Starts one service as a real process: its compiled `dist/` under `compiledRoot`, else its source. */
export function serviceProcess(
  name: ServiceName,
  env: Record<string, string>,
  compiledRoot: CompiledRoot,
): RunningProcess {
  const fullEnv = { ...inheritedEnv(), ...env };
  if (compiledRoot) {
    // The image's command: @gw/kit and @gw/proto resolve to their dist/ under this condition.
    return startProcess(name, process.execPath, ['--conditions=gw-dist', join('dist', 'main.js')], {
      cwd: compiledRoot(name),
      env: fullEnv,
    });
  }
  return startProcess(name, process.execPath, ['--import', 'tsx', join('services', name, 'src', 'main.ts')], {
    cwd: REPO,
    env: fullEnv,
  });
}

/** Whether one backing process serves: grpc.health.v1 for a gRPC service, /internal/healthz for the proxy. */
export async function serving(name: BackingService, env: Record<string, string>): Promise<boolean> {
  const address = env[addressVariable(name)] ?? '';
  if (name === 'proxy') {
    return (await fetch(`http://${address}/internal/healthz`)).ok;
  }
  return isServing(address, '');
}

/**
 * Runs a start once more when it failed only because another program took one of its free
 * ports meanwhile; any other failure is the caller's.
 */
export async function startAgainIfPortTaken<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (!String(error).includes('EADDRINUSE')) {
      throw error;
    }
    return start();
  }
}

/** The last output of each process, for the error of a start that failed. */
export function lastOutputs(processes: Iterable<RunningProcess>): string {
  return [...processes].map((p) => `--- ${p.name}\n${p.output().slice(-3000)}`).join('\n');
}
