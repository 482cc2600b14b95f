import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureStream, publishDurable, publishEvent, STREAMS, SUBJECTS, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import { startNatsServer, waitFor, type NatsServer, type RunningProcess } from '@gw/testkit';
import { connect } from 'nats';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runGw, startGw } from './gw.js';

function lines(gw: RunningProcess): string[] {
  return gw.output().split('\n');
}

async function tail(args: string[], env: Record<string, string>): Promise<RunningProcess> {
  const gw = startGw(['events', 'tail', ...args], env);
  await waitFor(
    () => Promise.resolve(gw.output().includes('tailing ')),
    'gw events tail to subscribe',
    30_000,
  );
  return gw;
}

describe('gw events tail', () => {
  let dir: string;
  let nats: NatsServer;
  let nc: NatsConnection;
  let running: RunningProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-tail-'));
    nats = await startNatsServer(join(dir, 'nats'));
    nc = await connect({ servers: nats.url });
    await ensureStream(nc, STREAMS.usage);
    await ensureStream(nc, STREAMS.audit);
  });

  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  afterAll(async () => {
    await nc.drain();
    await nats.process.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints core and JetStream events as they happen, one readable line each', async () => {
    running = await tail([], { NATS_URL: nats.url });
    publishEvent(nc, SUBJECTS.accountChanged(42), events.AccountChanged, {
      accountId: 42n,
      reason: 'rotated',
      keyHash: 'ab12cd',
      at: '2026-01-01T00:00:00.000Z',
    });
    await publishDurable(
      nc,
      SUBJECTS.usageRecorded,
      events.UsageRecorded,
      events.UsageRecorded.fromPartial({
        eventId: 'evt_live',
        accountId: 9n,
        ownerId: 3n,
        modelServed: 'gpt-4o',
      }),
      'evt_live',
    );
    const gw = running;
    await waitFor(() => Promise.resolve(gw.output().includes('evt_live')), 'the usage line');
    expect(lines(gw)).toContain(
      '2026-01-01T00:00:00.000Z gw.account.changed.42 AccountChanged accountId=42 reason=rotated keyHash=ab12cd',
    );
    expect(lines(gw).filter((line) => line.includes('evt_live'))).toHaveLength(1);
    expect(gw.output()).toMatch(
      /gw\.usage\.recorded UsageRecorded eventId=evt_live accountId=9 ownerId=3 modelServed=gpt-4o/,
    );
  });

  it('replays the streams from --since, then follows, as JSON, keeping only the account asked for', async () => {
    const audit = (eventId: string, targetId: bigint) =>
      publishDurable(
        nc,
        SUBJECTS.audit('add_user'),
        events.AuditRecorded,
        events.AuditRecorded.fromPartial({ action: 'add_user', operatorId: 1n, targetId, eventId }),
        eventId,
      );
    await audit('evt_before_7', 7n);
    await audit('evt_before_8', 8n);
    running = await tail(['--since', '1h', '--json', '--account', '7'], { NATS_URL: nats.url });
    await audit('evt_after_7', 7n);
    // Core messages of one connection arrive in order: the one for 8 is handled before the one for 7.
    publishEvent(nc, SUBJECTS.accountChanged(8), events.AccountChanged, {
      accountId: 8n,
      reason: 'updated',
      keyHash: '',
      at: '',
    });
    publishEvent(nc, SUBJECTS.accountChanged(7), events.AccountChanged, {
      accountId: 7n,
      reason: 'updated',
      keyHash: '',
      at: '',
    });
    const gw = running;
    const printed = () =>
      lines(gw)
        .filter((line) => line.startsWith('{'))
        .map(
          (line) =>
            JSON.parse(line) as {
              subject: string;
              type: string;
              event: Record<string, string>;
              stream?: { name: string };
            },
        );
    await waitFor(() => Promise.resolve(printed().length >= 3), 'three matching events');
    const shown = printed();
    expect(shown.map((entry) => entry.event.eventId ?? entry.subject).sort()).toEqual(
      ['evt_after_7', 'evt_before_7', 'gw.account.changed.7'].sort(),
    );
    const replayed = shown.find((entry) => entry.event.eventId === 'evt_before_7');
    expect(replayed).toMatchObject({ type: 'AuditRecorded', stream: { name: STREAMS.audit.name } });
    // Stream subjects come from the replay only, never twice.
    expect(shown.filter((entry) => entry.event.eventId === 'evt_after_7')).toHaveLength(1);
  });

  it('refuses a --since it cannot read', async () => {
    const { code, output } = await runGw(['events', 'tail', '--since', 'yesterday'], { NATS_URL: nats.url });
    expect(code).toBe(2);
    expect(output).toContain('--since takes an ISO 8601 time');
  });
});
