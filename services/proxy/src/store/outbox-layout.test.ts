import { events } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import {
  ackLine,
  eventJson,
  eventLine,
  parseLine,
  recordBytes,
  segmentName,
  segmentSeq,
  segmentToCompact,
} from './outbox-layout.js';

const event = events.UsageRecorded.fromPartial({
  eventId: 'evt_1',
  accountId: 2n,
  ownerId: 1n,
  modelRequested: 'modèle',
  promptTokens: 10n,
  partial: true,
});

describe('outbox records', () => {
  it('reads back an event line as the same event', () => {
    expect(parseLine(eventLine(eventJson(event)).trimEnd())).toEqual({ kind: 'event', event });
  });

  it('reads back an acknowledgement line', () => {
    expect(parseLine(ackLine('evt_1').trimEnd())).toEqual({ kind: 'acked', eventId: 'evt_1' });
  });

  it('writes one line per record', () => {
    expect(eventLine(eventJson(event)).split('\n')).toHaveLength(2);
    expect(ackLine('evt_1').split('\n')).toHaveLength(2);
  });

  it.each([
    ['a torn event', eventLine(eventJson(event)).slice(0, 40)],
    ['a torn acknowledgement', ackLine('evt_1').slice(0, 12)],
    ['an event without an id', JSON.stringify({ accountId: '2' })],
    ['an empty acknowledgement', JSON.stringify({ acked: '' })],
    ['an acknowledgement that is not a string', JSON.stringify({ acked: 5 })],
    ['an array', '[1,2]'],
    ['a bare value', '"evt_1"'],
  ])('refuses %s', (_, line) => {
    expect(parseLine(line)).toBeUndefined();
  });

  it('counts a record in UTF-8 bytes, its acknowledgement included', () => {
    expect(recordBytes(event)).toBe(
      Buffer.byteLength(eventLine(eventJson(event))) + Buffer.byteLength(ackLine(event.eventId)),
    );
    expect(recordBytes(event)).toBeGreaterThan(
      eventLine(eventJson(event)).length + ackLine(event.eventId).length,
    );
  });
});

describe('segment names', () => {
  it('gives each sequence number a name that sorts in order and reads back', () => {
    const names = [9, 10, 123_456].map(segmentName);
    expect([...names].sort()).toEqual(names);
    expect(names.map(segmentSeq)).toEqual([9, 10, 123_456]);
  });

  it.each(['events.jsonl', 'acked.log', 'segment-1.jsonl', 'segment-000000000001.jsonl.tmp'])(
    'ignores %s',
    (name) => {
      expect(segmentSeq(name)).toBeUndefined();
    },
  );
});

describe('segmentToCompact', () => {
  const full = { bytes: 100, waitingBytes: 100 };
  const straggler = { bytes: 100, waitingBytes: 5 };

  it('leaves the segments alone while there are no more than the maximum', () => {
    expect(segmentToCompact([straggler, straggler], 2)).toBe(-1);
  });

  it('picks the oldest segment that is at most half waiting', () => {
    expect(segmentToCompact([full, straggler, straggler], 2)).toBe(1);
    expect(segmentToCompact([{ bytes: 100, waitingBytes: 50 }, straggler, full], 2)).toBe(0);
  });

  it('picks none while every segment is more than half waiting (an outage: copying would not shrink anything)', () => {
    expect(segmentToCompact([full, { bytes: 100, waitingBytes: 51 }, full], 2)).toBe(-1);
  });
});
