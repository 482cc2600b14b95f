/**
 * AI forwarding benchmark: the hot path client → edge → proxy → upstream, against a local mock
 * upstream on 127.0.0.1, with the real gateway processes on PostgreSQL. Compares the median and
 * p99 latency of POST /v1/chat/completions through the gateway (JSON, stream to the last byte,
 * stream to the first chunk) with the same request sent straight to the mock, measured in the
 * same run. Writes bench/RESULTS.md (the AI forwarding section).
 *
 *   node --import tsx bench/proxy/run.ts [requests-per-scenario]
 */
import { cpus, loadavg } from 'node:os';
import { chatBody, out, percentile, withBenchGateway, writeResultsSection } from '../gateway.js';

const REQUESTS = Number(process.argv[2] ?? 1000);
const WARMUP = 50;
/** Requests of each kind sent through the whole path once, before the first scenario. */
const PATH_WARMUP = 500;
const MODEL = 'bench-model';
const LEVEL = 1;
const HEADING = '## AI forwarding hot path (bench/proxy)';

/** Reads a body to its end; returns the milliseconds from `started` to the first chunk. */
async function drain(response: Response, started: number): Promise<{ firstChunk: number; text: string }> {
  if (!response.body) {
    throw new Error(`no body (status ${response.status})`);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let firstChunk = NaN;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    if (Number.isNaN(firstChunk)) {
      firstChunk = performance.now() - started;
    }
    text += decoder.decode(value, { stream: true });
  }
  return { firstChunk, text: text + decoder.decode() };
}

async function main() {
  if (!Number.isInteger(REQUESTS) || REQUESTS < 1 || REQUESTS > 100_000) {
    throw new Error(`requests per scenario must be an integer in 1..100000, got ${process.argv[2]}`);
  }
  await withBenchGateway(MODEL, LEVEL, async ({ gw, mock, secret }) => {
    type Kind = 'json' | 'last-byte' | 'first-chunk';
    // One request; returns the milliseconds the scenario measures.
    const once = async (send: () => Promise<Response>, kind: Kind): Promise<number> => {
      const started = performance.now();
      const response = await send();
      const { firstChunk, text } = await drain(response, started);
      const total = performance.now() - started;
      if (response.status !== 200) {
        throw new Error(`answered ${response.status}: ${text.slice(0, 300)}`);
      }
      if (kind === 'json' ? !text.includes('hello from') : !text.includes('data: [DONE]')) {
        throw new Error(`unexpected body: ${text.slice(0, 300)}`);
      }
      return kind === 'first-chunk' ? firstChunk : total;
    };
    // WARMUP requests, then REQUESTS sequential ones; every one must reach the mock exactly once.
    const measure = async (send: () => Promise<Response>, kind: Kind) => {
      const before = mock.requests.length;
      for (let i = 0; i < WARMUP; i++) {
        await once(send, kind);
      }
      const timings: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        timings.push(await once(send, kind));
      }
      const reached = mock.requests.length - before;
      if (reached !== WARMUP + REQUESTS) {
        throw new Error(`${WARMUP + REQUESTS} requests sent, the mock saw ${reached}`);
      }
      timings.sort((a, b) => a - b);
      return { p50: percentile(timings, 50), p99: percentile(timings, 99) };
    };

    const direct = () =>
      fetch(`${mock.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(chatBody(MODEL)),
      });
    const viaGateway = (stream: boolean) => () =>
      gw.request('/v1/chat/completions', { method: 'POST', json: chatBody(MODEL, stream) });

    // JIT and connection warm-up of the whole path before any scenario: without it the first
    // scenario measured through the gateway pays for it (50 warm-up requests are not enough).
    out(`warming the path: ${PATH_WARMUP} requests`);
    for (let i = 0; i < PATH_WARMUP; i++) {
      await once(direct, 'json');
      await once(viaGateway(i % 2 === 1), i % 2 === 1 ? 'last-byte' : 'json');
    }

    // Baseline, measured in the same run: the same chat request straight to the mock upstream,
    // with the same HTTP client. Ratios compare across machines; ms do not.
    out('measuring: baseline (direct to the mock)');
    const baseline = await measure(direct, 'json');
    const rows = [
      `| POST /v1/chat/completions direct to the mock (baseline) | ${baseline.p50.toFixed(2)} | ${baseline.p99.toFixed(2)} | 1.00 |`,
    ];
    out(rows[0] ?? '');
    const scenarios: Array<[string, () => Promise<Response>, Kind]> = [
      ['POST /v1/chat/completions via the gateway, JSON', viaGateway(false), 'json'],
      ['… `stream: true`, to the last byte', viaGateway(true), 'last-byte'],
      ['… `stream: true`, to the first chunk', viaGateway(true), 'first-chunk'],
    ];
    const added: string[] = [];
    for (const [label, send, kind] of scenarios) {
      out(`measuring: ${label}`);
      const result = await measure(send, kind);
      const line = `| ${label} | ${result.p50.toFixed(2)} | ${result.p99.toFixed(2)} | ${(result.p50 / baseline.p50).toFixed(2)} |`;
      rows.push(line);
      out(line);
      added.push(`${(result.p50 - baseline.p50).toFixed(2)} ms (${kind})`);
    }

    const machine = `${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(1) ?? '?'} at the end`;
    const section = [
      HEADING,
      '',
      "The AI hot path client → edge → proxy → upstream, every gateway process real, on the machine's PostgreSQL,",
      `with one Provider key on Level ${LEVEL} pointing at a local mock upstream on 127.0.0.1 (packages/testkit/src/mock-upstream.ts,`,
      'which answers at once; a stream is a handful of small SSE events written back to back). The root key calls the edge.',
      `First ${PATH_WARMUP} direct and ${PATH_WARMUP} gateway requests (JSON and stream in turn) warm the whole path; then`,
      `${REQUESTS} sequential requests per scenario after ${WARMUP} warm-up requests, every one checked to reach the mock once.`,
      `Run: \`node --import tsx bench/proxy/run.ts ${REQUESTS}\` (${new Date().toISOString().slice(0, 10)}, ${machine}).`,
      '',
      '| scenario | p50 ms | p99 ms | p50 / baseline p50 |',
      '|---|---|---|---|',
      ...rows,
      '',
      `Added latency of the gateway (p50 − baseline p50): ${added.join(', ')}.`,
      'Because the mock writes the whole stream at once, first chunk and last byte are close: the first-chunk',
      'figure is the gateway overhead before a token reaches the client, not a model think time.',
      '',
    ].join('\n');
    writeResultsSection(HEADING, section);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exitCode = 1;
});
