import { DEAD_LETTER_HEADERS, STREAMS, SUBJECTS, type NatsConnection } from '@gw/kit';

export interface DeadLetter {
  reason: string;
  detail: string;
  subject: string;
  /** The original message's data, as text. */
  data: string;
}

/** What a durable consumer set aside in GW_DEAD_LETTER, oldest first (none when the stream is absent). */
export async function deadLetters(nc: NatsConnection, consumer: string): Promise<DeadLetter[]> {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.streams.info(STREAMS.deadLetter.name).catch(() => undefined);
  const letters: DeadLetter[] = [];
  for (let seq = info?.state.first_seq ?? 1; info && seq <= info.state.last_seq; seq++) {
    const message = await jsm.streams.getMessage(STREAMS.deadLetter.name, { seq });
    if (message.subject === SUBJECTS.eventDeadLettered(consumer)) {
      letters.push({
        reason: message.header.get(DEAD_LETTER_HEADERS.reason),
        detail: message.header.get(DEAD_LETTER_HEADERS.detail),
        subject: message.header.get(DEAD_LETTER_HEADERS.subject),
        data: new TextDecoder().decode(message.data),
      });
    }
  }
  return letters;
}
