import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@gw/kit';

/** A logger that keeps the messages of its warnings, in memory. */
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
