import { AppError, ErrorCode } from '@gw/kit';
import { parseBuffer, type IFileInfo } from 'music-metadata';
import type { FormPart } from './multipart.js';

/** Longer than any upload the proxy takes could play (about four months): not an audio file. */
const MAX_AUDIO_SECONDS = 1e7;

const FORMATS = 'flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav or webm';

async function durationOf(data: Buffer, info: IFileInfo): Promise<number | undefined> {
  try {
    return (await parseBuffer(data, info, { duration: true, skipCovers: true })).format.duration;
  } catch (error) {
    if (info.mimeType === undefined && info.path === undefined) {
      return undefined;
    }
    throw error;
  }
}

const unreadable = (why: string) =>
  new AppError(
    ErrorCode.InvalidRequest,
    `file: the duration of the audio could not be read (${why}); send ${FORMATS} audio whose length its headers or frames state`,
  );

/**
 * How long the uploaded audio plays, in ms: the form's `file` part read with music-metadata, from
 * the buffer the proxy already holds (its headers, or its frames where the headers say nothing:
 * an MP3 without a Xing header is counted frame by frame). Transcriptions and translations are
 * metered by it when upstream reports no duration (docs/decisions.md §26), so a file whose
 * duration cannot be read is refused with 400 naming `file`, before any upstream is called.
 */
export async function audioDurationMs(form: readonly FormPart[]): Promise<number> {
  const files = form.filter((part) => part.name === 'file');
  if (files.length !== 1 || files[0]?.filename === undefined) {
    throw new AppError(ErrorCode.InvalidRequest, 'file: exactly one audio file is required');
  }
  const file = files[0];
  let seconds: number | undefined;
  try {
    // The bytes say what the file is; the client's Content-Type and filename only when they do not
    // (a label that is wrong must not hide a readable file).
    seconds =
      (await durationOf(file.data, { size: file.data.length })) ??
      (await durationOf(file.data, { mimeType: file.mimeType, size: file.data.length, path: file.filename }));
  } catch (error) {
    throw unreadable(error instanceof Error ? error.message.slice(0, 200) : 'not a known audio format');
  }
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_AUDIO_SECONDS) {
    throw unreadable(seconds === undefined ? 'the file states no length' : `a length of ${seconds} s`);
  }
  return Math.round(seconds * 1000);
}
