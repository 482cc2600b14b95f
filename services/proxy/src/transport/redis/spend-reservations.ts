import type { Redis } from 'ioredis';
import type { Reservation, SpendReservations } from '../../domain/ports.js';

/**
 * One hash per account (`<prefix>spend:<account>`): each field a hold, `<nano>|<until ms>|<f: in
 * flight, s: served>`. A reservation is one script, so replicas never admit past the balance
 * between them; holds past their time are dropped as the script reads them.
 */
const RESERVE = `
local now = tonumber(ARGV[1])
local held, inflight = 0, 0
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  local amount, untilMs, kind = string.match(entries[i + 1], '^(-?%d+)|(%d+)|(%a)$')
  if (not untilMs) or tonumber(untilMs) <= now then
    redis.call('HDEL', KEYS[1], entries[i])
  else
    held = held + tonumber(amount)
    if kind == 'f' then inflight = inflight + 1 end
  end
end
if inflight >= tonumber(ARGV[6]) then return 'in_flight' end
if tonumber(ARGV[4]) - held <= tonumber(ARGV[5]) then return 'balance' end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3] .. '|' .. ARGV[7] .. '|f')
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[7]) - now)
return 'ok'
`;

export class RedisSpendReservations implements SpendReservations {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('gwReserveSpend', { numberOfKeys: 1, lua: RESERVE });
  }

  async reserve(input: Parameters<SpendReservations['reserve']>[0]): Promise<Reservation> {
    const answer = (await (
      this.redis as unknown as { gwReserveSpend(...args: string[]): Promise<string> }
    ).gwReserveSpend(
      this.key(input.accountId),
      String(input.now),
      input.callId,
      String(input.estimateNano),
      String(input.balanceNano),
      String(input.floorNano),
      String(input.maxInFlight),
      String(input.inFlightUntil),
    )) as 'ok' | 'in_flight' | 'balance';
    return answer === 'ok' ? { ok: true } : { ok: false, reason: answer };
  }

  async hold(accountId: string, holdId: string, costNano: bigint, until: number): Promise<void> {
    await this.redis.hset(this.key(accountId), holdId, `${costNano}|${until}|s`);
  }

  async release(accountId: string, callId: string): Promise<void> {
    await this.redis.hdel(this.key(accountId), callId);
  }

  private key(accountId: string): string {
    return `${this.prefix}spend:${accountId}`;
  }
}
