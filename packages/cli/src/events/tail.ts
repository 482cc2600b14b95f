import { connectNats, STREAMS, type Logger, type NatsConnection } from '@gw/kit';
import { DeliverPolicy, type JsMsg, type Msg } from 'nats';
import { streamOf, subjectMatches } from './catalog.js';
import {
  decodeEvent,
  formatJson,
  formatLine,
  matchesFilter,
  type EventFilter,
  type TailedEvent,
} from './format.js';

export interface TailOptions {
  natsUrl: string;
  /** Where natsUrl came from (NATS_URL, GW_PORT_BASE, the recorded settings), said at the start. */
  natsSource: string;
  /** Subject pattern to show (default `gw.>`). */
  subject: string;
  filter: EventFilter;
  /** Replay the JetStream streams from this time before following them live. */
  since?: Date;
  json: boolean;
  /** Where each line goes (stdout). */
  write(line: string): void;
  log: Logger;
}

/**
 * `gw events tail`: every event on the gateway's subjects, decoded from events.proto, one line
 * each, until the signal aborts. Core NATS carries everything live (JetStream-stored subjects are
 * published on their subjects too). With `since`, the JetStream streams are read instead from
 * that time through ordered consumers, which then follow them live, and their subjects are left
 * out of the core subscription so nothing is shown twice.
 */
export async function tailEvents(options: TailOptions, signal: AbortSignal): Promise<void> {
  const nc = await connectNats(options.natsUrl, 'gw-events-tail', options.log);
  const show = (tailed: TailedEvent) => {
    if (matchesFilter(tailed, options.filter)) {
      options.write(options.json ? formatJson(tailed) : formatLine(tailed, new Date()));
    }
  };
  const done = new Promise<void>((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );

  const live = nc.subscribe(options.subject);
  void (async () => {
    for await (const msg of live as AsyncIterable<Msg>) {
      if (options.since === undefined || streamOf(msg.subject) === undefined) {
        show(decodeEvent(msg.subject, msg.data));
      }
    }
  })();

  const replays = options.since ? await replayStreams(nc, options, options.since, show) : [];
  await nc.flush();
  process.stderr.write(
    `tailing ${options.subject} on ${options.natsUrl} (${options.natsSource})${options.since ? ` since ${options.since.toISOString()}` : ''}\n`,
  );
  await done;
  for (const replay of replays) {
    replay.stop();
  }
  await nc.drain();
}

/** An ordered consumer per stream that can hold the subject, from `since` on, then live. */
async function replayStreams(
  nc: NatsConnection,
  options: TailOptions,
  since: Date,
  show: (tailed: TailedEvent) => void,
): Promise<Array<{ stop(): void }>> {
  const jsm = await nc.jetstreamManager();
  const replays: Array<{ stop(): void }> = [];
  for (const stream of Object.values(STREAMS)) {
    try {
      await jsm.streams.info(stream.name);
    } catch {
      process.stderr.write(`stream ${stream.name} does not exist yet: nothing to replay from it\n`);
      continue;
    }
    const consumer = await nc.jetstream().consumers.get(stream.name, {
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: since.toISOString(),
    });
    const messages = await consumer.consume();
    void (async () => {
      for await (const msg of messages as AsyncIterable<JsMsg>) {
        if (subjectMatches(options.subject, msg.subject)) {
          show({ ...decodeEvent(msg.subject, msg.data), stream: { name: stream.name, sequence: msg.seq } });
        }
      }
    })();
    replays.push({ stop: () => void messages.close() });
  }
  return replays;
}
