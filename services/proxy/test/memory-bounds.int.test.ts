import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startGateway, type Gateway, MockUpstream, wavFile } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

/** The proxy's peak resident memory so far (VmHWM), in MiB. */
function peakRssMiB(gw: Gateway): number {
  const pid = gw.processes.get('proxy')?.child.pid;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** Stated bound: the proxy's own size (about 200 MiB under tsx) plus what its body budget lets in. */
const PEAK_RSS_BOUND_MIB = 700;

/**
 * Reliability: what a tenant can send at once never takes the proxy's memory past a stated bound.
 * 20 parallel 60 MB uploads (each buffered whole before the fix: 3 took it from 171 to 710 MB) and
 * ten 50 MB realtime frames (ws's 100 MiB default before the fix) through the whole gateway.
 */
describe('proxy memory under large uploads and frames', () => {
  let gw: Gateway;
  let mock: MockUpstream;

  beforeAll(async () => {
    mock = await MockUpstream.start();
    gw = await startGateway({ env: { GW_KEY_STATE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:` } });
    const key = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: `memory-${randomBytes(8).toString('hex')}`, Level: 1, Provider: mock.url },
    });
    expect(key.status).toBe(200);
  });

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
    await (mock as MockUpstream | undefined)?.stop();
  });

  it('answers 20 parallel 60 MB uploads with 200 or 429 and ten 50 MB frames with 1009, under the bound', async () => {
    const boundary = 'memoryboundary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`),
      wavFile((60 * 1024 * 1024 - 44) / 2 / 8000), // 60 MiB of audio whose duration can be read
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        try {
          const response = await fetch(`${gw.baseUrl}/v1/audio/transcriptions`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${gw.rootKey}`,
              'content-type': `multipart/form-data; boundary=${boundary}`,
            },
            body,
          });
          const answer = (await response.json()) as { error?: { type: string } };
          return { status: response.status, type: answer.error?.type };
        } catch (error) {
          // A refused upload is answered 429 before its body is read, and the connection closed:
          // on a busy machine the client's write of the rest can fail first, losing the answer.
          const code = (error as { cause?: { code?: string } }).cause?.code;
          return { status: 0, type: code };
        }
      }),
    );
    for (const answer of answers) {
      expect([
        { status: 200, type: undefined },
        { status: 429, type: 'rate_limit_error' },
        { status: 0, type: 'EPIPE' },
        { status: 0, type: 'ECONNRESET' },
      ]).toContainEqual(answer);
    }
    expect(answers.some((answer) => answer.status === 200)).toBe(true);

    const codes = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const socket = new WebSocket(
          `${gw.baseUrl.replace('http', 'ws')}/v1/realtime?model=gpt-4o-realtime-preview`,
          { headers: { authorization: `Bearer ${gw.rootKey}` } },
        );
        socket.on('error', () => undefined);
        const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
        await new Promise((resolve) => socket.once('open', resolve));
        socket.send(Buffer.alloc(50 * 1024 * 1024, 65));
        return closed;
      }),
    );
    expect(codes).toEqual(Array(10).fill(1009));
    expect(peakRssMiB(gw)).toBeLessThan(PEAK_RSS_BOUND_MIB);
  });
});
