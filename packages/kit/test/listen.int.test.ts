import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { listenHttp } from '../src/listen.js';
import { createLogger } from '../src/log.js';

/** A logger whose lines land in `lines`, parsed. */
function recordingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger('test', 'info', {
    write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { log, lines };
}

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./listen-fixture.ts', import.meta.url));

/** Runs the fixture service on `address` until it exits: its exit code and its log lines. */
function runFixture(
  address: string,
): Promise<{ code: number | null; lines: Array<Record<string, unknown>> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, address], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (data: Buffer) => (output += data.toString()));
  return new Promise((resolve) =>
    child.once('close', (code) =>
      resolve({
        code,
        lines: output
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>),
      }),
    ),
  );
}

function answering(): Server {
  return createServer((_req, res) => res.end('here'));
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

describe('listenHttp', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      servers
        .splice(0)
        .filter((server) => server.listening)
        .map(close),
    );
  });

  it('resolves with the port the system chose, serves on it and logs one listening line', async () => {
    const { log, lines } = recordingLogger();
    const server = answering();
    servers.push(server);

    const port = await listenHttp(server, '127.0.0.1:0', log, 'sample');

    expect(port).toBeGreaterThan(0);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('here');
    expect(lines.map(({ msg, address }) => ({ msg, address }))).toEqual([
      { msg: 'sample listening', address: `127.0.0.1:${port}` },
    ]);
  });

  it('rejects with EADDRINUSE when the port is taken, and logs nothing', async () => {
    const first = answering();
    servers.push(first);
    const taken = await listenHttp(first, { host: '127.0.0.1', port: 0 }, recordingLogger().log, 'first');
    const { log, lines } = recordingLogger();
    const second = answering();
    servers.push(second);

    await expect(listenHttp(second, { host: '127.0.0.1', port: taken }, log, 'second')).rejects.toMatchObject(
      {
        code: 'EADDRINUSE',
      },
    );
    expect(second.listening).toBe(false);
    expect(lines).toEqual([]);
  });

  it("fails a service's start when its port is taken: start-up failed naming EADDRINUSE, exit 1", async () => {
    const holder = answering();
    servers.push(holder);
    const taken = await listenHttp(holder, '127.0.0.1:0', recordingLogger().log, 'holder');

    const { code, lines } = await runFixture(`127.0.0.1:${taken}`);

    expect(code).toBe(1);
    const fatal = lines.find((line) => line.msg === 'start-up failed');
    expect(String((fatal?.err as { message?: string } | undefined)?.message)).toContain('EADDRINUSE');
    expect(lines.some((line) => line.msg === 'fixture listening')).toBe(false);
  });
});
