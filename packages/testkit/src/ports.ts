import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

/**
 * Test ports come from below the kernel's ephemeral range (32768-60999 on Linux): a port the OS
 * hands out by `listen(0)` can be taken a moment later by any outgoing connection, which made
 * freshly started services fail with EADDRINUSE. Ports handed out by this process are remembered
 * so one run never gets the same port twice.
 */
const RANGE = { from: 20_000, to: 32_000 } as const;
const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago and that this process has not used before. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = randomInt(RANGE.from, RANGE.to);
    if (!handedOut.has(port) && (await canListen(port))) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free port found');
}

export async function waitFor(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}
