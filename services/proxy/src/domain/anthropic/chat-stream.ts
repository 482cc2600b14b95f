import { chatUsageOf, finishReasonOf, toChatError } from './to-chat.js';

type Json = Record<string, unknown>;

function record(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

export interface ChatStreamOptions {
  /** The model named in every chunk. */
  model: string;
  /** Unix seconds, named in every chunk. */
  created: number;
  /** `stream_options.include_usage`: `usage: null` on every chunk and a usage chunk at the end. */
  includeUsage: boolean;
}

/**
 * Anthropic's Messages stream as chat.completion.chunk events, one upstream event at a time:
 * `message_start` opens the assistant turn, text deltas become `content`, a `tool_use` block and
 * its `input_json_delta`s become a tool call and its `arguments`, `message_delta` carries the
 * finish reason and the final usage, `message_stop` ends with the usage chunk (when asked for)
 * and `[DONE]`, an `error` event becomes an error chunk. Pings and other blocks (thinking) add
 * nothing.
 */
export class MessagesToChatStream {
  private id = 'chatcmpl-anthropic';
  /** Usage as the stream reports it: message_start's, then message_delta's on top. */
  private usage: Json = {};
  /** Content block index → tool call index. */
  private readonly tools = new Map<number, number>();

  constructor(private readonly options: ChatStreamOptions) {}

  /** One upstream event's parsed `data`; answers the SSE text the client gets for it. */
  push(event: unknown): string {
    const value = record(event);
    switch (value.type) {
      case 'message_start': {
        const message = record(value.message);
        if (typeof message.id === 'string') {
          this.id = message.id;
        }
        this.usage = { ...record(message.usage) };
        return this.chunk({ role: 'assistant', content: '' }, null);
      }
      case 'content_block_start':
        return this.blockStart(Number(value.index), record(value.content_block));
      case 'content_block_delta':
        return this.blockDelta(Number(value.index), record(value.delta));
      case 'message_delta': {
        this.usage = { ...this.usage, ...record(value.usage) };
        return this.chunk({}, finishReasonOf(record(value.delta).stop_reason) ?? 'stop');
      }
      case 'message_stop':
        return this.finish();
      case 'error':
        return `data: ${JSON.stringify(toChatError(value, 500))}\n\n`;
      default:
        return '';
    }
  }

  /** The stream ended: nothing more to say (a stream cut before message_stop stays cut). */
  end(): string {
    return '';
  }

  private blockStart(index: number, block: Json): string {
    if (block.type === 'tool_use') {
      const call = this.tools.size;
      this.tools.set(index, call);
      return this.chunk(
        {
          tool_calls: [
            { index: call, id: block.id, type: 'function', function: { name: block.name, arguments: '' } },
          ],
        },
        null,
      );
    }
    if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
      return this.chunk({ content: block.text }, null);
    }
    return '';
  }

  private blockDelta(index: number, delta: Json): string {
    if (delta.type === 'text_delta' && typeof delta.text === 'string') {
      return this.chunk({ content: delta.text }, null);
    }
    const call = this.tools.get(index);
    if (delta.type === 'input_json_delta' && call !== undefined && typeof delta.partial_json === 'string') {
      return this.chunk({ tool_calls: [{ index: call, function: { arguments: delta.partial_json } }] }, null);
    }
    return '';
  }

  private finish(): string {
    const usage = this.options.includeUsage
      ? `data: ${JSON.stringify({ ...this.base(), choices: [], usage: chatUsageOf(this.usage) })}\n\n`
      : '';
    return `${usage}data: [DONE]\n\n`;
  }

  private base(): Json {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.options.created,
      model: this.options.model,
    };
  }

  private chunk(delta: Json, finishReason: string | null): string {
    const chunk = {
      ...this.base(),
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(this.options.includeUsage && { usage: null }),
    };
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }
}
