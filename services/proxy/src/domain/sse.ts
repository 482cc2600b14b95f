import { StringDecoder } from 'node:string_decoder';

/**
 * Server-sent events, split as they arrive: bytes in, whole events out (each with its raw text,
 * so what we relay is byte-for-byte what upstream sent).
 */
export interface SseEvent {
  raw: string;
  /** The joined `data:` lines. */
  data: string;
}

/**
 * UTF-8 text of a byte stream read in chunks: a character cut between two chunks comes out whole
 * with the later one, and a leading byte order mark is dropped, as `TextDecoder` does. Node's
 * `StringDecoder` takes a third of `TextDecoder`'s time for a stream's chunks (bench/RESULTS.md,
 * thirteenth round).
 */
export class Utf8Stream {
  private readonly decoder = new StringDecoder('utf8');
  private started = false;

  write(chunk: Buffer): string {
    const text = this.decoder.write(chunk);
    if (this.started || text.length === 0) {
      return text;
    }
    this.started = true;
    return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
  }

  /** What is left of a character the stream ended in the middle of (a replacement character). */
  end(): string {
    return this.decoder.end();
  }
}

const BYTE_ORDER_MARK = 0xfeff;

export class SseSplitter {
  private buffer = '';

  /** Feeds text; returns every event completed by it. */
  push(text: string): SseEvent[] {
    const buffer = this.buffer + text;
    const events: SseEvent[] = [];
    let start = 0;
    for (let end = eventEnd(buffer, 0); end !== -1; end = eventEnd(buffer, start)) {
      const raw = buffer.slice(start, end);
      events.push({ raw, data: dataOf(raw) });
      start = end;
    }
    // Cut once per push: a stream's read usually holds several events.
    this.buffer = start === 0 ? buffer : buffer.slice(start);
    return events;
  }

  /** Whatever is left when the stream ends without a final blank line. */
  flush(): SseEvent | undefined {
    if (!this.buffer) {
      return undefined;
    }
    const raw = this.buffer;
    this.buffer = '';
    return { raw, data: dataOf(raw) };
  }

  get pendingBytes(): number {
    return this.buffer.length;
  }
}

const LF = 10;
const CR = 13;
const SPACE = 32;

/**
 * Where the blank line that ends the first event at or after `from` ends (a line break followed
 * by an empty line, each `\n` or `\r\n`); -1 when the text holds no such line yet.
 */
function eventEnd(text: string, from: number): number {
  for (let at = text.indexOf('\n', from); at !== -1; at = text.indexOf('\n', at + 1)) {
    const next = text.charCodeAt(at + 1);
    if (next === LF) {
      return at + 2;
    }
    if (next === CR && text.charCodeAt(at + 2) === LF) {
      return at + 3;
    }
  }
  return -1;
}

/** The joined `data:` lines of one event's raw text. */
function dataOf(raw: string): string {
  // Most events are one `data:` line and the blank line: read its value without splitting.
  const lineEnd = raw.indexOf('\n');
  const rest = raw.length - lineEnd - 1;
  if (
    lineEnd !== -1 &&
    raw.startsWith('data:') &&
    (rest === 0 || (rest === 1 && raw.charCodeAt(lineEnd + 1) === LF) || (rest === 2 && raw.endsWith('\r\n')))
  ) {
    const valueEnd = raw.charCodeAt(lineEnd - 1) === CR ? lineEnd - 1 : lineEnd;
    return raw.slice(raw.charCodeAt(5) === SPACE ? 6 : 5, valueEnd);
  }
  return raw
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The chunk `stream_options.include_usage` adds: usage set and no choices. */
export function isUsageOnlyChunk(chunk: unknown): boolean {
  if (!chunk || typeof chunk !== 'object') {
    return false;
  }
  const value = chunk as { usage?: unknown; choices?: unknown };
  return !!value.usage && Array.isArray(value.choices) && value.choices.length === 0;
}

/** The text a chat/completions chunk carries (for counting what was relayed). */
export function chunkText(chunk: unknown): string {
  if (!chunk || typeof chunk !== 'object') {
    return '';
  }
  const choices = (chunk as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) {
    return '';
  }
  let text = '';
  for (const choice of choices as unknown[]) {
    const value = (choice ?? {}) as { delta?: { content?: unknown } | null; text?: unknown };
    const content = value.delta?.content;
    if (typeof content === 'string') {
      text += content;
    } else if (typeof value.text === 'string') {
      text += value.text;
    }
  }
  return text;
}
