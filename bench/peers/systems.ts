/**
 * The systems bench/peers compares, each started on the systems' CPU and answering POST
 * /v1/chat/completions from the same mock upstream: the mock itself (direct), one Express 5 +
 * http-proxy-middleware hop, the Portkey gateway, and this gateway as `npm start` runs it.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../packages/testkit/src/index.js';
import { chatBody, out, sleep } from '../gateway.js';
import { ANSWER_MARK } from '../mock-openai.js';
import { callOnce, onSystemCpu, prepareAccount, startNpmGateway } from '../request-path.js';

export const PORTKEY_VERSION = '1.15.2';
const READY_TIMEOUT_MS = 120_000;

export interface System {
  name: string;
  /** POST /v1/chat/completions through the system. */
  url: string;
  headers: Record<string, string>;
  stop: () => Promise<void>;
}

/** Resolves once `system` serves `model`'s chat completion whole, as JSON and as a stream. */
export async function waitUntilServes(system: System, model: string): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    for (;;) {
      const json = await callOnce(agent, { ...system, body: JSON.stringify(chatBody(model)) }).catch(
        (error: unknown) => ({ status: 0, text: String(error) }),
      );
      if (json.status === 200 && json.text.includes(ANSWER_MARK.json)) {
        const sse = await callOnce(agent, { ...system, body: JSON.stringify(chatBody(model, true)) });
        if (sse.status !== 200 || !sse.text.includes(ANSWER_MARK.stream)) {
          throw new Error(`${system.name} streams wrong: ${sse.status} ${sse.text.slice(0, 300)}`);
        }
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(`${system.name} does not serve: ${json.status} ${json.text.slice(0, 300)}`);
      }
      await sleep(250);
    }
  } finally {
    agent.destroy();
  }
}

/** A server process on the systems' CPU, its output in `logFile`; stop ends it with SIGTERM. */
function spawnServer(command: string[], logFile: string, cwd?: string): () => Promise<void> {
  const log = openSync(logFile, 'a');
  const [program = 'node', ...args] = onSystemCpu(command);
  const child = spawn(program, args, { stdio: ['ignore', log, log], ...(cwd ? { cwd } : {}) });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return async () => {
    child.kill('SIGTERM');
    await exited;
  };
}

export function direct(upstream: string, secret: string): System {
  return {
    name: 'direct to the mock',
    url: `${upstream}/v1/chat/completions`,
    headers: { authorization: `Bearer ${secret}` },
    stop: () => Promise.resolve(),
  };
}

export async function expressHop(upstream: string, secret: string, logDir: string): Promise<System> {
  const port = await freePort();
  const entry = fileURLToPath(new URL('./express-hop.ts', import.meta.url));
  const stop = spawnServer(
    [process.execPath, '--import', 'tsx', entry, String(port), upstream],
    join(logDir, 'express-hop.log'),
    fileURLToPath(new URL('../..', import.meta.url)),
  );
  return {
    name: 'Express 5 + http-proxy-middleware',
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    headers: { authorization: `Bearer ${secret}` },
    stop,
  };
}

/**
 * @hono/node-server as the Portkey gateway's repository locks it. Its package asks for ^1.3.3,
 * which installs 1.14 or later today: from 1.14 on, a streamed answer keeps the upstream fetch's
 * immutable headers, and the gateway's header update fails every SSE call with a 500.
 */
export const PORTKEY_NODE_SERVER = '1.13.5';

/**
 * The Portkey gateway, installed with npm into `folder` (never a dependency of this project) and
 * started with its CLI entry on a free port; it reaches the mock as a custom OpenAI host.
 */
export async function portkey(upstream: string, secret: string, folder: string): Promise<System> {
  out(`installing @portkey-ai/gateway@${PORTKEY_VERSION} into ${folder}`);
  writeFileSync(
    join(folder, 'package.json'),
    JSON.stringify({
      private: true,
      dependencies: { '@portkey-ai/gateway': PORTKEY_VERSION },
      overrides: { '@hono/node-server': PORTKEY_NODE_SERVER },
    }),
  );
  const install = spawn('npm', ['install', '--prefix', folder, '--no-audit', '--no-fund'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => install.on('close', resolve));
  if (code !== 0) {
    throw new Error(`npm install @portkey-ai/gateway@${PORTKEY_VERSION} failed (exit ${code})`);
  }
  const home = join(folder, 'node_modules', '@portkey-ai', 'gateway');
  // Its CLI entry (1.15.2: build/start-server.js, which takes --port=N and --headless).
  const { bin } = JSON.parse(readFileSync(join(home, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const entry = typeof bin === 'string' ? bin : Object.values(bin ?? {})[0];
  if (entry === undefined) {
    throw new Error(`@portkey-ai/gateway@${PORTKEY_VERSION} names no CLI entry`);
  }
  const port = await freePort();
  const stop = spawnServer(
    [process.execPath, join(home, entry), `--port=${port}`, '--headless'],
    join(folder, 'portkey.log'),
    folder,
  );
  return {
    name: `Portkey gateway ${PORTKEY_VERSION}`,
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    headers: {
      authorization: `Bearer ${secret}`,
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': `${upstream}/v1`,
    },
    stop,
  };
}

/** This gateway as a user starts it, prepared for `model`: the load uses a funded subaccount. */
export async function gateway(upstream: string, model: string): Promise<System> {
  const gw = await startNpmGateway();
  try {
    const key = await prepareAccount(gw, upstream, model);
    return {
      name: 'this gateway (npm start)',
      url: `${gw.url}/v1/chat/completions`,
      headers: { authorization: `Bearer ${key}` },
      stop: gw.stop,
    };
  } catch (error) {
    await gw.stop();
    throw error;
  }
}

/** A Provider secret for the baselines (the mock takes any). */
export const baselineSecret = () => `sk-bench-${randomBytes(16).toString('hex')}`;
