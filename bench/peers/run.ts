/**
 * The request path beside its peers: this gateway (`npm start`, a funded subaccount with rate
 * limits) beside a direct call to a mock upstream, one Express 5 + http-proxy-middleware hop and
 * the Portkey gateway, in one interleaved run. Each round runs every system in turn: wrk at c=50
 * for `seconds` with JSON and with SSE answers, then 300 sequential calls of each (c=1) for the
 * unloaded p50 and the SSE first byte. Medians over the rounds; ratios to the peers, written to
 * bench/RESULTS.md.
 *
 *   node --import tsx bench/peers/run.ts [seconds=10] [rounds=3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatBody, median, out, percentile, writeResultsSection } from '../gateway.js';
import { ANSWER_MARK, startMockOpenAi } from '../mock-openai.js';
import { callOnce, ensureWrk, pinLoadHere, runWrk } from '../request-path.js';
import {
  baselineSecret,
  direct,
  expressHop,
  gateway,
  portkey,
  PORTKEY_NODE_SERVER,
  waitUntilServes,
  type System,
} from './systems.js';

const SECONDS = Number(process.argv[2] ?? 10);
const ROUNDS = Number(process.argv[3] ?? 3);
const CONNECTIONS = 50;
const PROBES = 300;
const PROBE_WARMUP = 30;
const MODEL = 'bench-model';
const HEADING = '## The request path beside its peers (bench/peers)';

interface Sample {
  json: number;
  sse: number;
  /** c=1: p50 of a JSON call, and of the first byte of a streamed one (ms). */
  p50: number;
  firstByte: number;
}

