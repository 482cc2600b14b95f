import { readFileSync } from 'node:fs';
import { METRIC, Metrics } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface RuleFile {
  groups: Array<{
    name: string;
    rules: Array<{ alert?: string; expr: string; labels?: Record<string, string> }>;
  }>;
}

const rules = parse(readFileSync(new URL('../prometheus/rules.yml', import.meta.url), 'utf8')) as RuleFile;

/** What the gateway's processes expose: the names in METRIC and prom-client's default process metrics. */
async function exposedNames(): Promise<Set<string>> {
  const defaults = (await new Metrics().registry.getMetricsAsJSON()).map((metric) => metric.name);
  return new Set([...Object.values(METRIC), ...defaults]);
}

/** Metric names an expression selects: our prefixes, with a histogram's series suffixes stripped. */
function metricsOf(expr: string): string[] {
  return [...expr.matchAll(/\b(gw_\w+|process_\w+|nodejs_\w+)\b/g)].map((match) =>
    (match[1] ?? '').replace(/_(bucket|count|sum)$/, ''),
  );
}

describe('deploy/prometheus/rules.yml', () => {
  const all = rules.groups.flatMap((group) => group.rules);

  it('names only metrics the code registers, in every alert', async () => {
    const exposed = await exposedNames();
    expect(all.length).toBeGreaterThan(5);
    for (const rule of all) {
      const names = metricsOf(rule.expr);
      // `up` is Prometheus's own; every other alert reads at least one of ours.
      expect(names.length > 0 || /\bup\b/.test(rule.expr), rule.alert).toBe(true);
      for (const name of names) {
        expect(exposed.has(name), `${String(rule.alert)}: ${name}`).toBe(true);
      }
    }
  });

  it('alerts on each metric docs/operations.md calls one that matters', () => {
    const used = new Set(all.flatMap((rule) => metricsOf(rule.expr)));
    for (const name of Object.values(METRIC).filter((name) => name !== METRIC.grpcServerHandling)) {
      expect(used.has(name), name).toBe(true);
    }
  });

  it('gives every alert a name, a severity and a summary', () => {
    for (const rule of all) {
      expect(rule.alert, rule.expr).toMatch(/^[A-Z]\w+$/);
      expect(['page', 'ticket']).toContain(rule.labels?.severity);
    }
  });

  it('would catch a misspelt metric', async () => {
    const exposed = await exposedNames();
    expect(metricsOf('rate(gw_usage_outbox_deepth[5m])').every((name) => exposed.has(name))).toBe(false);
  });
});
