import { describe, expect, it } from 'vitest';
import { AnswerMeter } from './answer-meter.js';

const sse = (events: unknown[]) =>
  Buffer.from(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''));

const chunk = (content: string, usage?: unknown) => ({
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
  ...(usage === undefined ? {} : { usage }),
});

const USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
const usageOnly = { object: 'chat.completion.chunk', choices: [], usage: USAGE };

describe('AnswerMeter on a stream', () => {
  it('reads the usage of the last chunk when every other chunk says "usage": null', () => {
    const meter = new AnswerMeter('sse', false);
    meter.push(sse([chunk('Hel', null), chunk('lo', null), usageOnly]));
    meter.push(Buffer.from('data: [DONE]\n\n'));
    meter.end();
    expect(meter.usage).toMatchObject({ promptTokens: 11, completionTokens: 7, reported: true });
  });

  it('keeps the text of every chunk for an estimate when upstream reports no usage', () => {
    const meter = new AnswerMeter('sse', false);
    meter.push(sse([chunk('The quick', null), chunk(' brown'), chunk(' fox')]));
    meter.end();
    expect(meter.usage.reported).toBe(false);
    expect(meter.seenText()).toEqual({ text: 'The quick brown fox', overflowChars: 0 });
  });

  it('hides the usage-only chunk it was asked to and relays the text chunks byte for byte', () => {
    const meter = new AnswerMeter('sse', true);
    const text = sse([chunk('Hi')]);
    expect(meter.push(text)).toBe(text.toString('utf8'));
    expect(meter.push(sse([usageOnly]))).toBe('');
    expect(meter.usage.reported).toBe(true);
  });

  it('counts a text chunk that quotes "usage" inside its content as text, not as usage', () => {
    const meter = new AnswerMeter('sse', false);
    meter.push(sse([chunk('the "usage": {"prompt_tokens": 999} field')]));
    meter.end();
    expect(meter.usage.reported).toBe(false);
    expect(meter.seenText().text).toBe('the "usage": {"prompt_tokens": 999} field');
  });

  it('keeps the ids of a Responses stream and its usage, and the text of its deltas', () => {
    const meter = new AnswerMeter('sse', false);
    meter.push(
      sse([
        { type: 'response.created', response: { id: 'resp_1', usage: null } },
        { type: 'response.output_text.delta', delta: 'Hi there' },
      ]),
    );
    expect([...meter.createdIds]).toEqual(['resp_1']);
    expect(meter.seenText().text).toBe('Hi there');
    meter.push(
      sse([
        {
          type: 'response.completed',
          response: { id: 'resp_1', usage: { input_tokens: 4, output_tokens: 2 } },
        },
      ]),
    );
    expect(meter.usage).toMatchObject({ promptTokens: 4, completionTokens: 2, reported: true });
  });

  it('keeps counting a long stream past the text it keeps, as it did before holding events back', () => {
    const meter = new AnswerMeter('sse', false);
    const piece = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 20; i += 1) {
      meter.push(sse([chunk(piece)]));
    }
    meter.end();
    const seen = meter.seenText();
    expect(seen.text.length).toBe(1024 * 1024);
    expect(seen.text.length + seen.overflowChars).toBe(20 * piece.length);
  });
});
