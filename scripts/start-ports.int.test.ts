import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGw, startGw } from '../packages/cli/test/gw.js';
import { ALL_SERVICES, localPorts, splitAddress } from '../packages/kit/src/topology.js';
import { createTestDatabase, waitFor, type TestDatabase } from '../packages/testkit/src/index.js';
import { canConnect } from './lib/net.js';
import { freeBase, launch, type Launched } from './launcher-fixture.js';

const endpoint = (url: string) => new URL(url);
const answers = (url: string) => canConnect(endpoint(url).hostname, Number(endpoint(url).port));

describe('npm start with GW_PORT_BASE, and npx gw on the gateway it started', () => {
  let database: TestDatabase;
  let dataDir: string;
  let base: number;
  let ports: ReturnType<typeof localPorts>;
  let run: Launched;
  let rootKey: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gw-ports-'));
    database = await createTestDatabase();
    base = await freeBase();
    ports = localPorts(base);
    // Only the base: no PORT, <NAME>_ADDR, REDIS_URL or NATS_URL. The launcher starts its own
    // Redis and NATS at the base's offsets.
    run = launch({
      GW_PORT_BASE: String(base),
      GW_DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    await waitFor(
      () => Promise.resolve(run.output().includes('gateway ready')),
      'gateway ready',
      120_000,
      200,
    );
    rootKey = /export ROOT_KEY=(\S+)/.exec(run.output())?.[1] ?? '';
  });

  afterAll(async () => {
    if (run.child.exitCode === null) {
      process.kill(-(run.child.pid ?? 0), 'SIGKILL');
    }
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const status = async (key: string) =>
    (
      await fetch(`http://127.0.0.1:${base}/dashboard/status`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).status;

  it('listens on the base and its fixed offsets only, Redis and NATS among them', async () => {
    expect(run.output()).toContain(`gateway ready: http://127.0.0.1:${base}`);
    expect(await status(rootKey)).toBe(200);
    // The proxy on the base (the front door), the edge behind it on the base +1.
    expect((await fetch(`http://127.0.0.1:${base}/internal/healthz`)).status).toBe(200);
    expect((await fetch(`http://${ports.edge}/livez`)).status).toBe(200);
    for (const address of Object.values(ports.addresses)) {
      const { host, port } = splitAddress(address);
      expect(await canConnect(host, port), address).toBe(true);
    }
    for (const service of ALL_SERVICES) {
      const scraped = await fetch(`http://127.0.0.1:${ports.metrics[service]}/metrics`);
      expect(await scraped.text(), service).toContain(`service="${service}"`);
    }
    expect(await answers(ports.redisUrl)).toBe(true);
    expect(await answers(ports.natsUrl)).toBe(true);
    expect(run.output()).toContain('Ctrl-C stops it and the redis and nats this start started');
  });

  it('refuses a second npm start on the same data folder', async () => {
    const second = launch({ GW_PORT_BASE: String(base), GW_DATA_DIR: dataDir, DATABASE_URL: database.url });
    const code = await new Promise<number | null>((resolve) => second.child.once('exit', resolve));
    expect(code).toBe(1);
    expect(second.output()).toContain(`another npm start (pid ${String(run.child.pid)}) runs on ${dataDir}`);
  });

  it('gw events tail, given only the data folder, reads the NATS the gateway uses and says so', async () => {
    const tail = startGw(['events', 'tail'], { GW_DATA_DIR: dataDir });
    try {
      await waitFor(() => Promise.resolve(tail.output().includes('tailing ')), 'gw events tail to subscribe');
      expect(tail.output()).toContain(`tailing gw.> on ${ports.natsUrl} (recorded by npm start`);
      const created = await fetch(`http://127.0.0.1:${base}/x-users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${rootKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ Name: 'porttail01', Email: 'porttail01@example.com', CreditGranted: 2 }),
      });
      expect(created.status, await created.clone().text()).toBe(200);
      await waitFor(
        () => Promise.resolve(/AuditRecorded[^\n]*add_user/.test(tail.output())),
        'the add_user event',
      );
    } finally {
      await tail.stop();
    }
  });

  it('gw root-key --rotate refuses while that gateway runs, changing nothing', async () => {
    const { code, output } = await runGw(['root-key', '--rotate'], { GW_DATA_DIR: dataDir });
    expect(code).toBe(1);
    expect(output).toContain(
      `the gateway on ${dataDir} is running (npm start, pid ${String(run.child.pid)})`,
    );
    expect(output).not.toContain('sk-gw-');
    expect(output).not.toContain('revoked');
    expect(await status(rootKey)).toBe(200);
  });

  it('on Ctrl-C stops the Redis and NATS it started; then gw uses the recorded NATS and database settings', async () => {
    const exited = new Promise<number | null>((resolve) => run.child.once('exit', resolve));
    process.kill(-(run.child.pid ?? 0), 'SIGINT');
    expect(await exited).toBe(0);
    await waitFor(
      async () => !(await answers(ports.redisUrl)) && !(await answers(ports.natsUrl)),
      'Redis and NATS to stop',
    );

    // The data is in DATABASE_URL, not in the folder: without it there is nothing to rotate.
    const forgotten = await runGw(['root-key', '--rotate'], { GW_DATA_DIR: dataDir });
    expect(forgotten.code).toBe(1);
    expect(forgotten.output).toContain('keeps its data in DATABASE_URL');
    expect(forgotten.output).not.toContain('sk-gw-');

    // With it, the rotation happens; its events go to the gateway's NATS (stopped), never elsewhere.
    const rotated = await runGw(['root-key', '--rotate'], {
      GW_DATA_DIR: dataDir,
      DATABASE_URL: database.url,
    });
    expect(rotated.code, rotated.output).toBe(0);
    expect(rotated.output).toContain(`NATS at ${ports.natsUrl} is unreachable`);
    expect(rotated.output).not.toContain('told every edge');
  });
});