/** PROBES sequential calls after PROBE_WARMUP: the p50 of the time `measure` picks (ms). */
async function probe(system: System, stream: boolean, measure: 'totalMs' | 'firstByteMs'): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const call = { ...system, body: JSON.stringify(chatBody(MODEL, stream)) };
  const times: number[] = [];
  for (let index = 0; index < PROBE_WARMUP + PROBES; index++) {
    const answer = await callOnce(agent, call);
    if (answer.status !== 200 || !answer.text.includes(stream ? ANSWER_MARK.stream : ANSWER_MARK.json)) {
      throw new Error(`${system.name} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    }
    if (index >= PROBE_WARMUP) {
      times.push(answer[measure]);
    }
  }
  agent.destroy();
  return percentile(
    times.sort((a, b) => a - b),
    50,
  );
}

async function throughput(system: System, stream: boolean, seconds: number): Promise<number> {
  const result = await runWrk(
    { ...system, body: JSON.stringify(chatBody(MODEL, stream)) },
    seconds,
    CONNECTIONS,
  );
  if (result.failed > 0) {
    throw new Error(
      `${system.name}: ${result.failed} of ${result.requests} calls failed under wrk:\n${result.output}`,
    );
  }
  return result.requestsPerSecond;
}

async function sample(system: System): Promise<Sample> {
  const json = await throughput(system, false, SECONDS);
  const sse = await throughput(system, true, SECONDS);
  const p50 = await probe(system, false, 'totalMs');
  const firstByte = await probe(system, true, 'firstByteMs');
  out(
    `  ${system.name}: ${json.toFixed(0)} / ${sse.toFixed(0)} req/s (JSON / SSE), p50 ${p50.toFixed(2)} ms, SSE first byte ${firstByte.toFixed(2)} ms`,
  );
  return { json, sse, p50, firstByte };
}

const ratio = (a: number, b: number) => (b > 0 && a > 0 ? `${(a / b).toFixed(2)}×` : '—');

function report(systems: System[], medians: Sample[], command: string, pinning: string, loadBefore: number) {
  const [base, express, peer, ours] = medians;
  if (!base || !express || !peer || !ours) {
    throw new Error('a system has no samples');
  }
  const added = (s: Sample) => ({ p50: s.p50 - base.p50, firstByte: s.firstByte - base.firstByte });
  const rows = systems.map((system, index) => {
    const s = medians[index] ?? base;
    const more = index === 0 ? { p50: NaN, firstByte: NaN } : added(s);
    const ms = (value: number) => (Number.isNaN(value) ? '—' : value.toFixed(2));
    return `| ${system.name} | ${s.json.toFixed(0)} | ${s.sse.toFixed(0)} | ${ms(s.p50)} | ${ms(more.p50)} | ${ms(s.firstByte)} | ${ms(more.firstByte)} |`;
  });
  const ratios = [
    ['JSON throughput, gateway / Portkey', ratio(ours.json, peer.json), '≥ 3×'],
    ['JSON throughput, gateway / Express+hpm', ratio(ours.json, express.json), '≥ 0.5×'],
    ['SSE throughput, gateway / Portkey', ratio(ours.sse, peer.sse), '—'],
    ['SSE throughput, gateway / Express+hpm', ratio(ours.sse, express.sse), '—'],
    ['unloaded added p50 (JSON), gateway / Express+hpm', ratio(added(ours).p50, added(express).p50), '≤ 2×'],
    ['unloaded added p50 (JSON), gateway / Portkey', ratio(added(ours).p50, added(peer).p50), '—'],
    [
      'SSE first byte added p50, gateway / Express+hpm',
      ratio(added(ours).firstByte, added(express).firstByte),
      '—',
    ],
    ['SSE first byte added p50, gateway / Portkey', ratio(added(ours).firstByte, added(peer).firstByte), '—'],
  ].map(([what, value, target]) => `| ${what} | ${value} | ${target} |`);
  const load = (value: number | undefined) => value?.toFixed(1) ?? '?';
  return [
    HEADING,
    '',
    'This gateway as users start it (`npm start` on private ports with a fresh data folder: its own',
    'embedded PostgreSQL, Redis and NATS, `LOG_LEVEL` at its default), called by a funded subaccount with RPM,',
    'TPM and RPD set, beside the same call sent straight to the mock upstream (bench/mock-openai.ts, which',
    'answers at once), through one Express 5 + http-proxy-middleware hop and through the Portkey gateway',
    `(installed for the run with @hono/node-server ${PORTKEY_NODE_SERVER}, the version its repository locks: later ones fail its`,
    'streams). Portkey holds the first event of a stream 25 ms before it passes it on, which its SSE figures include.',
    `${ROUNDS} interleaved round(s), each running every system in turn: wrk at c=${CONNECTIONS} for ${SECONDS} s with a JSON`,
    `answer, then with \`stream: true\` (SSE), then ${PROBES} sequential calls of each (c=1, after ${PROBE_WARMUP} warm-up`,
    'calls) for the unloaded p50 and the first byte of a stream; figures are medians over the rounds.',
    `${pinning}. Only ratios within one run compare: ms and req/s depend on the machine.`,
    `Run: \`${command}\` (${new Date().toISOString().slice(0, 10)}, ${cpus().length} CPUs, load average ${load(loadBefore)} at the start and ${load(loadavg()[0])} at the end).`,
    '',
    '| system | JSON req/s | SSE req/s | JSON p50 ms (c=1) | added p50 ms | SSE first byte p50 ms | added ms |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '| ratio | this run | target |',
    '|---|---|---|',
    ...ratios,
    '',
  ].join('\n');
}

async function main() {
  if (!Number.isInteger(SECONDS) || SECONDS < 1 || SECONDS > 600) {
    throw new Error(`seconds must be an integer in 1..600, got ${process.argv[2]}`);
  }
  if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 20) {
    throw new Error(`rounds must be an integer in 1..20, got ${process.argv[3]}`);
  }
  ensureWrk();
  const loadBefore = loadavg()[0] ?? NaN;
  const pinning = pinLoadHere();
  out(pinning);
  const mock = await startMockOpenAi();
  const folder = mkdtempSync(join(tmpdir(), 'gw-bench-peers-'));
  const secret = baselineSecret();
  const systems: System[] = [];
  try {
    systems.push(direct(mock.url, secret));
    systems.push(await expressHop(mock.url, secret, folder));
    systems.push(await portkey(mock.url, secret, folder));
    systems.push(await gateway(mock.url, MODEL));
    for (const system of systems) {
      await waitUntilServes(system, MODEL);
    }
    // JIT, connection pools and caches of every system warmed before the first sample.
    out('warming every system');
    for (const system of systems) {
      await throughput(system, false, Math.min(SECONDS, 5));
      await throughput(system, true, Math.min(SECONDS, 5));
    }
    const samples = systems.map((): Sample[] => []);
    for (let round = 1; round <= ROUNDS; round++) {
      out(`round ${round} of ${ROUNDS}`);
      for (const [index, system] of systems.entries()) {
        samples[index]?.push(await sample(system));
      }
    }
    const medians = samples.map((list) => ({
      json: median(list.map((s) => s.json)),
      sse: median(list.map((s) => s.sse)),
      p50: median(list.map((s) => s.p50)),
      firstByte: median(list.map((s) => s.firstByte)),
    }));
    const command = `node --import tsx bench/peers/run.ts ${SECONDS} ${ROUNDS}`;
    const section = report(systems, medians, command, pinning, loadBefore);
    out(section);
    writeResultsSection(HEADING, section);
  } finally {
    for (const system of systems.reverse()) {
      await system.stop();
    }
    await mock.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exitCode = 1;
});
