import { connectRedis, type Logger } from '@gw/kit';
import { waitFor } from '@gw/testkit';
import type { Redis } from 'ioredis';

export const SHARED_REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The proxy's connection, once ready (before that, it fails commands rather than queue them). */
export async function connected(url: string, log: Logger): Promise<Redis> {
  const redis = connectRedis(url, 'hotPath', log, 'shared key state');
  await waitFor(async () => redis.status === 'ready', `connected to ${url}`, 5_000, 20);
  return redis;
}

/**
 * The commands Redis ran on the keys under `prefix` while `work` ran, from a MONITOR connection
 * (a script's own commands included): a marker read after `work` says when the feed is complete.
 */
export async function commandsDuring(
  redis: Redis,
  prefix: string,
  work: () => Promise<unknown>,
): Promise<string[][]> {
  const monitor = await redis.monitor();
  const seen: string[][] = [];
  const marker = `${prefix}marker`;
  let markerSeen = false;
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (args[1] === marker) {
      markerSeen = true;
    } else if (args.slice(1).some((arg) => arg.startsWith(prefix))) {
      seen.push(args);
    }
  });
  try {
    await work();
    await redis.get(marker);
    await waitFor(async () => markerSeen, 'the monitor feed caught up', 5_000, 10);
  } finally {
    monitor.disconnect();
  }
  return seen;
}

/** Those of `commands` (from `commandsDuring`) that are the command `name`, in any case. */
export function named(commands: string[][], name: string): string[][] {
  return commands.filter(([command]) => command?.toLowerCase() === name);
}
