import { describe, expect, it } from 'vitest';
import { estimateTokens, readUsage } from './usage.js';

describe('readUsage', () => {
  it('reads chat completion usage with its details', () => {
    const usage = readUsage({
      usage: {
        prompt_tokens: 100,
        completion_tokens: 40,
        prompt_tokens_details: { cached_tokens: 30, audio_tokens: 2 },
        completion_tokens_details: { reasoning_tokens: 12, audio_tokens: 3 },
      },
    });
    expect(usage).toMatchObject({
      promptTokens: 100,
      completionTokens: 40,
      cachedTokens: 30,
      reasoningTokens: 12,
      audioInTokens: 2,
      audioOutTokens: 3,
      reported: true,
      suspicious: false,
    });
  });

  it('reads responses-API usage, also inside a response.completed event', () => {
    expect(
      readUsage({
        usage: { input_tokens: 5, output_tokens: 6, output_tokens_details: { reasoning_tokens: 1 } },
      }),
    ).toMatchObject({ promptTokens: 5, completionTokens: 6, reasoningTokens: 1 });
    expect(
      readUsage({ type: 'response.completed', response: { usage: { input_tokens: 8, output_tokens: 9 } } }),
    ).toMatchObject({ promptTokens: 8, completionTokens: 9 });
  });

  it('reads Anthropic-style usage, whose input_tokens leaves out the cache reads and writes, as a prompt holding them', () => {
    // Charged as prompt − cached − cache-write at InputText: 100 uncached tokens, not 0.
    expect(
      readUsage({
        usage: {
          input_tokens: 100,
          cache_read_input_tokens: 1000,
          cache_creation_input_tokens: 200,
          output_tokens: 50,
        },
      }),
    ).toMatchObject({ promptTokens: 1300, cachedTokens: 1000, cacheWriteTokens: 200, completionTokens: 50 });
    // The same fields beside prompt_tokens (OpenAI-shaped): prompt_tokens already counts them.
    expect(
      readUsage({ usage: { prompt_tokens: 1300, cache_read_input_tokens: 1000, completion_tokens: 50 } }),
    ).toMatchObject({ promptTokens: 1300, cachedTokens: 1000 });
  });

  it('counts generated images', () => {
    expect(readUsage({ data: [{ url: 'a' }, { url: 'b' }] })).toMatchObject({
      imageCount: 2,
      reported: true,
    });
  });

  it('respects explicit zeros and reports nothing when usage is absent', () => {
    expect(readUsage({ usage: { prompt_tokens: 0, completion_tokens: 0 } })).toMatchObject({
      promptTokens: 0,
      completionTokens: 0,
      reported: true,
    });
    expect(readUsage({ choices: [] }).reported).toBe(false);
  });

  it('clamps hostile values to 0 and flags them', () => {
    const usage = readUsage({
      usage: { prompt_tokens: -5, completion_tokens: 'NaN', prompt_tokens_details: { cached_tokens: 1e15 } },
    });
    expect(usage).toMatchObject({ promptTokens: 0, completionTokens: 0, cachedTokens: 0, suspicious: true });
  });
});

describe('estimateTokens', () => {
  it('counts tokens with a BPE tokenizer', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('hello')).toBe(1);
    expect(estimateTokens('tok0 tok1 tok2 ')).toBeGreaterThanOrEqual(3);
  });
});
