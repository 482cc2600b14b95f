import { randomBytes } from 'node:crypto';
import { DEFAULT_PRICES, nanoToUsd, usd } from '@gw/kit';
import {
  createUser,
  MockUpstream,
  startGateway,
  waitFor,
  waitForRoute,
  wavFile,
  type Gateway,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Audio heard is charged by its duration: whisper-1 at 0.006 USD a minute (InputAudio 100 per 1M
 * seconds), from the seconds upstream reports or, when it reports none (a `text` answer, any
 * translation), from the duration of the uploaded file. A file whose duration cannot be read is
 * 400 naming `file`, before any upstream is called.
 */
describe('audio calls are charged by the duration of the audio', () => {
  let gw: Gateway;
  let mock: MockUpstream;
  const secret = `audio-${randomBytes(12).toString('hex')}`;
  /** nano-USD per second of whisper-1 audio: USD per 1M seconds = nano-USD per thousand seconds. */
  const perSecond = BigInt(Math.round((DEFAULT_PRICES.AudioPricing['whisper-1']?.InputAudio ?? NaN) * 1000));

  beforeAll(async () => {
    mock = await MockUpstream.start();
    gw = await startGateway();
    const added = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: secret, Level: 1, Provider: mock.url },
    });
    expect(added.status, await added.clone().text()).toBe(200);
    const keyId = ((await added.json()) as { Key: { ID: number } }).Key.ID;
    const configured = await gw.request('/x-config', {
      method: 'PUT',
      json: { LEVEL_MAPPER: 'whisper-1=1' },
    });
    expect(configured.status).toBe(200);
    await waitForRoute(gw, 'whisper-1', 1, [keyId]);
  }, 120_000);

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
    await (mock as MockUpstream | undefined)?.stop();
  });

  const balanceOf = async (key: string) =>
    ((await (await gw.request('/dashboard/status', { key })).json()) as { balance: number }).balance;

  const upload = (key: string, path: string, file: Buffer, fields: Record<string, string> = {}) => {
    const form = new FormData();
    form.set('model', 'whisper-1');
    for (const [name, value] of Object.entries(fields)) {
      form.set(name, value);
    }
    form.set('file', new Blob([new Uint8Array(file)], { type: 'audio/wav' }), 'speech.wav');
    return fetch(`${gw.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
  };

  it('charges 0.006 USD a minute of a transcription answered as text (upstream reports no usage)', async () => {
    expect(perSecond).toBe(100_000n);
    const user = await createUser(gw, { credit: 5 });
    const response = await upload(user.key, '/v1/audio/transcriptions', wavFile(45), {
      response_format: 'text',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await response.text()).toBe('transcribed by whisper-1');
    const expected = nanoToUsd(usd(5) - 45n * perSecond); // 0.0045 USD
    await waitFor(async () => (await balanceOf(user.key)) === expected, `balance ${expected}`, 15_000, 50);
  });

  it('charges a translation by the duration of its file', async () => {
    const user = await createUser(gw, { credit: 5 });
    const response = await upload(user.key, '/v1/audio/translations', wavFile(90));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: 'transcribed by whisper-1' });
    const expected = nanoToUsd(usd(5) - 90n * perSecond); // 0.009 USD
    await waitFor(async () => (await balanceOf(user.key)) === expected, `balance ${expected}`, 15_000, 50);
  });

  it('charges the seconds upstream reports when it reports them', async () => {
    const user = await createUser(gw, { credit: 5 });
    // The mock's JSON answer reports 3.5 s: the provider's own count is what it bills.
    const response = await upload(user.key, '/v1/audio/transcriptions', wavFile(10));
    expect(response.status).toBe(200);
    const expected = nanoToUsd(usd(5) - (3_500n * perSecond) / 1000n);
    await waitFor(async () => (await balanceOf(user.key)) === expected, `balance ${expected}`, 15_000, 50);
  });

  it('refuses a file whose duration cannot be read with 400 naming file: no upstream call, no charge', async () => {
    const user = await createUser(gw, { credit: 5 });
    const before = mock.for(secret).length;
    for (const [path, file] of [
      ['/v1/audio/transcriptions', Buffer.alloc(4096, 7)],
      ['/v1/audio/translations', wavFile(2).subarray(0, 40)],
    ] as const) {
      const response = await upload(user.key, path, file, { response_format: 'text' });
      expect(response.status, path).toBe(400);
      expect(await response.json()).toMatchObject({
        error: {
          type: 'invalid_request_error',
          code: 'invalid_request',
          message: expect.stringMatching(/^file: the duration of the audio could not be read/),
        },
      });
    }
    expect(mock.for(secret)).toHaveLength(before);
    // A call made after them is charged alone: the refused ones left nothing to charge.
    expect((await upload(user.key, '/v1/audio/translations', wavFile(1))).status).toBe(200);
    const expected = nanoToUsd(usd(5) - perSecond);
    await waitFor(async () => (await balanceOf(user.key)) === expected, `balance ${expected}`, 15_000, 50);
  });
});
