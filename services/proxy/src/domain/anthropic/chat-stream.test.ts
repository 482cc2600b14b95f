import { describe, expect, it } from 'vitest';
import { chatAnswerTranslator } from './chat-answer.js';
import { MessagesToChatStream } from './chat-stream.js';

/** The chunks (parsed) and the [DONE] marker of translated SSE text. */
function chunks(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((event) => event.replace(/^data: /, ''))
    .map((data) => (data === '[DONE]' ? data : JSON.parse(data)));
}

const EVENTS = [
  {
    type: 'message_start',
    message: { id: 'msg_9', usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 4 } },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'ping' },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me check.' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Oslo"}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 30 } },
  { type: 'message_stop' },
];

describe('MessagesToChatStream', () => {
  it('turns text and tool_use deltas into chunks, the stop reason into finish_reason, and ends with usage and [DONE]', () => {
    const stream = new MessagesToChatStream({ model: 'claude-x', created: 5, includeUsage: true });
    const out = chunks(EVENTS.map((event) => stream.push(event)).join('') + stream.end());
    const base = { id: 'msg_9', object: 'chat.completion.chunk', created: 5, model: 'claude-x' };
    const choice = (delta: unknown, finish: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      usage: null,
    });
    expect(out).toEqual([
      choice({ role: 'assistant', content: '' }),
      choice({ content: 'Let me check.' }),
      choice({
        tool_calls: [
          { index: 0, id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '' } },
        ],
      }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
      choice({}, 'tool_calls'),
      {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: 16,
          completion_tokens: 30,
          total_tokens: 46,
          prompt_tokens_details: { cached_tokens: 4 },
        },
      },
      '[DONE]',
    ]);
  });

  it('sends no usage at all unless include_usage was asked for', () => {
    const stream = new MessagesToChatStream({ model: 'm', created: 0, includeUsage: false });
    const out = chunks(EVENTS.map((event) => stream.push(event)).join(''));
    expect(out.at(-1)).toBe('[DONE]');
    expect(out.some((chunk) => typeof chunk === 'object' && chunk !== null && 'usage' in chunk)).toBe(false);
  });

  it("turns a stream's error event into an error chunk in the spec's shape", () => {
    const stream = new MessagesToChatStream({ model: 'm', created: 0, includeUsage: false });
    expect(
      chunks(stream.push({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })),
    ).toEqual([{ error: { message: 'Overloaded', type: 'api_error', code: 'overloaded_error' } }]);
  });
});

describe('chatAnswerTranslator', () => {
  it('translates SSE bytes split anywhere, event by event', () => {
    const text = EVENTS.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
    const translator = chatAnswerTranslator('sse', { model: 'm', created: 0, includeUsage: false });
    const bytes = Buffer.from(text);
    let out = '';
    for (let i = 0; i < bytes.length; i += 7) {
      out += translator.push(bytes.subarray(i, i + 7));
    }
    out += translator.end();
    expect(chunks(out)).toHaveLength(7);
    expect(out.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('translates a JSON answer whole at its end', () => {
    const translator = chatAnswerTranslator('json', { model: 'm', created: 0, includeUsage: false });
    const body = JSON.stringify({
      id: 'msg_1',
      content: [{ type: 'text', text: 'hi' }],
      stop_reason: 'max_tokens',
      usage: {},
    });
    expect(translator.push(Buffer.from(body.slice(0, 10)))).toBe('');
    expect(translator.push(Buffer.from(body.slice(10)))).toBe('');
    expect(JSON.parse(translator.end())).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { content: 'hi' }, finish_reason: 'length' }],
    });
  });
});
