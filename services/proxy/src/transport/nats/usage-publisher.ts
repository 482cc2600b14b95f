import { publishDurableJson, SUBJECTS, type NatsConnection } from '@gw/kit';
import type { PublishUsage } from '../../store/usage-outbox.js';

/**
 * `gw.usage.recorded` on JetStream, the event id as message id (a replay is a duplicate), the
 * call's request id in its header (a new one for an event replayed after a restart), and as its
 * body the JSON the outbox wrote to disk.
 */
export function jetStreamUsagePublisher(nc: NatsConnection): PublishUsage {
  return async (event, requestId, json) => {
    await publishDurableJson(nc, SUBJECTS.usageRecorded, json, event.eventId, requestId);
  };
}
