import { waitFor, wavFile } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useForwardingProxy } from './forwarding-fixture.js';

/**
 * What the proxy forwards is what it read, checked and billed; what it holds in memory is bounded;
 * what an upstream says back about the client's mistake carries nothing of the owner's.
 */
describe('relay: bodies in, errors out', () => {
  const proxy = useForwardingProxy();
  const boundary = 'gwtestboundary';
  const part = (headers: string, value: string | Buffer) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`),
      Buffer.from(value),
      Buffer.from('\r\n'),
    ]);
  const form = (...parts: Buffer[]) => Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]);
  /** A file part of `size` bytes: a WAV whose duration can be read (8 kHz, 16-bit: 2 bytes a sample). */
  const file = (size: number) =>
    part(
      'Content-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav',
      size > 44 ? wavFile((size - 44) / 2 / 8000) : Buffer.alloc(size, 7),
    );
  const upload = (body: Buffer<ArrayBuffer>, contentType = `multipart/form-data; boundary=${boundary}`) =>
    proxy.call('/v1/audio/transcriptions', { headers: { 'content-type': contentType }, body });
  const chat = (text: string) =>
    proxy.call('/v1/chat/completions', { headers: { 'content-type': 'application/json' }, body: text });

  it('forwards the serialisation of the JSON it parsed, never the raw bytes (a key given twice counts once)', async () => {
    proxy.useKeys([{ secret: 'json-twice' }]);
    const sent = '{"model":"gpt-4o","messages":[],"model":"gpt-4o-mini","temperature":1,"temperature":0}';
    expect((await chat(sent)).status).toBe(200);
    const seen = proxy.mock.for('json-twice');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.body).toEqual({ model: 'gpt-4o-mini', messages: [], temperature: 0 });
    expect(Number(seen[0]?.headers['content-length'])).toBe(
      Buffer.byteLength(JSON.stringify(JSON.parse(sent) as unknown)),
    );
  });

  it('refuses a body nested 200 000 levels deep with 400, never 500', async () => {
    proxy.useKeys([{ secret: 'deep' }]);
    const deep = `{"model":"m","stream":true,"messages":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const response = await chat(deep);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { type: 'invalid_request_error', message: expect.stringMatching(/deeper than 128 levels/) },
    });
    expect(proxy.mock.for('deep')).toHaveLength(0);
  });

  it('forwards an upload as a form it built from the parts it read, with its own boundary', async () => {
    proxy.useKeys([{ secret: 'rebuilt' }]);
    const body = Buffer.concat([
      Buffer.from('a preamble some readers take for a part\r\n'),
      form(part('Content-Disposition: form-data; name="model"', 'whisper-1'), file(1000)),
      Buffer.from('an epilogue with --gwtestboundary in it\r\n'),
    ]);
    expect((await upload(body)).status).toBe(200);
    const seen = proxy.mock.for('rebuilt')[0];
    expect(seen?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=gw-[0-9a-f]{32}$/);
    expect(seen?.body).toEqual({ model: 'whisper-1', file: { filename: 'a.wav', size: 1000 } });
  });

  it('refuses what readers would read differently: a parameter twice in a part or in the body', async () => {
    proxy.useKeys([{ secret: 'ambiguous' }]);
    const twiceNamed = await upload(
      form(
        part('Content-Disposition: form-data; name="model"; name="prompt"', 'gpt-4o-transcribe'),
        file(10),
      ),
    );
    expect(twiceNamed.status).toBe(400);
    expect(await twiceNamed.json()).toMatchObject({ error: { message: expect.stringMatching(/name/) } });

    const twiceBoundary = await upload(
      form(part('Content-Disposition: form-data; name="model"', 'whisper-1'), file(10)),
      `multipart/form-data; boundary=${boundary}; boundary=other`,
    );
    expect(twiceBoundary.status).toBe(400);
    expect(await twiceBoundary.json()).toMatchObject({
      error: { message: expect.stringMatching(/boundary/) },
    });

    const twiceDisposition = await upload(
      form(
        part(
          'Content-Disposition: form-data; name="model"\r\nContent-Disposition: form-data; name="x"',
          'whisper-1',
        ),
        file(10),
      ),
    );
    expect(twiceDisposition.status).toBe(400);
    expect(proxy.mock.for('ambiguous')).toHaveLength(0);
  });

  it("relays an upstream 4xx as error.{message,type,code,param} only, the owner's key masked", async () => {
    proxy.useKeys([{ secret: 'echoing' }]);
    proxy.mock.set('echoing', {
      status: 400,
      errorBody: {
        error: {
          message: 'Invalid request with key sk-owner-1234567890abcdef for org-owner',
          type: 'invalid_request_error',
          code: 'invalid_value',
          param: 'messages',
          request: { authorization: 'Bearer sk-owner-1234567890abcdef' },
        },
        owner: { email: 'owner@example.com' },
      },
    });
    const response = await chat('{"model":"m","messages":[]}');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: 'Invalid request with key *** for org-owner',
        type: 'invalid_request_error',
        code: 'invalid_value',
        param: 'messages',
      },
    });
  });

  it("refuses an account's upload with 429 while its bytes in memory are at their bound", async () => {
    proxy.useKeys([{ secret: 'held' }]);
    // Held upstream for a while (under the in-process proxy's 1 s answer timeout).
    proxy.mock.set('held', { headersDelayMs: 700 });
    const body = form(
      part('Content-Disposition: form-data; name="model"', 'whisper-1'),
      file(2 * 1024 * 1024 - 400),
    );
    const first = upload(body);
    await waitFor(async () => proxy.mock.for('held').length === 1, 'the first upload upstream');
    const second = await upload(body);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(await second.json()).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limited' } });
    expect((await first).status).toBe(200);
    // Its bytes were given back: the next upload is served.
    proxy.mock.set('held', {});
    expect((await upload(body)).status).toBe(200);
  });

  it('closes a realtime session whose client sends a frame over the bound (1009), never forwarding it', async () => {
    proxy.useKeys([{ secret: 'frames' }]);
    const socket = new WebSocket(`${proxy.base.replace('http', 'ws')}/v1/realtime?model=gpt-4o-realtime`, {
      headers: { authorization: `Bearer ${proxy.keyFor()}` },
    });
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('open', resolve));
    const before = proxy.mock.realtimeFrames.length;
    socket.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: 'A'.repeat(100 * 1024) }));
    expect(await closed).toBe(1009);
    expect(proxy.mock.realtimeFrames.length).toBe(before);
  });
});
