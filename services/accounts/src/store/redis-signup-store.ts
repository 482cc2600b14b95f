import { currentDeadline } from '@gw/kit';
import type { Redis } from 'ioredis';
import type {
  ClaimOutcome,
  Reservation,
  ReserveOutcome,
  SignupLimits,
  SignupStore,
} from '../domain/ports/signup.js';
import { signupUnavailable } from '../domain/signup-owner.js';

/**
 * Signup state in Redis, every step one Lua script (atomic, so concurrent requests cannot both
 * pass a limit or both consume one code). Decisions compare timestamps from the service's clock,
 * passed in; Redis TTLs only clean up. Layout under the prefix:
 *
 *   pending:<email>        hash  codeHash, tokenHash, createdAt (ms), wrong
 *   token:<tokenHash>      str   email of the pending signup
 *   last:<email>           str   when the address's last code was sent (ms)
 *   ip:<bucket>:<day>      int   codes sent to this client today (SAFE_ENABLE)
 *   day:<day>              int   codes sent today, all clients (SAFE_ENABLE)
 *   fails:<email>:<day>    int   wrong codes for this address today
 *
 * Any Redis failure is `unavailable`: signup fails closed.
 */
const PENDING_TTL_MS = 15 * 60_000;
const LAST_TTL_MS = 5 * 60_000;
const COUNTER_TTL_S = 2 * 24 * 60 * 60;

const RESERVE = `
local last = redis.call('GET', KEYS[1])
local now = tonumber(ARGV[1])
if last and now - tonumber(last) < tonumber(ARGV[2]) then return 'cooldown' end
if ARGV[3] == '1' then
  if tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[4]) then return 'ip_cap' end
  if tonumber(redis.call('GET', KEYS[3]) or '0') >= tonumber(ARGV[5]) then return 'daily_cap' end
  redis.call('INCR', KEYS[2]); redis.call('EXPIRE', KEYS[2], ARGV[10])
  redis.call('INCR', KEYS[3]); redis.call('EXPIRE', KEYS[3], ARGV[10])
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[11])
local old = redis.call('HGET', KEYS[4], 'tokenHash')
if old then redis.call('DEL', ARGV[9] .. old) end
redis.call('DEL', KEYS[4])
redis.call('HSET', KEYS[4], 'codeHash', ARGV[6], 'tokenHash', ARGV[7], 'createdAt', ARGV[1], 'wrong', '0', 'email', ARGV[8])
redis.call('PEXPIRE', KEYS[4], ARGV[12])
redis.call('SET', ARGV[9] .. ARGV[7], ARGV[8], 'PX', ARGV[12])
return 'reserved'
`;

const RELEASE = `
if ARGV[1] == '1' then
  if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
  if tonumber(redis.call('GET', KEYS[3]) or '0') > 0 then redis.call('DECR', KEYS[3]) end
end
if redis.call('GET', KEYS[1]) == ARGV[2] then redis.call('DEL', KEYS[1]) end
if redis.call('HGET', KEYS[4], 'tokenHash') == ARGV[3] then redis.call('DEL', KEYS[4]) end
redis.call('DEL', KEYS[5])
return 1
`;

/**
 * Undoes a reservation the caller was told failed (its command timed out), if it happened: sent
 * on the same connection right after it, so a frozen Redis that runs the reservation when it
 * wakes runs this next. Only this reservation's own writes are undone (matched by token hash).
 */
const UNDO_RESERVE = `
if redis.call('HGET', KEYS[4], 'tokenHash') ~= ARGV[3] then return 0 end
if ARGV[1] == '1' then
  if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
  if tonumber(redis.call('GET', KEYS[3]) or '0') > 0 then redis.call('DECR', KEYS[3]) end
end
if redis.call('GET', KEYS[1]) == ARGV[2] then redis.call('DEL', KEYS[1]) end
redis.call('DEL', KEYS[4])
redis.call('DEL', KEYS[5])
return 1
`;

/** Shared by both claims: expiry and death of the pending signup at KEYS[1]. */
const CHECK_PENDING = `
local function check(pending, now, lifetime, maxWrong)
  if redis.call('EXISTS', pending) == 0 then return 'invalid' end
  if now - tonumber(redis.call('HGET', pending, 'createdAt')) >= lifetime then return 'invalid' end
  if tonumber(redis.call('HGET', pending, 'wrong')) >= maxWrong then return 'dead' end
  return nil
end
local function consume(pending, tokenPrefix)
  local email = redis.call('HGET', pending, 'email')
  redis.call('DEL', tokenPrefix .. redis.call('HGET', pending, 'tokenHash'))
  redis.call('DEL', pending)
  return {'claimed', email}
end
`;

