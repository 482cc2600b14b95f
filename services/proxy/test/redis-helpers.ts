import { Writable } from 'node:stream';
import { connectRedis, createLogger, type Logger } from '@gw/kit';
import { waitFor } from '@gw/testkit';
import type { Redis } from 'ioredis';

export const SHARED_REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A logger that keeps the messages of its warnings. */
export function recordingLogger(): { log: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = JSON.parse(chunk.toString()) as { level: number; msg: string };
      if (line.level === 40) {
        warnings.push(line.msg);
      }
      done();
    },
  });
  return { log: createLogger('proxy-test', 'warn', sink), warnings };
}

/** The proxy's connection, once ready (before that, it fails commands rather than queue them). */
export async function connected(url: string, log: Logger): Promise<Redis> {
  const redis = connectRedis(url, 'hotPath', log, 'shared key state');
  await waitFor(async () => redis.status === 'ready', `connected to ${url}`, 5_000, 20);
  return redis;
}
