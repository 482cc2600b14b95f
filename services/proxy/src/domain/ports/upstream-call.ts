import type { CallMeter, ServedBy } from '../call/call.js';
import type { FailureClass } from '../key-health.js';

/** What one attempt on one key came to. */
export type Attempt<Answer> =
  /** Upstream took the call: its answer is ready to relay. */
  | { kind: 'served'; answer: Answer }
  /** The key's or the upstream's fault: counted against the key, and the next one is tried. */
  | { kind: 'failed'; failure: FailureClass; retryAfterMs?: number; status?: number; error?: unknown }
  /** The client's own fault, already answered by the transport: nobody is blamed, nothing else tried. */
  | { kind: 'answered' }
  /** The client left before upstream answered: nobody is blamed, nothing else is tried. */
  | { kind: 'client_left' }
  /**
   * The transport or the endpoint cannot use this kind of key: the next one is tried, nothing is
   * counted. The reason is the refusal when no key can serve the call.
   */
  | { kind: 'skipped'; reason?: string };

/**
 * The port through which the pipeline calls upstream: one adapter per transport (HTTP, WebSocket),
 * each using the provider's target for the key it is given.
 */
export interface UpstreamCall<Answer> {
  /** Whether the client left (checked between attempts: nobody is left to serve). */
  clientGone(): boolean;
  attempt(served: ServedBy): Promise<Attempt<Answer>>;
  /** Relays a served answer to the client, metering it on the way. */
  serve(answer: Answer, served: ServedBy, meter: CallMeter): Promise<void>;
}
