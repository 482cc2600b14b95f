import type { ServerResponse } from 'node:http';
import type { MockCall } from './mock-answers.js';
import type { Behaviour } from './mock-upstream.js';

/** Usage the mock reports on the Messages API unless the key's behaviour says otherwise. */
export const DEFAULT_ANTHROPIC_USAGE = {
  input_tokens: 11,
  output_tokens: 7,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

/** The tool input the mock "decides" on when tools are offered. */
export const MOCK_TOOL_INPUT = { city: 'Oslo' };

/** Anthropic's error body for a status, as its API sends it. */
export function anthropicError(status: number, message = `mock ${status}`): unknown {
  const type =
    status === 400
      ? 'invalid_request_error'
      : status === 401
        ? 'authentication_error'
        : status === 403
          ? 'permission_error'
          : status === 404
            ? 'not_found_error'
            : status === 429
              ? 'rate_limit_error'
              : status === 529
                ? 'overloaded_error'
                : 'api_error';
  return { type: 'error', error: { type, message } };
}

type Json = Record<string, unknown>;

/** Whether the conversation's last turn answers a tool call (then the mock answers in text). */
function answersToolCall(body: Json): boolean {
  const last = (Array.isArray(body.messages) ? body.messages : []).at(-1) as Json | undefined;
  return (
    Array.isArray(last?.content) && (last.content as Json[]).some((block) => block.type === 'tool_result')
  );
}

/**
 * Answers `POST /v1/messages` and `/v1/messages/count_tokens` as Anthropic's API does: a message
 * (text, or a `tool_use` of the first tool offered), plain or as its SSE events, with usage
 * (input, output, cache reads and writes) shaped by the key's behaviour.
 */
export async function answerMessages(
  res: ServerResponse,
  call: MockCall,
  behaviour: Behaviour,
): Promise<void> {
  const { path, model, key, body } = call;
  const usage = { ...DEFAULT_ANTHROPIC_USAGE, ...behaviour.anthropicUsage };
  const json = (status: number, value: unknown) =>
    res
      .writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_mock' })
      .end(JSON.stringify(value));
  if (path === '/v1/messages/count_tokens') {
    json(200, { input_tokens: usage.input_tokens });
    return;
  }
  if (typeof body.max_tokens !== 'number') {
    json(400, anthropicError(400, 'max_tokens: Field required'));
    return;
  }
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  const tool = tools.length > 0 && !answersToolCall(body) ? tools[0] : undefined;
  const text = `hello from ${key}`;
  const id = 'msg_mock';
  if (body.stream !== true) {
    json(200, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: tool
        ? [{ type: 'tool_use', id: 'toolu_mock', name: tool.name, input: MOCK_TOOL_INPUT }]
        : [{ type: 'text', text }],
      stop_reason: tool ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage,
    });
    return;
  }

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: Json) => res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  send({
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  send({ type: 'ping' });
  if (tool) {
    const input = JSON.stringify(MOCK_TOOL_INPUT);
    send({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_mock', name: tool.name, input: {} },
    });
    for (const part of [input.slice(0, 5), input.slice(5)]) {
      send({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: part },
      });
    }
  } else {
    send({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const count = behaviour.chunks ?? 3;
    for (let i = 0; i < count; i += 1) {
      if (behaviour.chunkDelayMs) {
        await new Promise((resolve) => setTimeout(resolve, behaviour.chunkDelayMs));
      }
      if (res.destroyed) {
        return;
      }
      if (behaviour.resetAfter !== undefined && i === behaviour.resetAfter) {
        res.socket?.resetAndDestroy();
        return;
      }
      send({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `tok${i} ` } });
    }
  }
  send({ type: 'content_block_stop', index: 0 });
  send({
    type: 'message_delta',
    delta: { stop_reason: tool ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  send({ type: 'message_stop' });
  res.end();
}
