import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { PORT_BASE_SPAN } from '../packages/kit/src/topology.js';
import { inheritedEnv } from '../packages/testkit/src/config.js';

/** What the `npm start` tests share: launching it as a user does, and a free port base for it. */

const REPO = fileURLToPath(new URL('..', import.meta.url));

export interface Launched {
  child: ChildProcess;
  /** Everything the launcher printed so far (stdout and stderr). */
  output: () => string;
}

/** `npm start` as a user runs it: the launcher leads its own process group, like a shell job. */
export function launch(env: Record<string, string>): Launched {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: REPO,
    env: { ...inheritedEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let text = '';
  child.stdout.on('data', (data: Buffer) => (text += data.toString()));
  child.stderr.on('data', (data: Buffer) => (text += data.toString()));
  return { child, output: () => text };
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A base whose whole span of ports is free (below the kernel's ephemeral range). */
export async function freeBase(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = randomInt(20_000, 32_000 - PORT_BASE_SPAN);
    const free = await Promise.all(Array.from({ length: PORT_BASE_SPAN }, (_, i) => canListen(base + i)));
    if (free.every(Boolean)) {
      return base;
    }
  }
  throw new Error('no free port span');
}
