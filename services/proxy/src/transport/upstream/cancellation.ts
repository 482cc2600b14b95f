/**
 * Stops an upstream attempt before its answer's headers (the client left and the usage grace
 * ran out). One per attempt, so it is kept small: an AbortController with its AbortSignal (an
 * EventTarget) and a listener added and removed cost about 1.5 % of the proxy's CPU per call.
 */
export class Cancellation {
  private listener: (() => void) | undefined;
  private done = false;

  get cancelled(): boolean {
    return this.done;
  }

  cancel(): void {
    if (!this.done) {
      this.done = true;
      this.listener?.();
    }
  }

  /** Calls `onCancel` when cancelled (one listener at a time); the answer stops listening. */
  listen(onCancel: () => void): () => void {
    this.listener = onCancel;
    return () => {
      if (this.listener === onCancel) {
        this.listener = undefined;
      }
    };
  }
}
