/**
 * What the request-path benchmarks beside a user's gateway share (bench/peers, bench/soak): the
 * gateway started as a user starts it (`npm start`, on private ports and a fresh data folder),
 * its account prepared through the API, CPU pinning, the wrk load, and one call timed with a Node
 * client.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request, type Agent } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localPorts, splitAddress } from '../packages/kit/src/topology.js';
import { inheritedEnv } from '../packages/testkit/src/config.js';
import { freeBase } from '../scripts/launcher-fixture.js';
import { chatBody, out, sleep } from './gateway.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
/** Every system under test runs on this CPU; the mock upstream and the load on the other. */
const SYSTEM_CPU = 0;
const LOAD_CPU = 1;
const START_TIMEOUT_MS = 300_000;
const STOP_TIMEOUT_MS = 60_000;

/** Why the run is not pinned, or undefined when it can be (taskset and at least two CPUs). */
function cannotPin(): string | undefined {
  if (spawnSync('taskset', ['--version']).status !== 0) {
    return 'taskset is missing (util-linux)';
  }
  const count = availableParallelism();
  return count < 2 ? `the machine has ${count} CPU` : undefined;
}
const notPinned = cannotPin();

/** `command` run on the systems' CPU, when the run pins. */
export const onSystemCpu = (command: string[]): string[] =>
  notPinned === undefined ? ['taskset', '-c', String(SYSTEM_CPU), ...command] : command;

/**
 * Moves this process (the mock upstream and the load generators it starts) to the load's CPU and
 * answers a sentence saying how the run is pinned.
 */
export function pinLoadHere(): string {
  if (notPinned !== undefined) {
    return `Not pinned: ${notPinned}`;
  }
  const moved = spawnSync('taskset', ['-a', '-p', '-c', String(LOAD_CPU), String(process.pid)]);
  if (moved.status !== 0) {
    throw new Error(`taskset could not pin this process: ${moved.stderr.toString()}`);
  }
  return `Every system under test pinned to CPU ${SYSTEM_CPU}, the mock upstream and the load to CPU ${LOAD_CPU}`;
}

export interface NpmGateway {
  /** The edge, `http://127.0.0.1:<port>`. */
  url: string;
  rootKey: string;
  ports: { edge: number; proxy: number };
  stop: () => Promise<void>;
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `npm start` as a user runs it (its own process group, like a shell job), on the systems' CPU,
 * with a free GW_PORT_BASE (its own Redis, NATS and embedded PostgreSQL too) and a fresh data
 * folder, so it meets nothing else on the machine; resolves once its public port answers /healthz.
 */
export async function startNpmGateway(): Promise<NpmGateway> {
  const base = await freeBase();
  const ports = localPorts(base);
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const rootKey = `sk-bench-root-${randomBytes(16).toString('hex')}`;
  const logFile = join(dataDir, 'npm-start.log');
  const log = openSync(logFile, 'a');
  const [command = 'npm', ...args] = onSystemCpu(['npm', 'start']);
  const child = spawn(command, args, {
    cwd: REPO,
    env: { ...inheritedEnv(), GW_PORT_BASE: String(base), GW_DATA_DIR: dataDir, GW_ROOT_KEY: rootKey },
    stdio: ['ignore', log, log],
    detached: true,
  });
  closeSync(log);
  const pid = child.pid ?? 0;
  const url = `http://127.0.0.1:${ports.public}`;
  // A Ctrl-C in the terminal reaches this process's group only: the gateway, in its own, stops too.
  const onSignal = () => void stop().finally(() => process.exit(130));
  const stop = async () => {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    if (groupAlive(pid)) {
      process.kill(-pid, 'SIGINT');
    }
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (groupAlive(pid) && Date.now() < deadline) {
      await sleep(200);
    }
    if (groupAlive(pid)) {
      out(`npm start did not stop within ${STOP_TIMEOUT_MS / 1000} s: killed (its log: ${logFile})`);
      process.kill(-pid, 'SIGKILL');
      return;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  out(`npm start on GW_PORT_BASE=${base}, GW_DATA_DIR=${dataDir}`);
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const tail = readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n');
      await stop();
      throw new Error(`npm start exited before it was ready:\n${tail}`);
    }
    if ((await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200) {
      break;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`npm start was not ready within ${START_TIMEOUT_MS / 1000} s (log: ${logFile})`);
    }
    await sleep(250);
  }
  return { url, rootKey, ports: { edge: splitAddress(ports.edge).port, proxy: ports.public }, stop };
}

async function api(gw: NpmGateway, path: string, method: string, json: unknown, key = gw.rootKey) {
  const response = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(json),
  });
  const text = await response.text();
  if (response.status !== 200) {
    throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  }
  return JSON.parse(text) as unknown;
}

