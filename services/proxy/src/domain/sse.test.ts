import { describe, expect, it } from 'vitest';
import { chunkText, isUsageOnlyChunk, SseSplitter, Utf8Stream } from './sse.js';

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

  it('reads the data of every shape of event, one line or several, LF or CRLF', () => {
    const cases: Array<[string, string]> = [
      ['data: {"a":1}\n\n', '{"a":1}'],
      ['data:{"a":1}\n\n', '{"a":1}'],
      ['data: x\r\n\r\n', 'x'],
      ['data: x\n\r\n', 'x'],
      ['data:\n\n', ''],
      ['data:  two spaces\n\n', ' two spaces'],
      [': keep-alive\n\n', ''],
      ['event: ping\n\n', ''],
      ['event: x\r\ndata: a\r\ndata: b\r\n\r\n', 'a\nb'],
      ['id: 7\ndata: [DONE]\n\n', '[DONE]'],
    ];
    const splitter = new SseSplitter();
    expect(splitter.push(cases.map(([raw]) => raw).join(''))).toEqual(
      cases.map(([raw, data]) => ({ raw, data })),
    );
  });

  it('finds an event end split between two reads, CR and LF apart', () => {
    const splitter = new SseSplitter();
    expect(splitter.push('data: a\r\n\r')).toEqual([]);
    expect(splitter.push('\ndata: b\n')).toEqual([{ raw: 'data: a\r\n\r\n', data: 'a' }]);
    expect(splitter.push('\n')).toEqual([{ raw: 'data: b\n\n', data: 'b' }]);
    expect(splitter.pendingBytes).toBe(0);
  });
});

describe('Utf8Stream', () => {
  it('keeps a character whole across chunks and drops only a leading byte order mark', () => {
    const bytes = Buffer.from('\uFEFFdata: é€😀\uFEFF\n\n');
    const text = new Utf8Stream();
    // One byte at a time: every multi-byte character is cut.
    const read = [...bytes].map((byte) => text.write(Buffer.from([byte]))).join('') + text.end();
    expect(read).toBe('data: é€😀\uFEFF\n\n');
  });

  it('ends a stream cut inside a character with a replacement character', () => {
    const text = new Utf8Stream();
    expect(text.write(Buffer.from('ok ')) + text.write(Buffer.from([0xe2, 0x82])) + text.end()).toBe(
      'ok \uFFFD',
    );
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
