/**
 * Where the request path spends its CPU: every gateway process runs under the V8 profiler (after
 * WARMUP_SECONDS of the same load) while a funded subaccount with rate limits (as the peer
 * harness sets them) sends chat completions through edge → proxy → a local mock upstream,
 * `CONCURRENCY` at a time for `SECONDS`. When the gateway stops, each process's profile is reduced
 * to its top self-time frames and the CPU each process spent per answered call (from /proc),
 * written to bench/RESULTS.md.
 *
 *   node --import tsx bench/profile/run.ts [seconds] [concurrency]
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createUser } from '../../packages/testkit/src/index.js';
import { chatBody, out, withBenchGateway, writeResultsSection } from '../gateway.js';
import { topFrames, type CpuProfile } from './frames.js';

const SECONDS = Number(process.argv[2] ?? 20);
const CONCURRENCY = Number(process.argv[3] ?? 50);
const MODEL = 'bench-model';
const HEADING = '## Request-path profile (bench/profile)';
const TICKS_PER_SECOND = 100;
/** Load before the measured part (see the warm-up below). */
const WARMUP_SECONDS = 40;

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Sends one call and resolves with its status once the answer was read to the end. */
function call(agent: Agent, url: URL, key: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function main() {
  const profiles = mkdtempSync(join(tmpdir(), 'gw-profile-'));
  const hook = fileURLToPath(new URL('./cpu-profile-hook.mjs', import.meta.url));
  const env = { NODE_OPTIONS: `--import ${hook}`, GW_CPU_PROFILE_DIR: profiles, LOG_LEVEL: 'info' };
  let answered = 0;
  let refused = 0;
  const perProcess = new Map<string, number>();
  const serviceOf = new Map<number, string>();
  await withBenchGateway(
    MODEL,
    1,
    async ({ gw }) => {
      const account = await createUser(gw, { credit: 1_000_000 });
      const limited = await gw.request(`/x-users/${account.id}`, {
        method: 'PUT',
        json: { RPM: 10_000_000, TPM: 2_000_000_000, RPD: 100_000_000 },
      });
      if (limited.status !== 200) {
        throw new Error(`PUT /x-users answered ${limited.status}: ${await limited.text()}`);
      }
      const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      const url = new URL('/v1/chat/completions', gw.baseUrl);
      const body = JSON.stringify(chatBody(MODEL));
      const pids = new Map([...gw.processes].map(([name, child]) => [name, child.child.pid ?? 0]));
      for (const [name, pid] of pids) {
        serviceOf.set(pid, name);
      }
      /** CONCURRENCY callers in a loop until the deadline; counts what was answered and refused. */
      const load = async (seconds: number) => {
        const counts = { answered: 0, refused: 0 };
        const until = Date.now() + seconds * 1000;
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (Date.now() < until) {
              counts[(await call(agent, url, account.key, body)) === 200 ? 'answered' : 'refused']++;
            }
          }),
        );
        return counts;
      };
      // Warm the path under the same load first, then profile the load only (the hook starts
      // the profiler on SIGUSR2): V8 goes on optimising the request path for tens of seconds,
      // and its compiler threads take CPU that a shorter warm-up charges to the calls measured.
      await load(WARMUP_SECONDS);
      for (const [name, pid] of pids) {
        if (name !== 'nats') {
          process.kill(pid, 'SIGUSR2');
        }
      }
      const before = new Map([...pids].map(([name, pid]) => [name, cpuSeconds(pid)]));
      ({ answered, refused } = await load(SECONDS));
      for (const [name, pid] of pids) {
        perProcess.set(name, cpuSeconds(pid) - (before.get(name) ?? 0));
      }
      agent.destroy();
    },
    env,
  );
  const total = [...perProcess.values()].reduce((sum, seconds) => sum + seconds, 0);
  const perCall = (seconds: number) => ((seconds / Math.max(answered, 1)) * 1e6).toFixed(0);
  const lines = [
    HEADING,
    '',
    `${SECONDS} s of POST /v1/chat/completions (JSON) by a funded subaccount with RPM, TPM and RPD set,`,
    `${CONCURRENCY} in flight after ${WARMUP_SECONDS} s of the same load, every process of one gateway under the V8 CPU profiler at LOG_LEVEL=info`,
    `(${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(1)} at the end; profiling slows every process,`,
    `so the figures are shares, not speeds). Run: \`node --import tsx bench/profile/run.ts ${SECONDS} ${CONCURRENCY}\``,
    `(${new Date().toISOString().slice(0, 10)}). Answered ${answered} calls (${refused} refused).`,
    '',
    '| process | CPU µs per answered call | share |',
    '|---|---|---|',
    ...[...perProcess]
      .sort((a, b) => b[1] - a[1])
      .map(
        ([name, seconds]) => `| ${name} | ${perCall(seconds)} | ${((seconds / total) * 100).toFixed(0)} % |`,
      ),
    `| all | ${perCall(total)} | 100 % |`,
    '',
  ];
  for (const file of readdirSync(profiles).filter((name) => name.endsWith('.cpuprofile'))) {
    const service = serviceOf.get(Number(file.split('.')[0]));
    if (service === undefined) {
      continue;
    }
    const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8')) as CpuProfile;
    lines.push(`### ${service}: top self-time frames`, '', '```', ...topFrames(profile, 15), '```', '');
  }
  const section = lines.join('\n');
  out(section);
  writeResultsSection(HEADING, `${section}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
