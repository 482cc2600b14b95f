import { spawn, spawnSync } from 'node:child_process';
import { accessSync, closeSync, constants, mkdirSync, openSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { canConnect, isLoopback, urlEndpoint, waitForPort } from './net.js';

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

export type DependencyState = 'running' | 'started';

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
  start: (path: string, host: string, port: number) => void,
  options: EnsureOptions,
): Promise<DependencyState> {
  const { host, port } = urlEndpoint(url, defaultPort);
  if (await canConnect(host, port)) {
    return 'running';
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
  start(path, host === 'localhost' ? '127.0.0.1' : host, port);
  if (!(await waitForPort(host, port, { timeoutMs: options.timeoutMs ?? 15_000 }))) {
    throw new MissingDependencyError(`started ${binary} but ${host}:${port} still does not answer`);
  }
  return 'started';
}

/** Starts a throw-away local redis-server (daemonized, no persistence) when REDIS_URL is down. */
export function ensureRedis(url: string, options: EnsureOptions = {}): Promise<DependencyState> {
  return ensureServer(
    'Redis',
    url,
    6379,
    'redis-server',
    (path, host, port) => {
      const result = spawnSync(
        path,
        ['--daemonize', 'yes', '--bind', host, '--port', String(port), '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      if (result.status !== 0) {
        throw new MissingDependencyError(
          `redis-server failed to start (exit ${String(result.status ?? result.error?.message)})`,
        );
      }
    },
    options,
  );
}

/**
 * Starts a local nats-server with JetStream storing under `<dataDir>/nats` when NATS_URL is down.
 * It runs detached (it outlives this launcher, like the Redis daemon) and logs to
 * `<dataDir>/nats-server.log`.
 */
export function ensureNats(
  url: string,
  dataDir: string,
  options: EnsureOptions = {},
): Promise<DependencyState> {
  return ensureServer(
    'NATS',
    url,
    4222,
    'nats-server',
    (path, host, port) => {
      const storeDir = join(dataDir, 'nats');
      mkdirSync(storeDir, { recursive: true });
      const logFd = openSync(join(dataDir, 'nats-server.log'), 'a');
      try {
        const child = spawn(path, ['-a', host, '-p', String(port), '-js', '-sd', storeDir], {
          detached: true,
          stdio: ['ignore', logFd, logFd],
        });
        child.unref();
      } finally {
        closeSync(logFd);
      }
    },
    options,
  );
}
