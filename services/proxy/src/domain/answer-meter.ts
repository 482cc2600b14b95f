import { JSONParser } from '@streamparser/json';
import {
  AnthropicStreamUsage,
  anthropicEventText,
  isAnthropicStreamEvent,
} from './anthropic/stream-usage.js';
import { chunkText, isUsageOnlyChunk, parseJson, SseSplitter, Utf8Stream } from './sse.js';
import { emptyUsage, readUsage, type Usage } from './usage.js';

/** A JSON answer up to this size is parsed whole at its end; a larger one is scanned as it flows. */
const WHOLE_JSON_LIMIT = 1024 * 1024;
/** Text kept for an estimate when upstream reports no usage; beyond it, characters are counted. */
const TEXT_LIMIT = 1024 * 1024;
/**
 * Characters of SSE data held unparsed (events that can carry no usage, only text for an
 * estimate); past it, the held events are read and every later one is parsed as it comes.
 */
const DEFERRED_LIMIT = 1024 * 1024;

/**
 * SSE data that may carry usage or a stored object's id: a `usage` or `response` member whose
 * value is an object (OpenAI's chunks say `"usage":null` until the last), or one of Anthropic's
 * message events. A quoted name followed by a colon can only be a member, since quotes inside a
 * JSON string are escaped. Any other event (a chunk of text) is parsed only if the answer ends
 * without usage and an estimate needs its text.
 */
const MAY_CARRY_USAGE = /"(?:usage|response)"\s*:\s*\{|"message_/;

export type AnswerKind = 'sse' | 'json' | 'text' | 'binary';

export function answerKind(contentType: string | undefined): AnswerKind {
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('text/event-stream')) {
    return 'sse';
  }
  if (type.includes('json')) {
    return 'json';
  }
  return type.startsWith('text/') ? 'text' : 'binary';
}

/** Paths of a JSON answer that say something about usage, and the text an estimate counts. */
const JSON_PATHS = [
  '$.id',
  '$.conversation.id',
  '$.usage',
  '$.response.usage',
  '$.data.*',
  '$.choices.*.message.content',
  '$.choices.*.text',
  '$.text',
  '$.output.*.content.*.text',
  '$.content.*.text',
];

/**
 * Reads an upstream answer as it is relayed, without holding it: the usage upstream reported
 * (SSE chunks, a JSON body of any size, image counts) and, bounded, the text an estimate counts
 * when it reported none. `push` answers what the client gets: the bytes as they came, unless the
 * usage-only chunk we asked for on the client's behalf must be hidden.
 */
export class AnswerMeter {
  readonly usage: Usage = emptyUsage();
  /** Ids of the objects the answer says upstream stored (a response and its conversation). */
  readonly createdIds = new Set<string>();
  private readonly decoder = new Utf8Stream();
  private readonly splitter = new SseSplitter();
  private text = '';
  private textOverflow = 0;
  private buffered: Buffer[] | undefined = [];
  private bufferedSize = 0;
  private scanner: JSONParser | undefined;
  /** SSE data of text-only events, parsed when an estimate needs it; undefined once past the limit. */
  private deferred: string[] | undefined = [];
  private deferredSize = 0;
  private scanFailed = false;
  private readonly anthropic = new AnthropicStreamUsage();

  constructor(
    private readonly kind: AnswerKind,
    private readonly hideUsageChunk: boolean,
  ) {}

  push(chunk: Buffer): Buffer | string {
    switch (this.kind) {
      case 'sse':
        return this.pushSse(chunk);
      case 'json':
        this.pushJson(chunk);
        return chunk;
      case 'text':
        this.keepText(this.decoder.write(chunk));
        return chunk;
      case 'binary':
        return chunk;
    }
  }

  /** The answer ended: what is left to write to the client. */
  end(): string {
    if (this.kind === 'sse') {
      const rest = this.splitter.flush();
      return rest ? this.sseEvent(rest.raw, rest.data) : '';
    }
    if (this.kind === 'json' && this.buffered) {
      const body = parseJson(Buffer.concat(this.buffered).toString('utf8'));
      if (body !== undefined) {
        readUsage(body, this.usage);
        this.keepIds(body);
        this.keepJsonText(body);
      }
    }
    return '';
  }

  /** Text of the answer seen so far, and how many characters past the kept part. */
  seenText(): { text: string; overflowChars: number } {
    this.readDeferred();
    return { text: this.text, overflowChars: this.textOverflow };
  }

  private pushSse(chunk: Buffer): Buffer | string {
    let out = '';
    for (const event of this.splitter.push(this.decoder.write(chunk))) {
      out += this.sseEvent(event.raw, event.data);
    }
    // Without anything to hide, the bytes go on exactly as they came.
    return this.hideUsageChunk ? out : chunk;
  }

