import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Metrics, LATENCY_BUCKETS } from './registry.js';

/** The same observations through prom-client's own Histogram: what scrapers have always read. */
async function promClientText(
  labelNames: string[],
  observations: Array<[string[], number]>,
): Promise<string> {
  const registry = new Registry();
  const histogram = new Histogram({
    name: 'gw_test_seconds',
    help: 'a "test" histogram\\with odd help',
    labelNames,
    buckets: [...LATENCY_BUCKETS],
    registers: [registry],
  });
  for (const [values, seconds] of observations) {
    histogram.labels(...values).observe(seconds);
  }
  return registry.metrics();
}

async function ourText(labelNames: string[], observations: Array<[string[], number]>): Promise<string> {
  const metrics = new Metrics();
  const histogram = metrics.histogram('gw_test_seconds', 'a "test" histogram\\with odd help', labelNames);
  for (const [values, seconds] of observations) {
    histogram.labels(...values).observe(seconds);
  }
  const text = await metrics.text();
  const start = text.indexOf('# HELP gw_test_seconds');
  const end = text.indexOf('\n\n', start);
  return end === -1 ? text.slice(start) : text.slice(start, end + 1);
}

describe('LatencyHistogram', () => {
  it("writes what prom-client's Histogram writes for the same observations", async () => {
    const observations: Array<[string[], number]> = [
      [['POST', '/v1/chat/completions', '200'], 0.0042],
      [['POST', '/v1/chat/completions', '200'], 0.005],
      [['POST', '/v1/chat/completions', '200'], 0.73],
      [['GET', '/x-users/:id', '404'], 0.012],
      [['POST', '/v1/chat/completions', '200'], 500],
      [['GET', 'a "quoted"\nroute\\', '500'], 2.5],
    ];
    const labels = ['method', 'route', 'status'];
    const ours = await ourText(labels, observations);
    expect(ours).toContain('gw_test_seconds_bucket{le="0.005",method="POST"');
    expect(ours).toBe(await promClientText(labels, observations));
  });

  it('writes a histogram without labels, zeros included, before anything is observed', async () => {
    expect(await ourText([], [])).toBe(await promClientText([], []));
    expect(await ourText([], [[[], 0.2]])).toBe(await promClientText([], [[[], 0.2]]));
  });

  it('is the same metric when declared twice, and refuses a wrong number of label values', () => {
    const metrics = new Metrics();
    const first = metrics.histogram('gw_test_seconds', 'help', ['grpc_service', 'grpc_method']);
    expect(metrics.histogram('gw_test_seconds', 'help', ['grpc_service', 'grpc_method'])).toBe(first);
    expect(first.labels('accounts', 'Get')).toBe(first.labels('accounts', 'Get'));
    expect(() => first.labels('accounts')).toThrow(/2 label values, got 1/);
    expect(() => first.labels('accounts', 'Get').observe(Number.NaN)).toThrow(TypeError);
  });
});
