import { randomBytes } from 'node:crypto';
import { connect, DiscardPolicy, type NatsConnection, type Subscription } from 'nats';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REQUEST_ID_HEADER, runWithContext } from '../src/log.js';
import { publishDurable, type EventCodec } from '../src/nats.js';

// The machine's nats-server (JetStream on), under streams and subjects no other run uses.
const NATS_URL = 'nats://127.0.0.1:4222';
const run = randomBytes(6).toString('hex');
const STREAM = `GW_TEST_${run}`;
const FULL_STREAM = `GW_TEST_FULL_${run}`;
const subject = (name: string) => `gw_test_${run}.${name}`;
const fullSubject = `gw_test_full_${run}.event`;

interface Note {
  text: string;
}
const notes: EventCodec<Note> = { toJSON: (note) => note, fromJSON: (object) => object as Note };

/** A core subscriber that receives publishes to `name` and never answers them. */
async function silentSubscriber(nc: NatsConnection, name: string): Promise<Subscription> {
  const subscription = nc.subscribe(subject(name));
  await nc.flush();
  return subscription;
}

describe('publishDurable', () => {
  let nc: NatsConnection;

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: STREAM, subjects: [`gw_test_${run}.stored.>`] });
    await jsm.streams.add({
      name: FULL_STREAM,
      subjects: [fullSubject],
      max_msgs: 1,
      discard: DiscardPolicy.New,
    });
  });

  afterAll(async () => {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(STREAM);
    await jsm.streams.delete(FULL_STREAM);
    await nc.drain();
  });

  it("resolves with the stream's ack, and the stored message carries the message id and request id", async () => {
    const ack = await runWithContext({ requestId: 'req_durable_ack' }, () =>
      publishDurable(nc, subject('stored.ack'), notes, { text: 'hello' }, `evt_ack_${run}`),
    );
    expect(ack).toMatchObject({ stream: STREAM, duplicate: false });
    expect(ack.seq).toBeGreaterThan(0);

    const stored = await (await nc.jetstreamManager()).streams.getMessage(STREAM, { seq: ack.seq });
    expect(stored.subject).toBe(subject('stored.ack'));
    expect(stored.json()).toEqual({ text: 'hello' });
    expect(stored.header.get('Nats-Msg-Id')).toBe(`evt_ack_${run}`);
    expect(stored.header.get(REQUEST_ID_HEADER)).toBe('req_durable_ack');
  });

  it('answers a second publish with the same message id as a duplicate, and the stream keeps one', async () => {
    const msgId = `evt_twice_${run}`;
    const first = await publishDurable(nc, subject('stored.twice'), notes, { text: 'once' }, msgId);
    const second = await publishDurable(nc, subject('stored.twice'), notes, { text: 'once' }, msgId);
    expect(first.duplicate).toBe(false);
    expect(second).toMatchObject({ stream: STREAM, seq: first.seq, duplicate: true });

    const info = await (
      await nc.jetstreamManager()
    ).streams.info(STREAM, { subjects_filter: subject('stored.twice') });
    expect(info.state.subjects).toEqual({ [subject('stored.twice')]: 1 });
  });

  it('gives concurrent publishes distinct sequence numbers, all stored', async () => {
    const count = 200;
    const acks = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        publishDurable(nc, subject('stored.many'), notes, { text: `n${index}` }, `evt_many_${run}_${index}`),
      ),
    );
    expect(new Set(acks.map((ack) => ack.seq)).size).toBe(count);
    expect(acks.every((ack) => ack.stream === STREAM && !ack.duplicate)).toBe(true);

    const info = await (
      await nc.jetstreamManager()
    ).streams.info(STREAM, { subjects_filter: subject('stored.many') });
    expect(info.state.subjects).toEqual({ [subject('stored.many')]: count });
  });

  it('rejects a publish to a subject no stream takes', async () => {
    await expect(
      publishDurable(nc, subject('nowhere'), notes, { text: 'lost' }, `evt_nowhere_${run}`),
    ).rejects.toThrow(/no stream takes this subject \(no responders\)/);
  });

  it('rejects a publish the stream refuses, with its reason', async () => {
    await publishDurable(nc, fullSubject, notes, { text: 'fits' }, `evt_fits_${run}`);
    await expect(publishDurable(nc, fullSubject, notes, { text: 'over' }, `evt_over_${run}`)).rejects.toThrow(
      /JetStream refused the publish to .*: maximum messages exceeded/,
    );
  });

  it('rejects a publish nothing acknowledges once the ack timeout passes', async () => {
    const silent = await silentSubscriber(nc, 'silent.timeout');
    await expect(
      publishDurable(nc, subject('silent.timeout'), notes, { text: 'unheard' }, `evt_timeout_${run}`),
    ).rejects.toThrow(/did not acknowledge the publish to .* within 5000 ms/);
    expect(silent.getReceived()).toBe(1);
    silent.unsubscribe();
  });

  it('rejects the publishes still waiting when their connection closes, and any later one', async () => {
    const closing = await connect({ servers: NATS_URL });
    const silent = await silentSubscriber(nc, 'silent.close');
    const waiting = [1, 2, 3].map((index) =>
      publishDurable(
        closing,
        subject('silent.close'),
        notes,
        { text: `w${index}` },
        `evt_close_${run}_${index}`,
      ),
    );
    const settled = Promise.allSettled(waiting);
    await vi.waitFor(() => expect(silent.getReceived()).toBe(3), { timeout: 5_000, interval: 10 });

    await closing.close();
    const results = await settled;
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect(String((result as PromiseRejectedResult).reason)).toMatch(
        /connection closed before JetStream acknowledged/,
      );
    }
    await expect(
      publishDurable(closing, subject('stored.late'), notes, { text: 'late' }, `evt_late_${run}`),
    ).rejects.toThrow(/connection is closed/);
    silent.unsubscribe();
  });
});
