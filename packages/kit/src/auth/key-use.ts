import type { Logger } from '../log.js';

export interface KeyUse {
  accountId: bigint;
  keyHash: string;
  usedAt: Date;
}

/**
 * Remembers the last use of each key seen by this replica and hands them over in one batch
 * every interval: the accounts database gets one write per batch, never one per request.
 * A failed flush keeps its uses for the next one (newer uses win).
 */
export class KeyUseRecorder {
  private pending = new Map<bigint, KeyUse>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: (uses: KeyUse[]) => Promise<void>,
    private readonly log: Logger,
    private readonly intervalMs: number,
  ) {}

  note(accountId: bigint, keyHash: string, usedAt = new Date()): void {
    this.pending.set(accountId, { accountId, keyHash, usedAt });
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) {
      return;
    }
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.send([...batch.values()]);
    } catch (error) {
      this.log.warn({ err: error, uses: batch.size }, 'key uses not recorded; retrying with the next batch');
      for (const [accountId, use] of batch) {
        if (!this.pending.has(accountId)) {
          this.pending.set(accountId, use);
        }
      }
    }
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
