import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger, RequestDetails } from '@gw/kit';

/** One HTTP request as a handler gets it: made per request by the server, never shared. */
export interface HttpExchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** Passed explicitly, never held in a request context (`runWithContext` is not used here). */
  requestId: string;
  /** Carries the request id. */
  log: Logger;
  /** What the request's access line says; handlers fill in what they learn. */
  details: RequestDetails;
}

/** One WebSocket upgrade as a handler gets it. */
export interface UpgradeExchange {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  requestId: string;
  log: Logger;
  details: RequestDetails;
}
