import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STREAMS } from '@gw/kit';
import {
  startGateway,
  startProcess,
  waitFor,
  type Gateway,
  type RunningProcess,
  MockUpstream,
} from '@gw/testkit';
import { connect } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const NATS_SERVER = '/usr/sbin/nats-server';

/**
 * Usage waits in the proxy's durable outbox while NATS is down, calls beyond the
 * bound get 503 before upstream is called, a proxy killed with events buffered loses none, and
 * everything reaches the stream once NATS is back.
 */
describe('usage outbox (NATS outage, proxy crash)', () => {
  let gw: Gateway;
  let mock: MockUpstream;
  const key = `outbox-${randomBytes(8).toString('hex')}`;

  const natsPort = () => Number(new URL(gw.env.NATS_URL ?? '').port);
  const startNats = () => {
    const nats = startProcess(
      'nats-restarted',
      NATS_SERVER,
      ['-a', '127.0.0.1', '-p', String(natsPort()), '-js', '-sd', join(gw.env.GW_DATA_DIR ?? '', 'nats')],
      { cwd: gw.env.GW_DATA_DIR ?? '', env: {} },
    );
    gw.processes.set('nats', nats);
    return nats;
  };
  const startProxy = () => {
    const proxy = startProcess(
      'proxy',
      process.execPath,
      ['--import', 'tsx', join('services', 'proxy', 'src', 'main.ts')],
      {
        cwd: REPO,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...gw.env },
      },
    );
    gw.processes.set('proxy', proxy);
    return proxy;
  };
  const chat = () =>
    gw.request('/v1/chat/completions', {
      method: 'POST',
      json: { model: 'gpt-outbox', messages: [{ role: 'user', content: 'hi' }] },
    });
  const streamedMessages = async () => {
    const nc = await connect({ servers: gw.natsUrl });
    try {
      const jsm = await nc.jetstreamManager();
      return (await jsm.streams.info(STREAMS.usage.name)).state.messages;
    } finally {
      await nc.close();
    }
  };
  const proxyOutbox = async () => {
    const response = await fetch(`http://${gw.env.PROXY_ADDR}/internal/healthz`);
    return ((await response.json()) as { outbox: number }).outbox;
  };

  beforeAll(async () => {
    mock = await MockUpstream.start();
    gw = await startGateway({
      env: {
        PROXY_OUTBOX_MAX: '3',
        GW_PUBLIC_URL: 'https://gateway.example.test',
        GW_KEY_STATE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:`,
      },
    });
    expect(
      (
        await gw.request('/x-keys', {
          method: 'POST',
          json: { SecretKey: key, Level: 1, Provider: mock.url },
        })
      ).status,
    ).toBe(200);
    expect(
      (await gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: 'gpt-outbox=1' } })).status,
    ).toBe(200);
  });

  afterAll(async () => {
    await gw.stop();
    await mock.stop();
  });

  it('buffers usage while NATS is down, refuses calls past the bound before upstream, and loses nothing across a proxy crash', async () => {
    expect((await chat()).status).toBe(200);
    await waitFor(async () => (await streamedMessages()) === 1, 'first event on the stream', 5_000, 50);

    await (gw.processes.get('nats') as RunningProcess).kill();
    for (let i = 0; i < 3; i += 1) {
      const response = await chat();
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    expect(await proxyOutbox()).toBe(3);

    const refused = await chat();
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unavailable');
    expect(mock.for(key)).toHaveLength(4);

    // The proxy dies with three events buffered; NATS comes back; a new proxy replays the file.
    await (gw.processes.get('proxy') as RunningProcess).kill();
    startNats();
    await waitFor(
      async () => {
        await streamedMessages();
        return true;
      },
      'nats back',
      10_000,
      100,
    );
    startProxy();
    await waitFor(async () => (await proxyOutbox()) === 0, 'outbox drained', 30_000, 100);
    expect(await streamedMessages()).toBe(4);

    expect((await chat()).status).toBe(200);
    await waitFor(async () => (await streamedMessages()) === 5, 'next event on the stream', 5_000, 50);
  });
});
