import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  freePort,
  startProcess,
  waitFor,
  type RunningProcess,
  type TestDatabase,
} from '../packages/testkit/src/index.js';
import {
  addressVariable,
  ALL_SERVICES,
  GRPC_SERVICES,
  metricsAddressVariable,
  splitAddress,
} from '../packages/kit/src/topology.js';
import { launch, type Launched } from './launcher-fixture.js';
import { canConnect } from './lib/net.js';

describe('npm start', () => {
  let nats: RunningProcess;
  let database: TestDatabase;
  let dataDir: string;
  let env: Record<string, string>;
  let base: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gw-start-'));
    const natsPort = await freePort();
    nats = startProcess(
      'nats',
      '/usr/sbin/nats-server',
      ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', join(dataDir, 'nats')],
      {
        cwd: dataDir,
        env: {},
      },
    );
    await waitFor(() => Promise.resolve(nats.output().includes('Server is ready')), 'nats-server', 10_000);
    database = await createTestDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      GW_DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      GW_QUEUE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}`,
      GW_KEY_STATE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:`,
      // Info, for the services' own 'shutting down' and 'stopped' lines.
      LOG_LEVEL: 'info',
    };
    for (const service of GRPC_SERVICES) {
      env[addressVariable(service)] = `127.0.0.1:${await freePort()}`;
    }
    env.EDGE_ADDR = `127.0.0.1:${await freePort()}`;
    // Ignored: the proxy is the front door on HOST:PORT.
    env.PROXY_ADDR = `127.0.0.1:${await freePort()}`;
    for (const service of ALL_SERVICES) {
      env[metricsAddressVariable(service)] = `127.0.0.1:${await freePort()}`;
    }
  });

  afterAll(async () => {
    await nats.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Starts the launcher and waits for its ready banner. */
  async function started() {
    const run = launch(env);
    await waitFor(
      () => Promise.resolve(run.output().includes('gateway ready')),
      'gateway ready',
      120_000,
      200,
    );
    return run;
  }

  /** Ctrl-C in a terminal: SIGINT to the whole foreground process group. */
  async function interrupted(run: Launched) {
    const exited = new Promise<number | null>((resolve) => run.child.once('exit', (code) => resolve(code)));
    process.kill(-(run.child.pid ?? 0), 'SIGINT');
    return exited;
  }

  it('repeats a created root key at the banner and, on Ctrl-C, stops the edge before accounts', async () => {
    const first = await started();
    const rootKey = /export ROOT_KEY=(\S+)/.exec(first.output())?.[1] ?? '';
    expect(rootKey).toMatch(/^sk-gw-/);

    const created = await fetch(`${base}/x-users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ Name: 'launcher01', Email: 'launcher01@example.com', CreditGranted: 2 }),
    });
    expect(created.status).toBe(200);
    const child = ((await created.json()) as { User: { ID: number; SecretKey: string } }).User;
    // One use of the child's key: the edge keeps it until its next batch (10 s) or its stop.
    expect(
      (await fetch(`${base}/dashboard/status`, { headers: { authorization: `Bearer ${child.SecretKey}` } }))
        .status,
    ).toBe(200);
    // The proxy serves the public port (its own health under /internal/), the edge EDGE_ADDR
    // behind it; a PROXY_ADDR given to the launcher moves nothing.
    expect((await fetch(`${base}/internal/healthz`)).status).toBe(200);
    expect((await fetch(`http://${env.EDGE_ADDR ?? ''}/livez`)).status).toBe(200);
    const ignored = splitAddress(env.PROXY_ADDR ?? '');
    expect(await canConnect(ignored.host, ignored.port)).toBe(false);
    // Each process serves its metrics on the address the launcher gave it.
    for (const service of ALL_SERVICES) {
      const scraped = await fetch(`http://${env[metricsAddressVariable(service)] ?? ''}/metrics`);
      expect(await scraped.text(), service).toContain(`service="${service}"`);
    }

    const beforeStop = first.output().length;
    expect(await interrupted(first)).toBe(0);
    // The edge has stopped (its last key uses sent) before accounts starts to shut down.
    const stopping = first.output().slice(beforeStop);
    const edgeStopped = stopping.search(/\[edge\][^\n]*"msg":"stopped"/);
    const accountsStopping = stopping.search(/\[accounts\][^\n]*"msg":"shutting down"/);
    expect(edgeStopped).toBeGreaterThanOrEqual(0);
    expect(accountsStopping).toBeGreaterThan(edgeStopped);

    const second = await started();
    try {
      expect(second.output()).not.toContain('export ROOT_KEY=');
      const shown = await fetch(`${base}/x-users/${child.ID}`, {
        headers: { authorization: `Bearer ${rootKey}` },
      });
      const body = (await shown.json()) as
        { KeyLastUsedAt: string | null } | Array<{ KeyLastUsedAt: string | null }>;
      const account = Array.isArray(body) ? body[0] : body;
      expect(account?.KeyLastUsedAt).not.toBeNull();
    } finally {
      expect(await interrupted(second)).toBe(0);
    }
  });
});