/**
 * Prepares a fresh gateway for the load: one Provider key at `upstream` on Level 1, `model`
 * routed there, and a funded subaccount whose RPM, TPM and RPD are set high enough never to
 * refuse. Resolves with that account's key once root's call to `model` is served (root's, so
 * the account's usage holds the load's calls only).
 */
export async function prepareAccount(gw: NpmGateway, upstream: string, model: string): Promise<string> {
  // Provider secrets are 40 characters or more here: the gateway refuses short ones.
  await api(gw, '/x-keys', 'POST', {
    SecretKey: `sk-bench-${randomBytes(16).toString('hex')}`,
    Level: 1,
    Provider: upstream,
  });
  await api(gw, '/x-config', 'PUT', { LEVEL_MAPPER: `${model}=1` });
  const name = `bench${randomBytes(4).toString('hex')}`;
  const created = (await api(gw, '/x-users', 'POST', {
    Name: name,
    Email: `${name}@example.com`,
    CreditGranted: 1_000_000,
  })) as { User: { ID: number; SecretKey: string } };
  await api(gw, `/x-users/${created.User.ID}`, 'PUT', {
    RPM: 10_000_000,
    TPM: 2_000_000_000,
    RPD: 100_000_000,
  });
  // The proxy loads the new pool and mapping from NATS events: wait until root's call is served.
  for (let attempt = 1; ; attempt++) {
    const probe = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(chatBody(model)),
    });
    const text = await probe.text();
    if (probe.status === 200) {
      return created.User.SecretKey;
    }
    if (attempt >= 100) {
      throw new Error(`the gateway does not route ${model}: ${probe.status} ${text.slice(0, 300)}`);
    }
    await sleep(100);
  }
}

export interface Call {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface Answer {
  status: number;
  /** Milliseconds from sending to the first byte of the body. */
  firstByteMs: number;
  /** Milliseconds from sending to the end of the body. */
  totalMs: number;
  text: string;
}

/** One POST read to its end with a Node client (`agent` keeps the connection). */
export function callOnce(agent: Agent, call: Call): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByteMs = NaN;
    const req = request(
      call.url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', ...call.headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (Number.isNaN(firstByteMs)) {
            firstByteMs = performance.now() - started;
          }
          text += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, firstByteMs, totalMs: performance.now() - started, text }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(call.body);
  });
}

export interface WrkResult {
  requestsPerSecond: number;
  requests: number;
  /** Answers other than 2xx/3xx, and connect, read, write and timeout errors. */
  failed: number;
  /** What wrk printed. */
  output: string;
}

/** Fails at once, saying how to install it, when the machine has no wrk. */
export function ensureWrk(): void {
  if (spawnSync('wrk', ['--version']).error) {
    throw new Error('wrk is missing: apt-get install -y wrk');
  }
}

/** wrk's request script in `folder`: the method, headers and body of `call` (Lua long strings). */
function wrkScript(call: Call, folder: string): string {
  const long = (text: string) => `[==[${text}]==]`;
  const headers = Object.entries({ 'Content-Type': 'application/json', ...call.headers }).map(
    // `[ [` with a space: `[[` would open a Lua long string.
    ([name, value]) => `wrk.headers[ ${long(name)} ] = ${long(value)}`,
  );
  const file = join(folder, 'request.lua');
  writeFileSync(file, [`wrk.method = "POST"`, `wrk.body = ${long(call.body)}`, ...headers, ''].join('\n'));
  return file;
}

/**
 * `wrk` with `connections` open for `seconds` (asynchronously: the mock upstream in this process
 * goes on serving). wrk runs where this process runs (the load's CPU once pinLoadHere ran).
 */
export async function runWrk(call: Call, seconds: number, connections: number): Promise<WrkResult> {
  const folder = mkdtempSync(join(tmpdir(), 'gw-bench-wrk-'));
  const script = wrkScript(call, folder);
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, call.url];
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.on('data', (data: Buffer) => (text += data.toString()));
  child.stderr.on('data', (data: Buffer) => (text += data.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  rmSync(folder, { recursive: true, force: true });
  const number = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  const requestsPerSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]);
  if (code !== 0 || Number.isNaN(requestsPerSecond)) {
    throw new Error(`wrk ${args.join(' ')} failed (exit ${code}):\n${text}`);
  }
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = (errors?.slice(1) ?? []).reduce((sum, count) => sum + Number(count), 0);
  return {
    requestsPerSecond,
    requests: number(/(\d+) requests in/),
    failed: number(/Non-2xx or 3xx responses:\s+(\d+)/) + socketErrors,
    output: text,
  };
}
