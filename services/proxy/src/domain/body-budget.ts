import { AppError, ErrorCode } from '@gw/kit';

/** What one request holds of the budget: taken as its body arrives, released once, when it ends. */
export interface BodyHold {
  /** Holds `bytes` more, or throws 429 (nothing more held) when a bound would be passed. */
  take(bytes: number): void;
  release(): void;
}

/**
 * The request bodies a proxy holds in memory at once, bounded per process and per account, so
 * parallel uploads can never take the process down (docs/decisions.md §5, the proxy README). A
 * request over either bound is refused with 429 and Retry-After before more of it is read.
 */
export class BodyBudget {
  private held = 0;
  private readonly byAccount = new Map<string, number>();

  constructor(private readonly bounds: { processBytes: number; accountBytes: number }) {}

  /** Bytes held now, all accounts together (a gauge reads it). */
  inUse(): number {
    return this.held;
  }

  hold(accountId: string): BodyHold {
    let mine = 0;
    return {
      take: (bytes) => {
        const account = this.byAccount.get(accountId) ?? 0;
        if (account + bytes > this.bounds.accountBytes) {
          throw new AppError(
            ErrorCode.RateLimited,
            `this account is sending more request bytes at once than the proxy holds for one account (${this.bounds.accountBytes}); retry when its uploads are done`,
            { retryAfterSeconds: 1 },
          );
        }
        if (this.held + bytes > this.bounds.processBytes) {
          throw new AppError(
            ErrorCode.RateLimited,
            'the proxy is holding as many request bytes as it may; retry shortly',
            { retryAfterSeconds: 1 },
          );
        }
        mine += bytes;
        this.held += bytes;
        this.byAccount.set(accountId, account + bytes);
      },
      release: () => {
        if (mine === 0) {
          return;
        }
        this.held -= mine;
        const left = (this.byAccount.get(accountId) ?? 0) - mine;
        if (left > 0) {
          this.byAccount.set(accountId, left);
        } else {
          this.byAccount.delete(accountId);
        }
        mine = 0;
      },
    };
  }
}
