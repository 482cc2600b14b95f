import { describe, expect, it } from 'vitest';
import { AnswerMeter } from '../answer-meter.js';

const sse = (events: unknown[]) =>
  Buffer.from(events.map((event) => `event: x\ndata: ${JSON.stringify(event)}\n\n`).join(''));

const START = {
  type: 'message_start',
  message: {
    id: 'msg_1',
    usage: {
      input_tokens: 20,
      output_tokens: 1,
      cache_read_input_tokens: 300,
      cache_creation_input_tokens: 40,
    },
  },
};
const TEXT = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello there' } };

describe('AnswerMeter on an Anthropic Messages stream', () => {
  it("takes the input counts from message_start and the output from message_delta's final count", () => {
    const meter = new AnswerMeter('sse', false);
    meter.push(sse([START, TEXT]));
    expect(meter.usage.reported).toBe(false);
    meter.push(
      sse([{ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 42 } }]),
    );
    meter.end();
    expect(meter.usage).toMatchObject({
      promptTokens: 360,
      cachedTokens: 300,
      cacheWriteTokens: 40,
      completionTokens: 42,
      reported: true,
    });
  });

  it('takes the input counts a newer message_delta repeats, the last value winning', () => {
    const meter = new AnswerMeter('sse', false);
    meter.push(sse([START, { type: 'message_delta', usage: { input_tokens: 25, output_tokens: 9 } }]));
    expect(meter.usage).toMatchObject({ promptTokens: 365, completionTokens: 9 });
  });

  it('leaves a stream cut before message_delta unreported, its text kept for the estimate', () => {
    const meter = new AnswerMeter('sse', false);
    meter.push(sse([START, TEXT]));
    expect(meter.usage.reported).toBe(false);
    expect(meter.seenText().text).toBe('Hello there');
  });

  it('reads a whole Messages answer: usage and text', () => {
    const meter = new AnswerMeter('json', false);
    meter.push(
      Buffer.from(
        JSON.stringify({
          content: [{ type: 'text', text: 'Hi' }],
          usage: {
            input_tokens: 3,
            output_tokens: 4,
            cache_read_input_tokens: 0,
            cache_creation_input_tokens: 0,
          },
        }),
      ),
    );
    meter.end();
    expect(meter.usage).toMatchObject({ promptTokens: 3, completionTokens: 4, reported: true });
    expect(meter.seenText().text).toBe('Hi');
  });
});
