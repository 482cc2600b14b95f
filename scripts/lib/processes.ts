import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  /** Settles once the process has exited (never rejects; a spawn error reads as code 127). */
  exited: Promise<ExitInfo>;
  /** Whether the process has exited already. */
  readonly done: boolean;
  /** What stopAll sends it first; SIGTERM unless the server wants another (PostgreSQL: SIGINT). */
  stopSignal?: NodeJS.Signals;
}

const COLORS = [36, 32, 33, 35, 34, 96, 92, 93, 95, 94];
let nextColor = 0;

/** `[name] ` padded to width, colored when the output is a terminal. */
export function linePrefix(name: string, width = name.length, color = process.stdout.isTTY): string {
  const label = `[${name}]`.padEnd(width + 2);
  if (!color) {
    return `${label} `;
  }
  const code = COLORS[nextColor++ % COLORS.length] ?? 36;
  return `\u001b[${code}m${label}\u001b[0m `;
}

/**
 * Copies a stream to out with each line starting with prefix. One write per chunk, however many
 * lines it holds: a busy gateway's services write thousands of access lines a second, and a
 * line-by-line copy cost the launcher more CPU than some services spent serving the calls. The
 * services write their lines in batches (the kit's log-stdout.ts), so a chunk holds many lines and
 * may end inside one; a character split between chunks is joined by the stream's decoder.
 * `onLine`, when given, sees every complete line.
 */
export function pipeWithPrefix(
  stream: Readable,
  prefix: string,
  out: Writable,
  onLine?: (line: string) => void,
): void {
  let atLineStart = true;
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (text: string) => {
    const endsLine = text.endsWith('\n');
    const body = endsLine ? text.slice(0, -1) : text;
    out.write(`${atLineStart ? prefix : ''}${body.replaceAll('\n', `\n${prefix}`)}${endsLine ? '\n' : ''}`);
    atLineStart = endsLine;
    if (onLine) {
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      lines.forEach((line) => onLine(line));
    }
  });
  stream.on('end', () => {
    if (!atLineStart) {
      out.write('\n');
    }
    if (partial !== '') {
      onLine?.(partial);
    }
  });
}

export interface SpawnOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Prefix for each output line; defaults to `[name] `. */
  prefix?: string;
  stdout?: Writable;
  stderr?: Writable;
  /** Sees every line of stdout. */
  onLine?: (line: string) => void;
}

/**
 * Spawns a child whose stdout and stderr lines come out prefixed with its name. The child gets
 * its own process group, so a terminal's Ctrl-C reaches only us and we stop the children in
 * order.
 */
export function spawnPrefixed(
  name: string,
  command: string,
  args: string[],
  options: SpawnOptions = {},
): ManagedProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const prefix = options.prefix ?? linePrefix(name);
  pipeWithPrefix(child.stdout, prefix, options.stdout ?? process.stdout, options.onLine);
  pipeWithPrefix(child.stderr, prefix, options.stderr ?? process.stderr);
  return managed(name, child, (message) =>
    (options.stderr ?? process.stderr).write(`${prefix}failed to start: ${message}\n`),
  );
}

/**
 * Spawns a server whose output goes to logFile (Redis, NATS), in its own process group like the
 * services, so the launcher alone decides when it stops.
 */
export function spawnLogged(
  name: string,
  command: string,
  args: string[],
  logFile: string,
  options: { uid?: number; gid?: number; stopSignal?: NodeJS.Signals } = {},
): ManagedProcess {
  const logFd = openSync(logFile, 'a');
  try {
    const { stopSignal, ...ids } = options;
    const child = spawn(command, args, { stdio: ['ignore', logFd, logFd], detached: true, ...ids });
    return managed(
      name,
      child,
      (message) => process.stderr.write(`${name} failed to start: ${message}\n`),
      stopSignal,
    );
  } finally {
    closeSync(logFd);
  }
}

function managed(
  name: string,
  child: ChildProcess,
  onSpawnError: (message: string) => void,
  stopSignal?: NodeJS.Signals,
): ManagedProcess {
  let done = false;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('error', (error) => {
      onSpawnError(error.message);
      if (child.pid === undefined) {
        done = true;
        resolve({ code: 127, signal: null });
      }
    });
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  return {
    name,
    child,
    exited,
    stopSignal,
    get done() {
      return done;
    },
  };
}

/**
 * Sends SIGTERM to every running process, waits up to timeoutMs for all of them, then SIGKILLs
 * whatever is left. Resolves with the names that had to be killed.
 */
export async function stopAll(processes: ManagedProcess[], timeoutMs = 15_000): Promise<string[]> {
  const running = processes.filter((p) => !p.done);
  for (const p of running) {
    p.child.kill(p.stopSignal ?? 'SIGTERM');
  }
  const all = Promise.all(running.map((p) => p.exited)).then(() => 'exited' as const);
  const outcome = await Promise.race([all, sleep(timeoutMs, 'timeout' as const)]);
  if (outcome === 'exited') {
    return [];
  }
  const stuck = running.filter((p) => !p.done);
  for (const p of stuck) {
    p.child.kill('SIGKILL');
  }
  await Promise.all(stuck.map((p) => p.exited));
  return stuck.map((p) => p.name);
}
