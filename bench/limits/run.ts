/**
 * Rate-limit benchmark: what counting every call in Redis costs. Requests per second of
 * POST /v1/chat/completions through the whole gateway for an account with all six windows
 * (RPM … TPD) and a ModelLimits entry for the model, against an account with no limits, in the
 * same run (rounds alternate, so drift of the machine hits both alike). The limits are high
 * enough never to refuse: every call is served. Writes bench/RESULTS.md (the rate-limit section).
 *
 *   node --import tsx bench/limits/run.ts [requests-per-scenario] [concurrency]
 */
import { cpus, loadavg } from 'node:os';
import { createUser } from '../../packages/testkit/src/index.js';
import { chatBody, out, withBenchGateway, writeResultsSection } from '../gateway.js';

const REQUESTS = Number(process.argv[2] ?? 4000);
const CONCURRENCY = Number(process.argv[3] ?? 16);
const ROUNDS = 4;
const WARMUP = 500;
const MODEL = 'bench-limits-model';
const HEADING = '## Rate limits on the hot path (bench/limits)';
const HIGH = 1_000_000_000;

async function main() {
  if (!Number.isInteger(REQUESTS) || REQUESTS < ROUNDS || !Number.isInteger(CONCURRENCY) || CONCURRENCY < 1) {
    throw new Error(`usage: bench/limits/run.ts [requests >= ${ROUNDS}] [concurrency >= 1]`);
  }
  await withBenchGateway(MODEL, 1, async ({ gw, mock }) => {
    const unlimited = await createUser(gw, { credit: 1000 });
    const limited = await createUser(gw, {
      credit: 1000,
      extra: {
        RPM: HIGH,
        RPH: HIGH,
        RPD: HIGH,
        TPM: HIGH,
        TPH: HIGH,
        TPD: HIGH,
        ModelLimits: { 'bench-*': { rpm: HIGH, tpm: HIGH } },
      },
    });

    /** `count` calls by `key`, `CONCURRENCY` at a time; the seconds it took. Every call must be served. */
    const run = async (key: string, count: number): Promise<number> => {
      const before = mock.requests.length;
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < count) {
            next += 1;
            const response = await gw.request('/v1/chat/completions', {
              method: 'POST',
              key,
              json: chatBody(MODEL),
            });
            const text = await response.text();
            if (response.status !== 200) {
              throw new Error(`answered ${response.status}: ${text.slice(0, 300)}`);
            }
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      if (mock.requests.length - before !== count) {
        throw new Error(`${count} calls sent, the mock saw ${mock.requests.length - before}`);
      }
      return seconds;
    };

    out(`warming the path: ${WARMUP} calls per account`);
    await run(unlimited.key, WARMUP);
    await run(limited.key, WARMUP);

    const perRound = Math.floor(REQUESTS / ROUNDS);
    const seconds = { none: 0, limited: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so neither always follows the other.
      const order = round % 2 === 0 ? (['none', 'limited'] as const) : (['limited', 'none'] as const);
      for (const which of order) {
        seconds[which] += await run(which === 'none' ? unlimited.key : limited.key, perRound);
      }
      out(`round ${round + 1}/${ROUNDS} done`);
    }
    const calls = perRound * ROUNDS;
    const rps = { none: calls / seconds.none, limited: calls / seconds.limited };
    const ratio = rps.limited / rps.none;
    const rows = [
      `| no limits (baseline) | ${rps.none.toFixed(0)} | 1.00 |`,
      `| RPM, RPH, RPD, TPM, TPH, TPD and a ModelLimits entry (rpm, tpm) | ${rps.limited.toFixed(0)} | ${ratio.toFixed(2)} |`,
    ];
    rows.forEach(out);

    const machine = `${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(1) ?? '?'} at the end`;
    writeResultsSection(
      HEADING,
      [
        HEADING,
        '',
        'Requests per second of POST /v1/chat/completions through every gateway process (edge → proxy → a local',
        'mock upstream) for two subaccounts of root: one without limits, one with all six account windows and a',
        'ModelLimits entry for the model (eight windows per call, checked and counted in one Redis script, tokens',
        `added after each call). ${CONCURRENCY} calls in flight; ${ROUNDS} alternating rounds of ${perRound} calls per`,
        `account after ${WARMUP} warm-up calls each; every call answered 200 and reached the mock once.`,
        `Run: \`node --import tsx bench/limits/run.ts ${REQUESTS} ${CONCURRENCY}\` (${new Date().toISOString().slice(0, 10)}, ${machine}).`,
        '',
        '| scenario | requests/s | / baseline |',
        '|---|---|---|',
        ...rows,
        '',
        `Throughput lost to the limits: ${((1 - ratio) * 100).toFixed(1)} % (target: under 10 %).`,
        '',
      ].join('\n'),
    );
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exitCode = 1;
});
