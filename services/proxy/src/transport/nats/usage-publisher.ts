import { publishDurable, SUBJECTS, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import type { PublishUsage } from '../../store/usage-outbox.js';

/** `gw.usage.recorded` on JetStream, the event id as message id (a replay is a duplicate). */
export function jetStreamUsagePublisher(nc: NatsConnection): PublishUsage {
  return async (event) => {
    await publishDurable(nc, SUBJECTS.usageRecorded, events.UsageRecorded, event, event.eventId);
  };
}
