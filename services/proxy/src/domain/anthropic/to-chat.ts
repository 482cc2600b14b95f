/**
 * Anthropic Messages answers in the chat/completions shape: the whole answer, its stop reason,
 * its usage and its errors (the stream is chat-stream.ts).
 */

type Json = Record<string, unknown>;

function record(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

const FINISH_REASONS: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/** Anthropic's `stop_reason` as a `finish_reason` (an unknown one reads as a plain stop). */
export function finishReasonOf(stopReason: unknown): string | null {
  if (stopReason === null || stopReason === undefined) {
    return null;
  }
  return (typeof stopReason === 'string' ? FINISH_REASONS[stopReason] : undefined) ?? 'stop';
}

/**
 * Anthropic's usage as chat usage. Its `input_tokens` leaves out the cache reads and writes;
 * `prompt_tokens` holds them, as OpenAI's does.
 */
export function chatUsageOf(usage: unknown): Json {
  const u = record(usage);
  const n = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const cacheRead = n(u.cache_read_input_tokens);
  const prompt = n(u.input_tokens) + cacheRead + n(u.cache_creation_input_tokens);
  const completion = n(u.output_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cacheRead },
  };
}

/** A `tool_use` block as a chat tool call. */
export function toolCallOf(block: Json): Json {
  return {
    id: block.id,
    type: 'function',
    function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
  };
}

/** A whole Messages answer as a chat completion (text blocks joined, tool_use blocks as tool calls). */
export function toChatCompletion(answer: unknown, model: string, created: number): Json {
  const message = record(answer);
  const blocks = Array.isArray(message.content) ? message.content.map(record) : [];
  const text = blocks
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('');
  const toolCalls = blocks.filter((block) => block.type === 'tool_use').map(toolCallOf);
  return {
    id: typeof message.id === 'string' ? message.id : 'chatcmpl-anthropic',
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
        },
        logprobs: null,
        finish_reason: finishReasonOf(message.stop_reason) ?? 'stop',
      },
    ],
    usage: chatUsageOf(message.usage),
  };
}

/** OpenAI's error types for Anthropic's (the ones missing from OpenAI's vocabulary). */
const ERROR_TYPES: Readonly<Record<string, string>> = {
  overloaded_error: 'api_error',
  request_too_large: 'invalid_request_error',
  billing_error: 'insufficient_quota',
};

/**
 * An Anthropic error (`{ type: "error", error: { type, message } }`, as a body or a stream's
 * `error` event) in the spec's shape; its Anthropic type stays as the code.
 */
export function toChatError(
  body: unknown,
  status: number,
): { error: { message: string; type: string; code: string } } {
  const error = record(record(body).error);
  const type = typeof error.type === 'string' ? error.type : 'api_error';
  return {
    error: {
      message: typeof error.message === 'string' ? error.message : `upstream answered ${status}`,
      type: ERROR_TYPES[type] ?? type,
      code: type,
    },
  };
}
