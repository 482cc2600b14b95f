import { tmpdir } from 'node:os';
import { freePort, waitFor } from './ports.js';
import { startProcess, type RunningProcess } from './process.js';

const REDIS_SERVER = '/usr/bin/redis-server';

export interface PrivateRedis {
  url: string;
  /** Stops the server (SIGTERM); its data is gone, as after a crash without persistence. */
  stop(): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
}

/**
 * A redis-server of the test's own on a free port, without persistence: for tests that stop and
 * restart Redis, which the machine's shared server must never be.
 */
export async function startRedisServer(): Promise<PrivateRedis> {
  const port = await freePort();
  let server: RunningProcess | undefined;
  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      await server?.stop();
      server = undefined;
    },
    async start() {
      const running = startProcess(
        'redis',
        REDIS_SERVER,
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { cwd: tmpdir(), env: {} },
      );
      server = running;
      try {
        await waitFor(
          () => Promise.resolve(running.output().includes('Ready to accept connections')),
          'redis-server',
          10_000,
          20,
        );
      } catch (error) {
        await running.kill();
        throw new Error(`${String(error)}\n${running.output().slice(-2000)}`);
      }
    },
  };
  await redis.start();
  return redis;
}
