/**
 * What the gateway benchmarks share: a whole gateway on the machine's PostgreSQL with one
 * Provider key at a local mock upstream and one model routed to it, percentiles, and writing one
 * section of bench/RESULTS.md.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  createTestDatabase,
  MockUpstream,
  startGateway,
  type Gateway,
} from '../packages/testkit/src/index.js';

const RESULTS = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

export const out = (line: string) => process.stdout.write(`${line}\n`);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The value below which `p` % of `sorted` (ascending) lies. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

export const chatBody = (model: string, stream = false) => ({
  model,
  messages: [{ role: 'user', content: 'hi' }],
  ...(stream ? { stream: true } : {}),
});

export interface BenchGateway {
  gw: Gateway;
  mock: MockUpstream;
  /** The Provider key's secret (for requests straight to the mock). */
  secret: string;
}

/**
 * Starts the mock upstream and the gateway (with `env` added to every process's), adds one key
 * on `level`, routes `model` there, and resolves once a call through the gateway is served; then
 * runs `body` and stops everything.
 */
export async function withBenchGateway(
  model: string,
  level: number,
  body: (bench: BenchGateway) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const mock = await MockUpstream.start();
  const database = await createTestDatabase().catch(async (error: unknown) => {
    await mock.stop();
    throw error;
  });
  const gw = await startGateway({ databaseUrl: database.url, env: { LOG_LEVEL: 'error', ...env } }).catch(
    async (error: unknown) => {
      await database.drop();
      await mock.stop();
      throw error;
    },
  );
  try {
    // One Provider key (40 characters) on the Level, and the model routed there.
    const secret = `sk-bench-${randomBytes(16).toString('hex').slice(0, 31)}`;
    const created = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: secret, Level: level, Provider: mock.url },
    });
    if (created.status !== 200) {
      throw new Error(`POST /x-keys answered ${created.status}: ${await created.text()}`);
    }
    const configured = await gw.request('/x-config', {
      method: 'PUT',
      json: { LEVEL_MAPPER: `${model}=${level}` },
    });
    if (configured.status !== 200) {
      throw new Error(`PUT /x-config answered ${configured.status}: ${await configured.text()}`);
    }
    // The proxy reloads its pool on core NATS events: give it a moment, then check it serves.
    await sleep(300);
    for (let attempt = 1; ; attempt++) {
      const probe = await gw.request('/v1/chat/completions', { method: 'POST', json: chatBody(model) });
      const text = await probe.text();
      if (probe.status === 200) {
        break;
      }
      if (attempt >= 20) {
        throw new Error(`the gateway does not route ${model}: ${probe.status} ${text}`);
      }
      await sleep(100);
    }
    out(`gateway at ${gw.baseUrl}, mock upstream at ${mock.url}`);
    await body({ gw, mock, secret });
  } finally {
    await gw.stop();
    await database.drop();
    await mock.stop();
  }
}

/**
 * Replaces the section under `heading` in bench/RESULTS.md (other benchmarks keep theirs), with one
 * blank line before the next section's heading however the section ends.
 */
export function writeResultsSection(heading: string, section: string): void {
  const previous = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '# Benchmark results\n\n';
  const start = previous.indexOf(heading);
  const end = start === -1 ? -1 : previous.indexOf('\n## ', start + 1);
  const next = end === -1 ? '' : `\n${previous.slice(end + 1)}`;
  const updated =
    start === -1
      ? `${previous.trimEnd()}\n\n${section.trimEnd()}\n`
      : `${previous.slice(0, start)}${section.trimEnd()}\n${next}`;
  writeFileSync(RESULTS, updated);
  out(`wrote ${RESULTS}`);
}
