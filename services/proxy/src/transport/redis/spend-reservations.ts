import type { Redis } from 'ioredis';
import type {
  Reservation,
  SpendReservation,
  SpendReservations,
} from '../../domain/ports/spend-reservations.js';
import type { ScriptPart } from './script-part.js';
import { HOLD, RELEASE } from './spend-scripts.js';

type ScriptedRedis = Redis & {
  gwHoldSpend(...args: string[]): Promise<number>;
  gwReleaseSpend(...args: string[]): Promise<number>;
};

/** A served exchange's hold waits at most this long for an admission to go with. */
const HOLD_WAIT_MS = 20;

/** A hold waiting to be sent, with the promise its caller holds. */
interface WaitingHold {
  keys: [string, string];
  /** `holdServed`'s arguments. */
  args: string[];
  sent: () => void;
  failed: (error: unknown) => void;
}

const NOTHING_WAITING: readonly WaitingHold[] = [];

/**
 * The holds in Redis. A served exchange's hold does not cost a command of its own: it waits on
 * this replica and goes in the next admission's script, ahead of its reservation, so this replica
 * admits exactly as if it had gone at once; with no admission to go with, it goes alone after
 * HOLD_WAIT_MS. Other replicas see the call's estimate held that much longer in its place.
 */
export class RedisSpendReservations implements SpendReservations {
  private readonly redis: ScriptedRedis;
  private waiting: WaitingHold[] = [];
  private waitTimer: NodeJS.Timeout | undefined;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('gwHoldSpend', { numberOfKeys: 2, lua: HOLD });
    redis.defineCommand('gwReleaseSpend', { numberOfKeys: 2, lua: RELEASE });
    this.redis = redis as ScriptedRedis;
  }

  /**
   * The waiting holds' part of a script (`holdServed` for each): adds their accounts' keys to
   * `keys`, and to `args` their number, then their arguments. Redis out: each hold's caller hears
   * of it, as when it goes alone.
   */
  holdsPart(keys: string[], args: Array<string | number>): ScriptPart<unknown, void> {
    const holds = this.takeWaiting();
    args.push(holds.length);
    for (const hold of holds) {
      keys.push(hold.keys[0], hold.keys[1]);
      args.push(...hold.args);
    }
    return {
      read: () => {
        for (const hold of holds) {
          hold.sent();
        }
      },
      failed: (error) => {
        for (const hold of holds) {
          hold.failed(error);
        }
      },
    };
  }

  /**
   * A reservation's part of a script (`reserve`): adds the account's two keys to `keys` and the
   * reservation's arguments to `args`. Redis out: the answer says so, and the caller decides (it
   * admits).
   */
  reservePart(
    input: SpendReservation,
    keys: string[],
    args: Array<string | number>,
  ): ScriptPart<'ok' | 'in_flight' | 'balance', Reservation> {
    keys.push(...this.keys(input.accountId));
    args.push(
      input.callId,
      String(input.estimateNano),
      String(input.balanceNano),
      String(input.floorNano),
      input.maxInFlight,
      input.inFlightUntil,
    );
    return {
      read: (answer) => (answer === 'ok' ? { ok: true } : { ok: false, reason: answer }),
      failed: (error) => ({ ok: 'unknown', error }),
    };
  }

  hold(input: Parameters<SpendReservations['hold']>[0]): Promise<void> {
    const keys = this.keys(input.accountId);
    const args = [
      String(input.now),
      input.holdId,
      String(input.costNano),
      String(input.until),
      input.releasing ?? '',
    ];
    return new Promise((sent, failed) => {
      this.waiting.push({ keys, args, sent, failed });
      this.waitTimer ??= setTimeout(() => void this.flush(), HOLD_WAIT_MS);
    });
  }

  /** Sends every waiting hold now, each alone (the timer, shutdown); resolves once all landed. */
  async flush(): Promise<void> {
    await Promise.all(
      this.takeWaiting().map((hold) =>
        this.redis.gwHoldSpend(...hold.keys, ...hold.args).then(
          () => hold.sent(),
          (error: unknown) => hold.failed(error),
        ),
      ),
    );
  }

  private takeWaiting(): readonly WaitingHold[] {
    // Most admissions find nothing waiting: no new list, no timer to clear.
    if (this.waiting.length === 0) {
      return NOTHING_WAITING;
    }
    clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    const holds = this.waiting;
    this.waiting = [];
    return holds;
  }

  async release(accountId: string, callId: string): Promise<void> {
    await this.redis.gwReleaseSpend(...this.keys(accountId), callId);
  }

  /** The account's holds and their lapse times, in one hash slot (a script touches both). */
  private keys(accountId: string): [string, string] {
    const holds = `${this.prefix}spend:{${accountId}}`;
    return [holds, `${holds}:until`];
  }
}
