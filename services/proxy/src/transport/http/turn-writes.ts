import type { ServerResponse } from 'node:http';

/**
 * A client's answer written once per turn of the event loop: the first write of a turn corks the
 * response and the turn's end uncorks it, so what one read from upstream brought (a stream's
 * headers, several of its events, its end) leaves in one system call, not one each. `beforeFlush`
 * runs just before each uncork (a stream's headers are flushed then, even with no event yet).
 */
export class TurnWrites {
  private corked = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly beforeFlush: () => void = () => undefined,
  ) {}

  /** Holds this turn's writes back until the turn ends (or `release`). */
  hold(): void {
    if (!this.corked) {
      this.corked = true;
      this.res.cork();
      setImmediate(() => this.release());
    }
  }

  /**
   * Sends what is held now. Called right after `res.end()` as well, so the answer's last bytes
   * and its end go together and the socket is never left corked once the response is done.
   */
  release(): void {
    if (this.corked) {
      this.corked = false;
      this.beforeFlush();
      this.res.uncork();
    }
  }
}
