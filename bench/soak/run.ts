/**
 * Soak: this gateway as users start it (`npm start`, a funded subaccount with rate limits) under
 * `connections` calls in flight for `seconds`, JSON chat completions from a mock upstream. Samples
 * the resident memory of the edge and the proxy every 10 s (from /proc), then waits until billing
 * has charged every call and compares: RSS in the first minute with RSS in the last (target:
 * within 10 %), and the calls answered 200 with the requests GET /dashboard/bill shows for the
 * account (target: equal). Written to bench/RESULTS.md.
 *
 *   node --import tsx bench/soak/run.ts [seconds=300] [connections=50]
 */
import { Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { chatBody, out, sleep, writeResultsSection } from '../gateway.js';
import { startMockOpenAi } from '../mock-openai.js';
import {
  callOnce,
  pinLoadHere,
  prepareAccount,
  startNpmGateway,
  type Call,
  type NpmGateway,
} from '../request-path.js';
import { pidListeningOn, rssMb } from './proc.js';

const SECONDS = Number(process.argv[2] ?? 300);
const CONNECTIONS = Number(process.argv[3] ?? 50);
const MODEL = 'bench-model';
const SAMPLE_EVERY_MS = 10_000;
/**
 * The first minute (a quarter of a shorter run) is warm-up: the JIT, connection pools and caches
 * fill it, so the proxy grows by a fifth in its first 40 s. Steadiness is read after it.
 */
const WARMUP_SECONDS = Math.min(60, Math.floor(SECONDS / 4));
/** The window compared at each end: a minute, or half of what follows the warm-up when shorter. */
const WINDOW_SECONDS = Math.min(60, (SECONDS - WARMUP_SECONDS) / 2);
const STEADY = 1.1;
/** Billing is done once the bill shows every call, or has not moved for this long. */
const BILL_QUIET_MS = 30_000;
const HEADING = '## Soak (bench/soak)';

interface RssSample {
  /** Seconds since the load started. */
  at: number;
  edge: number;
  proxy: number;
}

interface Outcome {
  statuses: Map<number, number>;
  errors: number;
}

/** `connections` loops of calls until `seconds` pass; each finishes the call it has in flight. */
async function load(call: Call): Promise<Outcome> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const until = Date.now() + SECONDS * 1000;
  const outcome: Outcome = { statuses: new Map(), errors: 0 };
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        try {
          const { status } = await callOnce(agent, call);
          outcome.statuses.set(status, (outcome.statuses.get(status) ?? 0) + 1);
        } catch {
          outcome.errors += 1;
        }
      }
    }),
  );
  agent.destroy();
  return outcome;
}

