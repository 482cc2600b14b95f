import { mkdirSync } from 'node:fs';
import { freePort, waitFor } from './ports.js';
import { startProcess, type RunningProcess } from './process.js';

const NATS_SERVER = '/usr/sbin/nats-server';

export interface NatsServer {
  url: string;
  process: RunningProcess;
}

/**
 * A private nats-server with JetStream on a free port, its store in storeDir, so subjects and
 * streams of parallel test runs never mix. Resolves once it is ready; a server that does not get
 * ready is stopped and its output reported.
 */
export async function startNatsServer(storeDir: string): Promise<NatsServer> {
  mkdirSync(storeDir, { recursive: true });
  const port = await freePort();
  const server = startProcess(
    'nats',
    NATS_SERVER,
    ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir],
    {
      cwd: storeDir,
      env: {},
    },
  );
  try {
    await waitFor(() => Promise.resolve(server.output().includes('Server is ready')), 'nats-server', 10_000);
  } catch (error) {
    await server.kill();
    throw new Error(`${String(error)}\n${server.output().slice(-2000)}`);
  }
  return { url: `nats://127.0.0.1:${port}`, process: server };
}
