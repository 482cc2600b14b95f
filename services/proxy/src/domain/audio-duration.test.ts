import { AppError } from '@gw/kit';
import { wavFile } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { audioDurationMs } from './audio-duration.js';
import type { FormPart } from './multipart.js';

const model: FormPart = { name: 'model', data: Buffer.from('whisper-1') };
const file = (data: Buffer, mimeType = 'audio/wav', filename = 'a.wav'): FormPart => ({
  name: 'file',
  data,
  filename,
  mimeType,
});

async function refusal(form: FormPart[]): Promise<string> {
  const error = await audioDurationMs(form).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('invalid_request');
  return (error as AppError).message;
}

describe('audioDurationMs', () => {
  it('reads the duration of the uploaded file, whatever its label says', async () => {
    expect(await audioDurationMs([model, file(wavFile(2.5))])).toBe(2500);
    expect(await audioDurationMs([model, file(wavFile(61, 16_000), 'audio/mpeg', 'talk.mp3')])).toBe(61_000);
    expect(await audioDurationMs([model, file(wavFile(0.25), 'application/octet-stream', 'blob')])).toBe(250);
  });

  it('refuses, naming file, an upload whose duration cannot be read', async () => {
    expect(await refusal([model, file(Buffer.alloc(64, 7))])).toMatch(
      /^file: the duration of the audio could not be read/,
    );
    expect(await refusal([model, file(Buffer.alloc(4096, 1), 'audio/mpeg', 'a.mp3')])).toMatch(/^file: /);
    expect(await refusal([model, file(wavFile(0))])).toMatch(/^file: /);
    expect(await refusal([model, file(wavFile(1).subarray(0, 30))])).toMatch(/^file: /);
  });

  it('stops reading bytes that would keep the reader busy, within its budget', async () => {
    // 0xFF bytes look like MPEG frame starts everywhere: unbounded, 8 MB of them take about 40 s.
    const started = performance.now();
    const message = await refusal([model, file(Buffer.alloc(8 * 1024 * 1024, 0xff), 'audio/mpeg', 'a.mp3')]);
    expect(message).toMatch(
      /^file: the duration of the audio could not be read \(reading it took over 1000 ms\)/,
    );
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('refuses a form without exactly one file', async () => {
    expect(await refusal([model])).toMatch(/^file: exactly one audio file is required/);
    expect(await refusal([model, { name: 'file', data: Buffer.from('text') }])).toMatch(/^file: /);
    expect(await refusal([model, file(wavFile(1)), file(wavFile(1))])).toMatch(/^file: /);
  });
});
