import { accessSync, constants, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { canConnect, isLoopback, urlEndpoint, waitForPort } from './net.js';
import { spawnLogged, type ManagedProcess } from './processes.js';

/** A backing server (Redis, NATS) that is down and cannot be started here. */
export class MissingDependencyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingDependencyError';
  }
}

const INSTALL_HINT =
  'install it (Debian/Ubuntu: `sudo apt-get install redis-server nats-server`) or point the URL at a running server';
const EXTRA_BIN_DIRS = ['/usr/sbin', '/usr/bin', '/usr/local/bin', '/usr/local/sbin'];

/** Absolute path of an executable on PATH or in the usual system folders (sbin is often off PATH). */
export function findBinary(name: string, searchPath = process.env.PATH ?? ''): string | undefined {
  const dirs = [...searchPath.split(delimiter), ...EXTRA_BIN_DIRS].filter(Boolean);
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

/** A backing server as the launcher found it: already running, or started here (and stopped here). */
export type LocalServer = { state: 'running' } | { state: 'started'; process: ManagedProcess };

interface EnsureOptions {
  /** How long to wait for a started server to accept connections. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

async function ensureServer(
  label: string,
  url: string,
  defaultPort: number,
  binary: string,
  start: (path: string, host: string, port: number) => ManagedProcess,
  options: EnsureOptions,
): Promise<LocalServer> {
  const { host, port } = urlEndpoint(url, defaultPort);
  if (await canConnect(host, port)) {
    return { state: 'running' };
  }
  if (!isLoopback(host)) {
    throw new MissingDependencyError(
      `${label} at ${host}:${port} does not answer (it is not local, so it is not started here)`,
    );
  }
  const path = findBinary(binary);
  if (!path) {
    throw new MissingDependencyError(
      `${label} is not running on ${host}:${port} and \`${binary}\` is not installed: ${INSTALL_HINT}`,
    );
  }
  options.log?.(`${label} is not running on ${host}:${port}; starting ${path}`);
  const server = start(path, host === 'localhost' ? '127.0.0.1' : host, port);
  const answered = await Promise.race([
    waitForPort(host, port, { timeoutMs: options.timeoutMs ?? 15_000 }),
    server.exited.then(() => false),
  ]);
  if (!answered) {
    server.child.kill('SIGKILL');
    throw new MissingDependencyError(
      `started ${binary} but ${host}:${port} does not answer (its log: ${binary}.log in the data folder)`,
    );
  }
  return { state: 'started', process: server };
}

/**
 * Starts a local redis-server when REDIS_URL is down. It keeps its snapshot under
 * `<dataDir>/redis` (saved when it stops), so queued mail and sleeping keys outlive a restart, and
 * logs to `<dataDir>/redis-server.log`. The launcher stops it with the services.
 */
export function ensureRedis(url: string, dataDir: string, options: EnsureOptions = {}): Promise<LocalServer> {
  return ensureServer(
    'Redis',
    url,
    6379,
    'redis-server',
    (path, host, port) => {
      const dir = join(dataDir, 'redis');
      mkdirSync(dir, { recursive: true });
      const args = [
        '--bind',
        host,
        '--port',
        String(port),
        '--dir',
        dir,
        '--save',
        '60 1',
        '--appendonly',
        'no',
      ];
      return spawnLogged('redis', path, args, join(dataDir, 'redis-server.log'));
    },
    options,
  );
}

/**
 * Starts a local nats-server with JetStream storing under `<dataDir>/nats` when NATS_URL is down,
 * logging to `<dataDir>/nats-server.log`. The launcher stops it with the services.
 */
export function ensureNats(url: string, dataDir: string, options: EnsureOptions = {}): Promise<LocalServer> {
  return ensureServer(
    'NATS',
    url,
    4222,
    'nats-server',
    (path, host, port) => {
      const storeDir = join(dataDir, 'nats');
      mkdirSync(storeDir, { recursive: true });
      return spawnLogged(
        'nats',
        path,
        ['-a', host, '-p', String(port), '-js', '-sd', storeDir],
        join(dataDir, 'nats-server.log'),
      );
    },
    options,
  );
}
