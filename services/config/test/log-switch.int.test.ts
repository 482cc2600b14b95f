import { randomBytes } from 'node:crypto';
import {
  createUser,
  expectError,
  MockUpstream,
  startGateway,
  waitFor,
  waitForRoute,
  type Gateway,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Every JSON line a process printed (pino), in order. */
function logLines(gw: Gateway, process: string): Array<Record<string, unknown>> {
  return (gw.processes.get(process)?.output() ?? '').split('\n').flatMap((line) => {
    try {
      const parsed = JSON.parse(line) as Record<string, unknown> | null;
      return parsed && typeof parsed === 'object' ? [parsed] : [];
    } catch {
      return [];
    }
  });
}

const accessLines = (gw: Gateway, process: string, requestId: string) =>
  logLines(gw, process).filter((line) => line.msg === 'request' && line.requestId === requestId);

/** How many times a process said it applied this LogEnable value. */
const switched = (gw: Gateway, process: string, enabled: boolean) =>
  logLines(gw, process).filter((line) => line.msg === 'access log switched' && line.logEnable === enabled)
    .length;

/**
 * POST /x-conf LogEnable, the system-wide switch of the per-request access lines: root only, held
 * by the config service, applied by every edge and proxy on `gw.system.updated` (well within the
 * 30 s backstop), shown by GET /x-conf and read again by a process that starts later.
 */
describe('LogEnable: the system-wide access-line switch', () => {
  let gw: Gateway;
  let mock: MockUpstream;
  const secret = `log-switch-${randomBytes(8).toString('hex')}`;

  /**
   * Traffic under one request id: an AI call, whose line is the proxy's (it serves it), and a
   * management read, whose line is the edge's (the proxy passes it on; `edge` reads it from that
   * edge directly).
   */
  const traffic = async (requestId: string, edge?: string) => {
    const headers = { 'x-request-id': requestId };
    const response = await gw.request('/v1/chat/completions', {
      method: 'POST',
      headers,
      json: { model: 'gpt-logs', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    await response.arrayBuffer();
    expect((await gw.request('/dashboard/status', { base: edge, headers })).status).toBe(200);
  };
  const logEnable = async () => {
    const response = await gw.request('/x-conf');
    expect(response.status).toBe(200);
    return ((await response.json()) as { LogEnable: boolean }).LogEnable;
  };
  /** Sets the switch and waits until the edge and the proxy both applied it. */
  const setSwitch = async (enabled: boolean, processes = ['edge', 'proxy']) => {
    const before = new Map(processes.map((name) => [name, switched(gw, name, enabled)]));
    const response = await gw.request('/x-conf', { method: 'POST', json: { LogEnable: enabled } });
    expect(await response.json()).toEqual({ success: true, LogEnable: String(enabled) });
    const posted = Date.now();
    await waitFor(
      () => Promise.resolve(processes.every((name) => switched(gw, name, enabled) > (before.get(name) ?? 0))),
      `every process applying LogEnable ${enabled}`,
      10_000,
      20,
    );
    return Date.now() - posted;
  };

  beforeAll(async () => {
    mock = await MockUpstream.start();
    gw = await startGateway({ env: { LOG_LEVEL: 'info', GW_TENANCY: 'multi' } });
    const key = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: secret, Level: 1, Provider: mock.url },
    });
    expect(key.status, await key.clone().text()).toBe(200);
    const keyId = ((await key.json()) as { Key: { ID: number } }).Key.ID;
    const config = await gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: 'gpt-logs=1' } });
    expect(config.status).toBe(200);
    await waitForRoute(gw, 'gpt-logs', 1, [keyId]);
  });

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
    await (mock as MockUpstream | undefined)?.stop();
  });

  it('is on by default: GET /x-conf shows it and each request leaves its access line', async () => {
    expect(await logEnable()).toBe(true);
    await traffic('req-log-default');
    await waitFor(
      () =>
        Promise.resolve(
          ['edge', 'proxy'].every((name) => accessLines(gw, name, 'req-log-default').length === 1),
        ),
      'the access lines of the first requests',
    );
  });

  it('turned off, no edge or proxy writes an access line; turned on again, they do', async () => {
    const took = await setSwitch(false);
    // An event, not the 30 s backstop, carried it (a second on an idle machine; bounded loosely here).
    expect(took).toBeLessThan(5_000);
    expect(await logEnable()).toBe(false);
    await traffic('req-log-off');

    await setSwitch(true);
    expect(await logEnable()).toBe(true);
    await traffic('req-log-on');
    await waitFor(
      () =>
        Promise.resolve(['edge', 'proxy'].every((name) => accessLines(gw, name, 'req-log-on').length === 1)),
      'the access lines of the requests after the switch came back on',
    );
    // Written in order: the requests made while off would stand before these lines.
    for (const name of ['edge', 'proxy']) {
      expect(accessLines(gw, name, 'req-log-off'), name).toEqual([]);
    }
  });

  it('is root’s alone: an owner gets 403 and the switch stays as it was', async () => {
    const owner = await createUser(gw, { name: 'logowner1', extra: { IsOwner: true } });
    await expectError(
      await gw.request('/x-conf', { method: 'POST', key: owner.key, json: { LogEnable: false } }),
      403,
      'forbidden',
    );
    await expectError(
      await gw.request('/x-conf', {
        method: 'POST',
        key: owner.key,
        json: { ModelMapper: 'a=b', LogEnable: 'false' },
      }),
      403,
      'forbidden',
    );
    // Nothing of the refused batch was applied.
    const overview = await gw.request('/x-conf', { key: owner.key });
    expect(await overview.json()).toMatchObject({ ModelMapper: {}, LogEnable: true });
    expect(await logEnable()).toBe(true);
  });

  it('is kept: a proxy restarted and an edge started later read it off', async () => {
    await setSwitch(false);
    await gw.restartService('proxy');
    const replica = await gw.startEdgeReplica();
    await traffic('req-log-after-restart', replica);
    await setSwitch(true, ['edge', 'proxy', 'edge-1']);
    await traffic('req-log-after-restart-on', replica);
    await waitFor(
      () =>
        Promise.resolve(
          ['edge-1', 'proxy'].every((name) => accessLines(gw, name, 'req-log-after-restart-on').length === 1),
        ),
      'the access lines once the switch is on again',
    );
    for (const name of ['edge-1', 'proxy']) {
      expect(accessLines(gw, name, 'req-log-after-restart'), name).toEqual([]);
    }
  });
});