  private sseEvent(raw: string, data: string): string {
    if (this.deferred && !MAY_CARRY_USAGE.test(data)) {
      this.deferred.push(data);
      this.deferredSize += data.length;
      if (this.deferredSize > DEFERRED_LIMIT) {
        this.readDeferred();
        this.deferred = undefined;
      }
      return raw;
    }
    const value = parseJson(data);
    if (isAnthropicStreamEvent(value)) {
      const final = this.anthropic.take(value);
      if (final) {
        readUsage(final, this.usage);
      }
    } else if (value !== undefined) {
      if ((value as { usage?: unknown }).usage || (value as { response?: unknown }).response) {
        readUsage(value, this.usage);
        this.keepIds((value as { response?: unknown }).response);
      }
    }
    this.keepEventText(value);
    return this.hideUsageChunk && isUsageOnlyChunk(value) ? '' : raw;
  }

  /** The text an SSE event adds, for an estimate. */
  private keepEventText(value: unknown): void {
    if (isAnthropicStreamEvent(value)) {
      this.keepText(anthropicEventText(value));
    } else if (value !== undefined) {
      const delta = (value as { type?: unknown; delta?: unknown }).delta;
      this.keepText(
        (value as { type?: unknown }).type === 'response.output_text.delta' && typeof delta === 'string'
          ? delta
          : chunkText(value),
      );
    }
  }

  /** Reads the text of the events held unparsed so far. */
  private readDeferred(): void {
    if (this.deferred && this.deferred.length > 0) {
      for (const data of this.deferred) {
        this.keepEventText(parseJson(data));
      }
      this.deferred = [];
      this.deferredSize = 0;
    }
  }

  private pushJson(chunk: Buffer): void {
    if (this.buffered) {
      this.buffered.push(chunk);
      this.bufferedSize += chunk.length;
      if (this.bufferedSize <= WHOLE_JSON_LIMIT) {
        return;
      }
      // Too large to parse whole: scan from the start, as it flows, for what matters.
      const held = this.buffered;
      this.buffered = undefined;
      this.scanner = this.jsonScanner();
      for (const part of held) {
        this.scan(part);
      }
      return;
    }
    this.scan(chunk);
  }

  private jsonScanner(): JSONParser {
    const scanner = new JSONParser({ paths: JSON_PATHS, keepStack: false });
    scanner.onValue = ({ value, key, stack }) => {
      const path = [...stack.slice(1).map((element) => element.key), key].join('.');
      if ((path === 'id' || path === 'conversation.id') && typeof value === 'string') {
        this.createdIds.add(value);
      } else if (path === 'usage' || path === 'response.usage') {
        readUsage({ usage: value }, this.usage);
      } else if (path.startsWith('data.')) {
        readUsage({ data: [value] }, this.usage);
      } else if (typeof value === 'string') {
        this.keepText(value);
      }
    };
    scanner.onError = () => {
      this.scanFailed = true;
    };
    return scanner;
  }

  private scan(chunk: Buffer): void {
    if (!this.scanFailed && this.scanner && !this.scanner.isEnded) {
      try {
        this.scanner.write(chunk);
      } catch {
        this.scanFailed = true;
      }
    }
  }

  /** The text fields of a JSON answer parsed whole (the same ones the scanner keeps). */
  private keepJsonText(body: unknown): void {
    const root = (body ?? {}) as { choices?: unknown; text?: unknown; output?: unknown; content?: unknown };
    this.keepText(chunkText({ choices: root.choices }));
    if (Array.isArray(root.choices)) {
      for (const choice of root.choices as Array<{ message?: { content?: unknown } }>) {
        if (typeof choice.message?.content === 'string') {
          this.keepText(choice.message.content);
        }
      }
    }
    if (typeof root.text === 'string') {
      this.keepText(root.text);
    }
    // Anthropic's Messages answer: text blocks.
    if (Array.isArray(root.content)) {
      for (const block of root.content as Array<{ text?: unknown }>) {
        if (typeof block.text === 'string') {
          this.keepText(block.text);
        }
      }
    }
    if (Array.isArray(root.output)) {
      for (const item of root.output as Array<{ content?: unknown }>) {
        for (const part of Array.isArray(item.content) ? (item.content as Array<{ text?: unknown }>) : []) {
          if (typeof part.text === 'string') {
            this.keepText(part.text);
          }
        }
      }
    }
  }

  /** A stored object's id and its conversation's, when the value carries them. */
  private keepIds(value: unknown): void {
    const object = (value ?? {}) as { id?: unknown; conversation?: { id?: unknown } | null };
    for (const id of [object.id, object.conversation?.id]) {
      if (typeof id === 'string' && id !== '') {
        this.createdIds.add(id);
      }
    }
  }

  private keepText(text: string): void {
    const room = TEXT_LIMIT - this.text.length;
    if (text.length <= room) {
      this.text += text;
    } else {
      this.text += text.slice(0, Math.max(room, 0));
      this.textOverflow += text.length - Math.max(room, 0);
    }
  }
}
