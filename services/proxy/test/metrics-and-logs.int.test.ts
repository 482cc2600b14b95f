import { randomBytes } from 'node:crypto';
import { GRPC_SERVICES } from '@gw/kit';
import {
  createTestDatabase,
  startGateway,
  waitFor,
  type Gateway,
  type TestDatabase,
  MockUpstream,
  waitForRoute,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** One sample of an exposition: its metric name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseExposition(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) {
      return [];
    }
    const labels = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    return [{ name: match[1] ?? '', labels, value: Number(match[3]) }];
  });
}

/** The value of the one sample with this name and (at least) these labels; 0 when there is none. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string>): number {
  const found = samples.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  return found.reduce((sum, sample) => sum + sample.value, 0);
}

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

/**
 * Metrics and logs of the whole gateway, every process real: traffic through the front door moves
 * the counters each process serves on its own METRICS_ADDR, with bounded labels; the public port
 * serves no metrics; each request leaves one access line, written by the process that served it
 * (AI calls: the proxy; the rest: the edge); a client's bad request is never logged as an error.
 */
describe('metrics and access lines', () => {
  let gw: Gateway;
  let database: TestDatabase;
  let mock: MockUpstream;
  let goodKeyId: number;
  let badKeyId: number;
  const good = `metrics-good-${randomBytes(8).toString('hex')}`;
  const bad = `metrics-bad-${randomBytes(8).toString('hex')}`;
  let rootId: string;

  async function scrape(process: string): Promise<Sample[]> {
    const response = await fetch(`http://${gw.metrics.get(process) ?? ''}/metrics`);
    expect(response.status, process).toBe(200);
    return parseExposition(await response.text());
  }

  async function addKey(level: number, secretKey: string): Promise<number> {
    const response = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: secretKey, Level: level, Provider: mock.url },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    return ((await response.json()) as { Key: { ID: number } }).Key.ID;
  }

  const chat = (model: string, requestId: string) =>
    gw.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-request-id': requestId },
      json: { model, messages: [{ role: 'user', content: 'metrics-body-marker' }] },
    });

  beforeAll(async () => {
    mock = await MockUpstream.start();
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url, env: { LOG_LEVEL: 'info' } });
    rootId = String(((await (await gw.request('/dashboard/status')).json()) as { id: number }).id);
    goodKeyId = await addKey(1, good);
    badKeyId = await addKey(2, bad);
    mock.set(bad, { status: 403 });
    const config = await gw.request('/x-config', {
      method: 'PUT',
      json: { LEVEL_MAPPER: 'gpt-metrics=1, gpt-broken=2' },
    });
    expect(config.status, await config.clone().text()).toBe(200);
    await waitForRoute(gw, 'gpt-metrics', 1, [goodKeyId]);
    await waitForRoute(gw, 'gpt-broken', 2, [badKeyId]);

    const served = await chat('gpt-metrics', 'req-metrics-served');
    expect(served.status).toBe(200);
    // The key and Level that served it are the access line's, never the client's.
    expect([...served.headers.keys()].filter((name) => name.startsWith('x-gw-'))).toEqual([]);
    await served.arrayBuffer();
    const refused = await chat('gpt-broken', 'req-metrics-refused');
    expect(refused.status).toBe(503);
    await refused.arrayBuffer();
  });

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
    await (mock as MockUpstream | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('counts edge requests by method, route template and status, and no AI call there', async () => {
    await waitFor(
      async () =>
        valueOf(await scrape('edge'), 'gw_http_request_duration_seconds_count', {
          method: 'PUT',
          route: '/x-config',
          status: '200',
        }) >= 1,
      'the edge counting the configuration change',
    );
    const edge = await scrape('edge');
    const count = (labels: Record<string, string>) =>
      valueOf(edge, 'gw_http_request_duration_seconds_count', labels);
    expect(count({ method: 'POST', route: '/v1/chat/completions', status: '200' })).toBe(0);
    expect(count({ method: 'POST', route: '/x-keys', status: '200' })).toBe(2);
    expect(count({ method: 'PUT', route: '/x-config', status: '200' })).toBe(1);
    expect(count({ method: 'GET', route: '/x-route', status: '200' })).toBeGreaterThanOrEqual(2);
    expect(valueOf(edge, 'process_cpu_user_seconds_total', { service: 'edge' })).toBeGreaterThan(0);
  });

  it('names an unknown path "unmatched" and never puts a raw path or an account id in a label', async () => {
    const unknown = await gw.request(`/no-such-${rootId}/secret-path`, { undocumented: true });
    expect(unknown.status).toBe(404);
    await unknown.arrayBuffer();
    await waitFor(
      async () =>
        valueOf(await scrape('edge'), 'gw_http_request_duration_seconds_count', {
          route: 'unmatched',
          status: '404',
        }) >= 1,
      'the edge counting the unknown path',
    );
    const edge = await scrape('edge');
    const routes = new Set(edge.flatMap((sample) => (sample.labels.route ? [sample.labels.route] : [])));
    expect(routes.has('unmatched')).toBe(true);
    for (const route of routes) {
      expect(route).not.toMatch(/no-such|secret-path/);
    }
    const labelNames = new Set(edge.flatMap((sample) => Object.keys(sample.labels)));
    expect([...labelNames].filter((name) => /account|user|owner/i.test(name))).toEqual([]);
  });

  it('does not serve /metrics on the public port', async () => {
    const response = await fetch(`${gw.baseUrl}/metrics`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('gw_http_request_duration_seconds');
  });

  it('counts AI calls at the proxy by route template and status, upstream attempts by key, Level and outcome, and key sleeps', async () => {
    const proxy = await scrape('proxy');
    const calls = (status: string) =>
      valueOf(proxy, 'gw_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/chat/completions',
        status,
      });
    expect(calls('200')).toBe(1);
    expect(calls('503')).toBe(1);
    // What it passes on to the edge is the edge's to count.
    expect(valueOf(proxy, 'gw_http_request_duration_seconds_count', { route: '/x-keys' })).toBe(0);
    const upstream = (keyId: number, level: string, outcome: string) =>
      valueOf(proxy, 'gw_upstream_request_duration_seconds_count', {
        key_id: String(keyId),
        level,
        outcome,
      });
    expect(upstream(goodKeyId, '1', 'ok')).toBe(1);
    expect(upstream(badKeyId, '2', 'auth')).toBe(1);
    expect(valueOf(proxy, 'gw_key_sleeps_total', { key_id: String(badKeyId), reason: 'auth' })).toBe(1);
    expect(proxy.some((sample) => sample.name === 'gw_usage_outbox_depth')).toBe(true);
  });

  it('serves metrics from every gRPC service, counting its calls by service, method and code', async () => {
    for (const service of GRPC_SERVICES) {
      const samples = await scrape(service);
      expect(valueOf(samples, 'process_resident_memory_bytes', { service }), service).toBeGreaterThan(0);
    }
    const handled = (service: string, labels: Record<string, string>) =>
      scrape(service).then((samples) => valueOf(samples, 'gw_grpc_server_handled_total', labels));
    expect(
      await handled('accounts', {
        service: 'accounts',
        grpc_service: 'gw.accounts.v1.AccountsService',
        grpc_method: 'AuthenticateKey',
        grpc_code: 'OK',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      await handled('keypool', {
        grpc_service: 'gw.keypool.v1.KeypoolService',
        grpc_method: 'CreateKey',
        grpc_code: 'OK',
      }),
    ).toBe(2);
    expect(
      await handled('config', { grpc_service: 'gw.config.v1.ConfigService', grpc_code: 'OK' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('writes one info access line per AI call, at the proxy, naming the key and Level, and nothing secret', async () => {
    const proxyLines = () =>
      logLines(gw, 'proxy').filter(
        (line) => line.msg === 'request' && line.requestId === 'req-metrics-served',
      );
    await waitFor(async () => proxyLines().length > 0, 'the access line of the AI call');
    // A request the edge serves after it: once its line is out, any earlier edge line would be.
    const later = await gw.request('/dashboard/status', { headers: { 'x-request-id': 'req-metrics-later' } });
    expect(later.status).toBe(200);
    await later.arrayBuffer();
    await waitFor(
      async () =>
        logLines(gw, 'edge').some((line) => line.msg === 'request' && line.requestId === 'req-metrics-later'),
      'the access line of the later request',
    );
    expect(
      logLines(gw, 'edge').filter(
        (line) => line.msg === 'request' && line.requestId === 'req-metrics-served',
      ),
    ).toEqual([]);
    const lines = proxyLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      method: 'POST',
      route: '/v1/chat/completions',
      status: 200,
      accountId: rootId,
      keyId: String(goodKeyId),
      keyLevel: 1,
    });
    expect(typeof lines[0]?.durationMs).toBe('number');
    expect(lines[0]).not.toHaveProperty('err');
    const text = JSON.stringify(lines[0]);
    for (const secret of [
      gw.rootKey,
      good,
      gw.env.GW_INTERNAL_TOKEN ?? '',
      'authorization',
      'metrics-body-marker',
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it('answers requests the client garbled with 400 and logs no error, let alone a stack, for them', async () => {
    const garbled = await gw.request('/x-users/%E0%A4%A', {
      headers: { 'x-request-id': 'req-garbled-path' },
    });
    expect(garbled.status).toBe(400);
    expect(((await garbled.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    const badJson = await gw.request('/x-users', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-bad-json' },
      body: '{"Name": ',
    });
    expect(badJson.status).toBe(400);
    await badJson.arrayBuffer();
    await waitFor(
      async () =>
        logLines(gw, 'edge').some((line) => line.msg === 'request' && line.requestId === 'req-bad-json'),
      'the access line of the bad JSON body',
    );
    const access = logLines(gw, 'edge').filter(
      (line) => line.msg === 'request' && String(line.requestId).startsWith('req-'),
    );
    expect(access.find((line) => line.requestId === 'req-garbled-path')).toMatchObject({
      level: 30,
      status: 400,
    });
    for (const process of ['edge', 'proxy']) {
      const errors = logLines(gw, process).filter((line) => Number(line.level) >= 50);
      expect(errors, process).toEqual([]);
    }
  });
});
