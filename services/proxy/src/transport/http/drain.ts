import type { Server, ServerResponse } from 'node:http';
import { AppError, ErrorCode } from '@gw/kit';

/**
 * A proxy that is stopping: it refuses new calls (the client gets the 503 and its Retry-After, or
 * another replica takes the retry) and asks the client to drop each kept-alive connection after its
 * current answer, so connections end and the process can exit once the calls in flight are done.
 */
export class Drain {
  private draining = false;

  get active(): boolean {
    return this.draining;
  }

  /** The refusal a new call gets while draining. */
  refusal(): AppError {
    return new AppError(ErrorCode.Unavailable, 'this proxy is stopping; try again', {
      retryAfterSeconds: 1,
    });
  }

  /** While draining, every answer closes its connection once written. */
  closeAfter(res: ServerResponse): void {
    if (this.draining && !res.headersSent) {
      res.setHeader('connection', 'close');
    }
  }

  /**
   * Stops accepting, waits for the calls in flight (at most `boundMs`), then closes whatever is
   * left; a call cut there is still metered by its relay.
   */
  async stop(server: Server, boundMs: number): Promise<void> {
    this.draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
    });
    await Promise.race([closed, bound]);
    clearTimeout(timer);
    server.closeAllConnections();
  }
}
