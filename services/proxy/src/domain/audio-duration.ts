import { AppError, ErrorCode } from '@gw/kit';
import { parseFromTokenizer, type IFileInfo } from 'music-metadata';
import { fromBuffer, type ITokenizer } from 'strtok3';
import type { FormPart } from './multipart.js';

/** Longer than any upload the proxy takes could play (about four months): not an audio file. */
const MAX_AUDIO_SECONDS = 1e7;

/**
 * Time the reader may take over one upload, in ms. A real file of any size is read in a few ms
 * (its headers, or an MP3's frames); bytes made to look like endless MPEG frame starts (0xFF…) cost
 * the reader about 5 µs each, so without this bound 60 MB of them would hold the proxy for minutes.
 */
export const AUDIO_READ_BUDGET_MS = 1000;

const FORMATS = 'flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav or webm';

const unreadable = (why: string) =>
  new AppError(
    ErrorCode.InvalidRequest,
    `file: the duration of the audio could not be read (${why}); send ${FORMATS} audio whose length its headers or frames state`,
  );

class OutOfTime extends Error {}

/**
 * The buffer as a tokenizer whose every call first checks the deadline: the reader works through
 * it, so a reader that would run on is stopped at its next read (parsing runs on the event loop,
 * where no timer could interrupt it).
 */
function timedTokenizer(data: Uint8Array, info: IFileInfo, deadline: number): ITokenizer {
  const tokenizer = fromBuffer(data, { fileInfo: info });
  return new Proxy(tokenizer, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== 'function') {
        return value;
      }
      return (...args: unknown[]): unknown => {
        if (performance.now() > deadline) {
          throw new OutOfTime();
        }
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

async function durationOf(data: Buffer, info: IFileInfo, deadline: number): Promise<number | undefined> {
  const tokenizer = timedTokenizer(data, info, deadline);
  return (await parseFromTokenizer(tokenizer, { duration: true, skipCovers: true })).format.duration;
}

/**
 * How long the uploaded audio plays, in ms: the form's `file` part read with music-metadata, from
 * the buffer the proxy already holds (its headers, or its frames where the headers say nothing:
 * an MP3 without a Xing header is counted frame by frame), within AUDIO_READ_BUDGET_MS.
 * Transcriptions and translations are metered by it when upstream reports no duration
 * (docs/decisions.md §26), so a file whose duration cannot be read is refused with 400 naming
 * `file`, before any upstream is called.
 */
export async function audioDurationMs(
  form: readonly FormPart[],
  budgetMs = AUDIO_READ_BUDGET_MS,
): Promise<number> {
  const files = form.filter((part) => part.name === 'file');
  if (files.length !== 1 || files[0]?.filename === undefined) {
    throw new AppError(ErrorCode.InvalidRequest, 'file: exactly one audio file is required');
  }
  const file = files[0];
  const deadline = performance.now() + budgetMs;
  let seconds: number | undefined;
  try {
    // The bytes say what the file is; the client's Content-Type and filename only when they do
    // not (a label that is wrong must not hide a readable file).
    seconds = await durationOf(file.data, { size: file.data.length }, deadline).catch((error: unknown) => {
      if (error instanceof OutOfTime) {
        throw error;
      }
      return undefined;
    });
    seconds ??= await durationOf(
      file.data,
      { mimeType: file.mimeType, size: file.data.length, path: file.filename },
      deadline,
    );
  } catch (error) {
    if (error instanceof OutOfTime) {
      throw unreadable(`reading it took over ${budgetMs} ms`);
    }
    throw unreadable(error instanceof Error ? error.message.slice(0, 200) : 'not a known audio format');
  }
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_AUDIO_SECONDS) {
    throw unreadable(seconds === undefined ? 'the file states no length' : `a length of ${seconds} s`);
  }
  return Math.round(seconds * 1000);
}
