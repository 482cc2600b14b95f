import type { ChainableCommander, Redis } from 'ioredis';
import type { AdmissionAnswer, AdmissionInput, AdmissionStore } from '../../domain/ports/admission-store.js';
import { POOL_STATE_LUA, type RedisKeyHealth } from './key-health.js';
import { INT_LUA } from './lua-int.js';
import { ADMIT_WINDOWS_LUA } from './rate-limit-scripts.js';
import type { RedisRateLimiter } from './rate-limiter.js';
import type { RedisSpendReservations } from './spend-reservations.js';
import { SPEND_LUA } from './spend-scripts.js';

/**
 * One call's admission as one script, made of the three modules' pieces. KEYS: the rate-limit
 * part's (the call's windows, then the changes waiting on this replica), the owner's four
 * pool-state hashes, two per served hold waiting on this replica (its account's), then, when the
 * call holds an estimate, the account's two spend keys. ARGV: now, the number of windows and of
 * changes, their arguments (`admitWindows`), the number of waiting holds and their arguments
 * (`holdServed`), then the reservation's (`reserve`). The holds land before the reservation, as
 * if each had gone at once. Answers { windows' answer, pool state[, reservation's answer] }.
 *
 * Its keys lie in several hash slots (an account's spend keys share `{<account>}`, the others do
 * not), as the rate-limit script's already do: fine on the one Redis the gateway runs on. Redis
 * Cluster is not supported; there, this script would have to be split by slot again.
 */
const ADMIT_CALL = `${INT_LUA}${ADMIT_WINDOWS_LUA}${POOL_STATE_LUA}${SPEND_LUA}
local now = tonumber(ARGV[1])
local windows, changes = tonumber(ARGV[2]), tonumber(ARGV[3])
local limits = admitWindows(now, windows, changes, 4)
local pool = poolState(windows + changes + 1)
local key, arg = windows + changes + 5, 4 + (windows + changes) * 4
local served = tonumber(ARGV[arg])
arg = arg + 1
for _ = 1, served do
  holdServed(key, arg, now)
  key, arg = key + 2, arg + 5
end
local reserved = key <= #KEYS and reserve(now, key, arg) or nil
flushTotals()
return { limits, pool, reserved }
`;

type AdmitReply = [number[], string[][], ('ok' | 'in_flight' | 'balance')?];
type AdmitArgs = Array<string | number>;

interface WaitingAdmission {
  keys: string[];
  args: AdmitArgs;
  resolve: (reply: AdmitReply) => void;
  reject: (error: unknown) => void;
}

/** The script's name on the connection: admissions are sent by `sendWaiting`, not auto-pipelined. */
const ADMIT_COMMAND = 'gwAdmitCall';

/**
 * Admission in Redis: one EVALSHA per call instead of one per part, so the client builds, sends
 * and parses one command and Redis runs one script. Each module keeps its own keys, arguments,
 * answer and fail-open rule (`ScriptPart`); this only puts them in one command.
 *
 * The admissions of one turn of the event loop leave together, as ioredis's auto-pipelining sent
 * them: several as one pipeline (one write and one read for all), but one alone as a plain
 * command. Auto-pipelining built a pipeline object even for one, which cost a call alone about a
 * sixth of its wait for Redis (bench/RESULTS.md, nineteenth round).
 */
export class RedisAdmission implements AdmissionStore {
  private readonly redis: Redis & {
    gwAdmitCall(...args: AdmitArgs): Promise<AdmitReply>;
  };
  private waiting: WaitingAdmission[] = [];

  constructor(
    redis: Redis,
    private readonly parts: {
      limiter: RedisRateLimiter;
      health: RedisKeyHealth;
      spend: RedisSpendReservations;
    },
  ) {
    redis.defineCommand(ADMIT_COMMAND, { lua: ADMIT_CALL });
    // ioredis reads this list on every command: from now on it sends this one as it comes.
    redis.options.autoPipeliningIgnoredCommands = [
      ...(redis.options.autoPipeliningIgnoredCommands ?? []),
      ADMIT_COMMAND,
    ];
    this.redis = redis as typeof this.redis;
  }

  async admit(input: AdmissionInput): Promise<AdmissionAnswer> {
    const keys: string[] = [];
    const args: Array<string | number> = [input.now];
    const limits = this.parts.limiter.admitPart(input.windows, input.now, keys, args);
    const state = this.parts.health.statePart(input.ownerId, keys);
    const holds = this.parts.spend.holdsPart(keys, args);
    const reservation = input.reservation && this.parts.spend.reservePart(input.reservation, keys, args);
    let reply: AdmitReply;
    try {
      reply = await this.send(keys, args);
    } catch (error) {
      void holds.failed(error);
      return {
        limits: await limits.failed(error),
        state: await state.failed(error),
        reservation: await reservation?.failed(error),
      };
    }
    const [windows, hashes, reserved] = reply;
    holds.read(undefined);
    return {
      limits: limits.read(windows),
      state: state.read(hashes),
      reservation: reservation && reserved ? reservation.read(reserved) : undefined,
    };
  }

  /** Waits for the end of this turn of the event loop, when the turn's admissions are sent. */
  private send(keys: string[], args: AdmitArgs): Promise<AdmitReply> {
    return new Promise((resolve, reject) => {
      if (this.waiting.push({ keys, args, resolve, reject }) === 1) {
        setImmediate(() => this.sendWaiting());
      }
    });
  }

  private sendWaiting(): void {
    const batch = this.waiting;
    this.waiting = [];
    const [only] = batch;
    if (batch.length === 1 && only) {
      this.redis.gwAdmitCall(only.keys.length, ...only.keys, ...only.args).then(only.resolve, only.reject);
      return;
    }
    const pipeline = this.redis.pipeline() as ChainableCommander & {
      gwAdmitCall(...args: AdmitArgs): ChainableCommander;
    };
    for (const { keys, args } of batch) {
      pipeline.gwAdmitCall(keys.length, ...keys, ...args);
    }
    pipeline.exec().then(
      (results) => {
        batch.forEach((admission, index) => {
          const [error, reply] = results?.[index] ?? [new Error('no answer in the pipeline'), undefined];
          if (error) {
            admission.reject(error);
          } else {
            admission.resolve(reply as AdmitReply);
          }
        });
      },
      (error: unknown) => {
        for (const admission of batch) {
          admission.reject(error);
        }
      },
    );
  }
}
