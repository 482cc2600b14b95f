import { randomBytes } from 'node:crypto';
import { request, type IncomingMessage } from 'node:http';
import { startGateway, type Gateway, MockUpstream } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** An answer read by node:http, with how it ended: `end` (whole) or `cut` (error or close first). */
interface RawAnswer {
  status: number;
  body: string;
  ended: 'end' | 'cut';
}

/**
 * AI calls as HTTP clients really send them: node:http, byte for byte, so a test controls
 * `Expect` and sees a connection cut that fetch would hide.
 */
describe('AI calls from raw HTTP clients', () => {
  let gw: Gateway;
  let mock: MockUpstream;
  const upstreamSecret = `edge-hop-${randomBytes(12).toString('hex')}`;

  function send(path: string, body: Buffer, headers: Record<string, string>): Promise<RawAnswer> {
    const { hostname, port } = new URL(gw.baseUrl);
    return new Promise((resolve, reject) => {
      const req = request({
        host: hostname,
        port,
        method: 'POST',
        path,
        headers: { authorization: `Bearer ${gw.rootKey}`, 'content-length': String(body.length), ...headers },
      });
      const answer = (res: IncomingMessage) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, ended: 'end' }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0, body: text, ended: 'cut' }));
        res.on('close', () => {
          if (!res.complete) {
            resolve({ status: res.statusCode ?? 0, body: text, ended: 'cut' });
          }
        });
      };
      req.on('response', answer);
      req.on('error', reject);
      if (headers.expect) {
        // A client that sent Expect waits for 100 Continue before the body, as curl does.
        req.on('continue', () => req.end(body));
        req.flushHeaders();
      } else {
        req.end(body);
      }
    });
  }

  beforeAll(async () => {
    mock = await MockUpstream.start();
    gw = await startGateway({ env: { GW_KEY_STATE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:` } });
    const key = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: upstreamSecret, Level: 1, Provider: mock.url },
    });
    expect(key.status).toBe(200);
  });

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
    await (mock as MockUpstream | undefined)?.stop();
  });

  it('serves a body over 1 MB sent with Expect: 100-continue, authenticated like any other (not 401)', async () => {
    const body = Buffer.from(
      JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'x'.repeat(1_200_000) }],
      }),
    );
    const before = mock.requests.length;
    const answer = await send('/v1/chat/completions', body, {
      'content-type': 'application/json',
      expect: '100-continue',
    });
    expect({ status: answer.status, body: answer.body.slice(0, 200) }).toMatchObject({ status: 200 });
    const seen = mock.requests.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${upstreamSecret}`);
  });

  it("cuts the client's stream promptly when upstream's stream breaks mid-answer", async () => {
    mock.set(upstreamSecret, { chunks: 50, chunkDelayMs: 20, resetAfter: 3 });
    try {
      const answer = await send(
        '/v1/chat/completions',
        Buffer.from(JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [] })),
        { 'content-type': 'application/json' },
      );
      expect(answer.status).toBe(200);
      expect(answer.ended).toBe('cut');
      expect(answer.body).toContain('tok0');
      expect(answer.body).not.toContain('[DONE]');
    } finally {
      mock.set(upstreamSecret, {});
    }
  });
});
