import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { pipeWithPrefix } from './processes.js';

/** A sink that keeps what it was given, and how many writes it took. */
function sink(): { out: Writable; text: () => string; writes: () => number } {
  const chunks: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { out, text: () => chunks.join(''), writes: () => chunks.length };
}

async function ended(stream: PassThrough): Promise<void> {
  await new Promise<void>((resolve) => stream.on('end', resolve));
}

describe('pipeWithPrefix', () => {
  it('prefixes every line, across chunk boundaries, with one write per chunk', async () => {
    const input = new PassThrough();
    const { out, text, writes } = sink();
    const lines: string[] = [];
    pipeWithPrefix(input, '[svc] ', out, (line) => lines.push(line));
    input.write('one\ntwo\nthr');
    input.write('ee\nfour\n');
    input.end('five');
    await ended(input);
    expect(text()).toBe('[svc] one\n[svc] two\n[svc] three\n[svc] four\n[svc] five\n');
    expect(lines).toEqual(['one', 'two', 'three', 'four', 'five']);
    // Three chunks in, three writes out, plus the newline the unfinished last line gets.
    expect(writes()).toBe(4);
  });

  it('keeps a character whose bytes two chunks split, in its line and under one prefix', async () => {
    const input = new PassThrough();
    const { out, text } = sink();
    const lines: string[] = [];
    pipeWithPrefix(input, '> ', out, (line) => lines.push(line));
    const bytes = Buffer.from('{"msg":"café"}\n{"msg":"naïve"}\n');
    const split = bytes.indexOf(Buffer.from('é')) + 1;
    input.write(bytes.subarray(0, split));
    input.end(bytes.subarray(split));
    await ended(input);
    expect(text()).toBe('> {"msg":"café"}\n> {"msg":"naïve"}\n');
    expect(lines).toEqual(['{"msg":"café"}', '{"msg":"naïve"}']);
  });

  it('keeps empty lines', async () => {
    const input = new PassThrough();
    const { out, text } = sink();
    pipeWithPrefix(input, '> ', out);
    input.end('a\n\nb\n');
    await ended(input);
    expect(text()).toBe('> a\n> \n> b\n');
  });
});
