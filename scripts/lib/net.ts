import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** The host to dial for a listen address: a wildcard bind is reached on loopback. */
export function dialHost(host: string): string {
  return host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
}

/** True when something accepts a TCP connection on host:port within timeoutMs. */
export function canConnect(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: dialHost(host), port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Stops waiting early (a child died, the user pressed Ctrl-C). */
  signal?: AbortSignal;
}

/** Polls until check() is true; false when the time runs out or the signal aborts. */
export async function waitUntil(check: () => Promise<boolean>, options: WaitOptions = {}): Promise<boolean> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  while (!options.signal?.aborted) {
    if (await check()) {
      return true;
    }
    if (Date.now() >= deadline) {
      return false;
    }
    await sleep(options.intervalMs ?? 200);
  }
  return false;
}

export function waitForPort(host: string, port: number, options?: WaitOptions): Promise<boolean> {
  return waitUntil(() => canConnect(host, port), options);
}

/** True when GET url answers 200 within timeoutMs. */
export async function answers200(url: string, timeoutMs = 1_000): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

export function waitForHttp200(url: string, options?: WaitOptions): Promise<boolean> {
  return waitUntil(() => answers200(url), options);
}

/** host and port of a URL like redis://127.0.0.1:6379, with the scheme's default port. */
export function urlEndpoint(url: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1';
  return { host, port: parsed.port ? Number(parsed.port) : defaultPort };
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
