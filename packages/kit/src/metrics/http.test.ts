import { describe, expect, it } from 'vitest';
import { accessLine } from './http.js';
import { METRIC } from './names.js';
import { Metrics } from './registry.js';

describe('accessLine', () => {
  it('writes the named fields of an AI call, rounded to a tenth of a millisecond', () => {
    expect(
      accessLine(
        { method: 'POST', status: 200, durationMs: 12.3456, requestId: 'req_1' },
        { route: '/v1/chat/completions', accountId: '42', keyId: '7', keyLevel: 2 },
      ),
    ).toEqual({
      method: 'POST',
      route: '/v1/chat/completions',
      status: 200,
      durationMs: 12.3,
      requestId: 'req_1',
      accountId: '42',
      keyId: '7',
      keyLevel: 2,
    });
  });

  it('leaves out what a request did not have, and never copies a field it was not built for', () => {
    const line = accessLine(
      {
        method: 'GET',
        status: 404,
        durationMs: 1,
        requestId: 'req_2',
        ...({ authorization: 'Bearer sk-secret' } as object),
      },
      { route: 'unmatched', ...({ body: '{}' } as object) },
    );
    expect(Object.keys(line).sort()).toEqual(['durationMs', 'method', 'requestId', 'route', 'status']);
  });
});

describe('Metrics', () => {
  it('hands back the same metric when one is declared twice, and exposes it with its labels', async () => {
    const metrics = new Metrics();
    const first = metrics.counter(METRIC.keySleeps, 'help', ['key_id', 'reason']);
    const second = metrics.counter(METRIC.keySleeps, 'help', ['key_id', 'reason']);
    expect(second).toBe(first);
    second.labels('7', 'auth').inc();
    expect(await metrics.text()).toContain('gw_key_sleeps_total{key_id="7",reason="auth"} 1');
  });

  it('reads a collected gauge at scrape time', async () => {
    const metrics = new Metrics();
    let depth = 3;
    metrics.gauge(METRIC.usageOutboxDepth, 'help', [], (gauge) => gauge.set(depth));
    expect(await metrics.text()).toContain('gw_usage_outbox_depth 3');
    depth = 0;
    expect(await metrics.text()).toContain('gw_usage_outbox_depth 0');
  });
});