/** The requests the account's bill shows since `startDay` (GET /dashboard/bill, total_usage). */
async function billedRequests(gw: NpmGateway, key: string, startDay: string): Promise<number> {
  const response = await fetch(`${gw.url}/dashboard/bill?s=${startDay}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const text = await response.text();
  if (response.status !== 200) {
    throw new Error(`GET /dashboard/bill answered ${response.status}: ${text.slice(0, 300)}`);
  }
  return (JSON.parse(text) as { total_usage: { requests: number } }).total_usage.requests;
}

/** Polls the bill until it shows `answered` requests or stops changing; answers the last count. */
async function settledBill(gw: NpmGateway, key: string, startDay: string, answered: number) {
  let last = -1;
  let movedAt = Date.now();
  for (;;) {
    const billed = await billedRequests(gw, key, startDay);
    if (billed === answered) {
      return billed;
    }
    if (billed !== last) {
      last = billed;
      movedAt = Date.now();
    } else if (Date.now() - movedAt > BILL_QUIET_MS) {
      return billed;
    }
    await sleep(1000);
  }
}

function rssRow(name: 'edge' | 'proxy', samples: RssSample[]): string {
  const mean = (list: RssSample[]) => list.reduce((sum, s) => sum + s[name], 0) / Math.max(list.length, 1);
  const first = mean(samples.filter((s) => s.at > WARMUP_SECONDS && s.at <= WARMUP_SECONDS + WINDOW_SECONDS));
  const last = mean(samples.filter((s) => s.at >= SECONDS - WINDOW_SECONDS));
  const ratio = Math.max(first, last) / Math.min(first, last);
  const all = samples.map((s) => s[name].toFixed(0)).join(', ');
  return `| ${name} | ${first.toFixed(1)} | ${last.toFixed(1)} | ${ratio.toFixed(3)} | ${ratio <= STEADY ? 'yes' : 'no'} | ${all} |`;
}

async function main() {
  if (!Number.isInteger(SECONDS) || SECONDS < 20 || SECONDS > 3600) {
    throw new Error(`seconds must be an integer in 20..3600, got ${process.argv[2]}`);
  }
  if (!Number.isInteger(CONNECTIONS) || CONNECTIONS < 1 || CONNECTIONS > 1000) {
    throw new Error(`connections must be an integer in 1..1000, got ${process.argv[3]}`);
  }
  const pinning = pinLoadHere();
  out(pinning);
  const mock = await startMockOpenAi();
  let gw: NpmGateway | undefined;
  try {
    gw = await startNpmGateway();
    const key = await prepareAccount(gw, mock.url, MODEL);
    const startDay = new Date().toISOString().slice(0, 10);
    const pids = { edge: pidListeningOn(gw.ports.edge), proxy: pidListeningOn(gw.ports.proxy) };
    out(`edge pid ${pids.edge}, proxy pid ${pids.proxy}; ${CONNECTIONS} in flight for ${SECONDS} s`);
    const started = Date.now();
    const samples: RssSample[] = [];
    const sample = () => {
      const at = Math.round((Date.now() - started) / 1000);
      if (samples.at(-1)?.at === at) {
        return;
      }
      samples.push({ at, edge: rssMb(pids.edge), proxy: rssMb(pids.proxy) });
      out(
        `  ${at} s: RSS edge ${samples.at(-1)?.edge.toFixed(1)} MB, proxy ${samples.at(-1)?.proxy.toFixed(1)} MB`,
      );
    };
    const sampler = setInterval(sample, SAMPLE_EVERY_MS);
    const outcome = await load({
      url: `${gw.url}/v1/chat/completions`,
      headers: { authorization: `Bearer ${key}` },
      body: JSON.stringify(chatBody(MODEL)),
    });
    clearInterval(sampler);
    sample();
    const answered = outcome.statuses.get(200) ?? 0;
    out(`answered 200: ${answered}; waiting for billing to charge them`);
    const billed = await settledBill(gw, key, startDay, answered);
    const others = [...outcome.statuses].filter(([status]) => status !== 200);
    const section = [
      HEADING,
      '',
      'This gateway as users start it (`npm start` on private ports with a fresh data folder, `LOG_LEVEL` at',
      `its default) under ${CONNECTIONS} JSON chat completions in flight for ${SECONDS} s, called by a funded subaccount`,
      'with RPM, TPM and RPD set, answered by a local mock upstream (bench/mock-openai.ts). The resident memory',
      `(VmRSS) of the edge and the proxy is read from /proc every ${SAMPLE_EVERY_MS / 1000} s; after ${WARMUP_SECONDS} s of warm-up, the mean of the`,
      `next ${WINDOW_SECONDS} s is compared with the mean of the last ${WINDOW_SECONDS} s (target: within 10 %). After the load,`,
      "the account's `GET /dashboard/bill` is read until it shows every call or stops changing for",
      `${BILL_QUIET_MS / 1000} s. ${pinning}.`,
      `Run: \`node --import tsx bench/soak/run.ts ${SECONDS} ${CONNECTIONS}\` (${new Date().toISOString().slice(0, 10)}, ${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(1) ?? '?'} at the end).`,
      '',
      '| process | RSS window after warm-up MB | RSS last window MB | max / min | within 10 % | samples MB |',
      '|---|---|---|---|---|---|',
      rssRow('edge', samples),
      rssRow('proxy', samples),
      '',
      '| calls | count |',
      '|---|---|',
      `| answered 200 (${(answered / SECONDS).toFixed(0)}/s) | ${answered} |`,
      `| answered otherwise | ${others.length === 0 ? 0 : others.map(([status, count]) => `${count} × ${status}`).join(', ')} |`,
      `| failed without an answer | ${outcome.errors} |`,
      `| requests on /dashboard/bill | ${billed} |`,
      '',
      `Every call charged (bill = answered 200): ${billed === answered ? 'yes' : `no (${billed - answered})`}.`,
      '',
    ].join('\n');
    out(section);
    writeResultsSection(HEADING, section);
  } finally {
    await gw?.stop();
    await mock.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exitCode = 1;
});
