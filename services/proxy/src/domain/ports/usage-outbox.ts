import type { events } from '@gw/proto';

/** The durable usage outbox: append before anything else happens, publish in the background. */
export interface UsageOutbox {
  /** Events written but not yet acknowledged by the stream. */
  readonly size: number;
  /** True when the backlog is over its bound: new AI calls are refused before upstream. */
  isFull(): boolean;
  /** The event is published with the request id of the call it records. */
  append(event: events.UsageRecorded, requestId: string): Promise<void>;
}
