import { publishDurable, SUBJECTS, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import type { PublishUsage } from '../../store/usage-outbox.js';

/**
 * `gw.usage.recorded` on JetStream, the event id as message id (a replay is a duplicate), the
 * call's request id in its header (a new one for an event replayed after a restart).
 */
export function jetStreamUsagePublisher(nc: NatsConnection): PublishUsage {
  return async (event, requestId) => {
    await publishDurable(nc, SUBJECTS.usageRecorded, events.UsageRecorded, event, event.eventId, requestId);
  };
}
