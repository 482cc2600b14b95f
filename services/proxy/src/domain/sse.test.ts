import { describe, expect, it } from 'vitest';
import { chunkText, isUsageOnlyChunk, SseSplitter } from './sse.js';

describe('SseSplitter', () => {
  it('returns whole events however the bytes were cut', () => {
    const splitter = new SseSplitter();
    expect(splitter.push('data: {"a"')).toEqual([]);
    expect(splitter.push(':1}\n\ndata: [DO')).toEqual([{ raw: 'data: {"a":1}\n\n', data: '{"a":1}' }]);
    expect(splitter.push('NE]\r\n\r\n')).toEqual([{ raw: 'data: [DONE]\r\n\r\n', data: '[DONE]' }]);
    expect(splitter.flush()).toBeUndefined();
  });

  it('joins multi-line data and hands back an unterminated tail on flush', () => {
    const splitter = new SseSplitter();
    expect(splitter.push('event: x\ndata: a\ndata: b\n\ndata: tail')).toEqual([
      { raw: 'event: x\ndata: a\ndata: b\n\n', data: 'a\nb' },
    ]);
    expect(splitter.flush()).toEqual({ raw: 'data: tail', data: 'tail' });
  });
});

describe('chunk helpers', () => {
  it('recognises the usage-only chunk include_usage adds', () => {
    expect(isUsageOnlyChunk({ choices: [], usage: { prompt_tokens: 1 } })).toBe(true);
    expect(isUsageOnlyChunk({ choices: [{ delta: {} }], usage: null })).toBe(false);
    expect(isUsageOnlyChunk(undefined)).toBe(false);
  });

  it('reads the text of chat and completion chunks', () => {
    expect(chunkText({ choices: [{ delta: { content: 'he' } }, { delta: { content: 'y' } }] })).toBe('hey');
    expect(chunkText({ choices: [{ text: 'old' }] })).toBe('old');
    expect(chunkText({})).toBe('');
  });
});
