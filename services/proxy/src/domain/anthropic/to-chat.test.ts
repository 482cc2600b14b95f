import { describe, expect, it } from 'vitest';
import { finishReasonOf, toChatCompletion, toChatError } from './to-chat.js';

describe('toChatCompletion', () => {
  it('joins the text blocks and reports usage with the cache reads and writes in the prompt', () => {
    expect(
      toChatCompletion(
        {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'text', text: 'Hello ' },
            { type: 'text', text: 'there' },
          ],
          stop_reason: 'end_turn',
          usage: {
            input_tokens: 10,
            output_tokens: 5,
            cache_read_input_tokens: 100,
            cache_creation_input_tokens: 20,
          },
        },
        'claude-x',
        1700000000,
      ),
    ).toEqual({
      id: 'msg_1',
      object: 'chat.completion',
      created: 1700000000,
      model: 'claude-x',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello there', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 130,
        completion_tokens: 5,
        total_tokens: 135,
        prompt_tokens_details: { cached_tokens: 100 },
      },
    });
  });

  it('answers tool_use blocks as tool calls with JSON arguments', () => {
    const answer = toChatCompletion(
      {
        id: 'msg_2',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 1, output_tokens: 2 },
      },
      'c',
      0,
    );
    expect(answer.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ]);
  });
});

describe('finishReasonOf', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    [null, null],
  ])('maps %s to %s', (stop, finish) => {
    expect(finishReasonOf(stop)).toBe(finish);
  });
});

describe('toChatError', () => {
  it("reads Anthropic's error shape into the spec's, keeping its type as the code", () => {
    expect(
      toChatError(
        { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: too big' } },
        400,
      ),
    ).toEqual({
      error: { message: 'max_tokens: too big', type: 'invalid_request_error', code: 'invalid_request_error' },
    });
    expect(
      toChatError({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 529),
    ).toEqual({
      error: { message: 'Overloaded', type: 'api_error', code: 'overloaded_error' },
    });
    expect(toChatError('not json', 502).error.message).toBe('upstream answered 502');
  });
});
