/**
 * Server-sent events, split as they arrive: bytes in, whole events out (each with its raw text,
 * so what we relay is byte-for-byte what upstream sent).
 */
export interface SseEvent {
  raw: string;
  /** The joined `data:` lines. */
  data: string;
}

export class SseSplitter {
  private buffer = '';

  /** Feeds text; returns every event completed by it. */
  push(text: string): SseEvent[] {
    this.buffer += text;
    const events: SseEvent[] = [];
    for (;;) {
      const match = /\r?\n\r?\n/.exec(this.buffer);
      if (!match) {
        break;
      }
      const end = match.index + match[0].length;
      const raw = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end);
      events.push({ raw, data: dataOf(raw) });
    }
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

function dataOf(raw: string): string {
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