const CLAIM_CODE = `${CHECK_PENDING}
local now, lifetime, maxWrong = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[5]) then return {'blocked'} end
local refused = check(KEYS[1], now, lifetime, maxWrong)
if refused then return {refused} end
if redis.call('HGET', KEYS[1], 'codeHash') ~= ARGV[1] then
  local wrong = redis.call('HINCRBY', KEYS[1], 'wrong', 1)
  redis.call('INCR', KEYS[2]); redis.call('EXPIRE', KEYS[2], ARGV[7])
  if wrong >= maxWrong then return {'dead'} end
  return {'wrong'}
end
return consume(KEYS[1], ARGV[6])
`;

const CLAIM_TOKEN = `${CHECK_PENDING}
local email = redis.call('GET', KEYS[1])
if not email then return {'invalid'} end
local pending = ARGV[5] .. email
if redis.call('HGET', pending, 'tokenHash') ~= ARGV[1] then
  redis.call('DEL', KEYS[1])
  return {'invalid'}
end
local refused = check(pending, tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
if refused then return {refused} end
return consume(pending, ARGV[6])
`;

export class RedisSignupStore implements SignupStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(...parts: string[]): string {
    return `${this.prefix}${parts.join(':')}`;
  }

  private async run(script: string, keys: string[], args: Array<string | number>): Promise<unknown> {
    try {
      return await this.redis.eval(script, keys.length, ...keys, ...args.map(String));
    } catch (error) {
      throw signupUnavailable('signup state (Redis) is unreachable', error);
    }
  }

  private reservationKeys(r: Reservation): string[] {
    return [
      this.key('last', r.emailKey),
      this.key('ip', r.ipBucket, r.day),
      this.key('day', r.day),
      this.key('pending', r.emailKey),
    ];
  }

  async reserveCode(r: Reservation, limits: SignupLimits): Promise<ReserveOutcome> {
    const outcome = await this.run(RESERVE, this.reservationKeys(r), [
      r.nowMs,
      limits.cooldownMs,
      limits.safe ? '1' : '0',
      limits.ipDailyCap,
      limits.dailyCap,
      r.codeHash,
      r.tokenHash,
      r.emailKey,
      this.key('token', ''),
      COUNTER_TTL_S,
      LAST_TTL_MS,
      PENDING_TTL_MS,
    ]).catch((error: unknown) => {
      // The caller hears "unavailable": what reached Redis must not take effect later.
      this.undoReserve(r, limits);
      throw error;
    });
    const deadline = currentDeadline();
    if (outcome === 'reserved' && deadline !== undefined && Date.now() >= deadline) {
      // Redis answered after the caller stopped waiting (it was frozen, say): it was told the
      // signup failed, so nothing of it stays.
      this.undoReserve(r, limits);
      throw signupUnavailable('signup state (Redis) answered after the deadline');
    }
    return outcome as ReserveOutcome;
  }

  private undoReserve(r: Reservation, limits: SignupLimits): void {
    this.redis
      .eval(
        UNDO_RESERVE,
        5,
        ...this.reservationKeys(r),
        this.key('token', r.tokenHash),
        limits.safe ? '1' : '0',
        String(r.nowMs),
        r.tokenHash,
      )
      .catch(() => undefined);
  }

  async releaseCode(r: Reservation, limits: SignupLimits): Promise<void> {
    await this.run(
      RELEASE,
      [...this.reservationKeys(r), this.key('token', r.tokenHash)],
      [limits.safe ? '1' : '0', r.nowMs, r.tokenHash],
    );
  }

  async claimByCode(
    input: { emailKey: string; codeHash: string; nowMs: number; day: string },
    limits: SignupLimits,
  ): Promise<ClaimOutcome> {
    const answer = await this.run(
      CLAIM_CODE,
      [this.key('pending', input.emailKey), this.key('fails', input.emailKey, input.day)],
      [
        input.codeHash,
        input.nowMs,
        limits.lifetimeMs,
        limits.maxWrongCodes,
        limits.maxDailyFailures,
        this.key('token', ''),
        COUNTER_TTL_S,
      ],
    );
    return toClaim(answer);
  }

  async claimByToken(
    input: { tokenHash: string; nowMs: number },
    limits: SignupLimits,
  ): Promise<ClaimOutcome> {
    const answer = await this.run(
      CLAIM_TOKEN,
      [this.key('token', input.tokenHash)],
      [
        input.tokenHash,
        input.nowMs,
        limits.lifetimeMs,
        limits.maxWrongCodes,
        this.key('pending', ''),
        this.key('token', ''),
      ],
    );
    return toClaim(answer);
  }
}

function toClaim(answer: unknown): ClaimOutcome {
  const [kind, email] = answer as [string, string | undefined];
  switch (kind) {
    case 'claimed':
      return { kind, email: email ?? '' };
    case 'wrong':
    case 'dead':
    case 'blocked':
    case 'invalid':
      return { kind };
    default:
      throw new Error(`unexpected signup claim answer ${kind}`);
  }
}
