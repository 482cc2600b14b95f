import { INT_LUA } from './lua-int.js';

/**
 * How long a lapsed hold may go on counting before a script drops it. Dropped as soon as they
 * lapsed, the holds of a busy account went a few at a time every few admissions; dropped once the
 * oldest lapsed one is this old, they go a tenth of a second's worth at once, and the admission
 * script cost Redis about a tenth less under load (bench/RESULTS.md, fourteenth round). It only
 * ever holds more of a balance, never less, for a hundredth of the 10 s a served hold lasts by
 * default.
 */
export const SWEEP_AFTER_MS = 100;

/**
 * Two keys per account, in one hash slot: a hash `<prefix>spend:{<account>}` of holds (field: the
 * hold's id, value `<nano>|<f: in flight, s: served>`) beside the running totals `#held` and
 * `#inflight`, and a sorted set `<prefix>spend:{<account>}:until` of the same ids by the time
 * each lapses. A call reads the totals instead of every hold, and each hold is dropped once
 * (released, or lapsed as a later script finds it), so the work per call stays constant however
 * many holds a busy account has. Totals are changed with HINCRBY on the stored decimal text (small
 * amounts summed in Lua first, while the sum is exact), so amounts stay exact.
 */
const HOLDS = `
-- The account's two keys: each script names them before it changes anything.
local holds, lapse

-- Each account's keys' time to live as this script last read or set it (\`keepFor\`), forgotten
-- whenever a hold leaves the hash: a hash left empty is deleted, expiry and all.
local ttlLeft = {}

-- Redis reads no '-0' as an integer: a free call's hold is taken back as '0'.
local function negated(amount)
  if amount == '0' then return amount end
  if string.sub(amount, 1, 1) == '-' then return string.sub(amount, 2) end
  return '-' .. amount
end

-- Changes to each account's totals gather here and reach Redis once, when the script ends
-- (flushTotals), so a sweep of many lapsed holds changes '#held' once, and a served hold and a
-- reservation of one account in one admission change each total once: the reservation's HSET of
-- '#inflight' takes the count gathered before it. Only amounts of at most 15 characters gather in
-- '#held', and only while the sum stays below 8e15: Lua numbers are doubles, exact up to 2^53
-- (about 9e15). Larger amounts go to Redis as they are, in decimal text.
local pending, pendingOrder = {}, {}
local function pendingOf()
  local totals = pending[holds]
  if not totals then
    totals = { held = 0, inflight = 0 }
    pending[holds] = totals
    pendingOrder[#pendingOrder + 1] = holds
  end
  return totals
end
local function held(amount)
  local totals = pendingOf()
  if #amount <= 15 and math.abs(totals.held) < 8e15 then
    totals.held = totals.held + tonumber(amount)
  else
    redis.call('HINCRBY', holds, '#held', amount)
  end
end
local function inFlight(change)
  local totals = pendingOf()
  totals.inflight = totals.inflight + change
end
local function flushTotals()
  for _, key in ipairs(pendingOrder) do
    local totals = pending[key]
    if totals.held ~= 0 then redis.call('HINCRBY', key, '#held', int(totals.held)) end
    if totals.inflight ~= 0 then redis.call('HINCRBY', key, '#inflight', int(totals.inflight)) end
  end
  pending, pendingOrder = {}, {}
end

local function parse(value)
  if not value then return nil end
  return string.match(value, '^(-?%d+)|(%a)$')
end

-- Takes a hold's amount back from the totals and deletes it from the hash.
local function forget(id, value)
  local amount, kind = parse(value)
  if amount then
    held(negated(amount))
    if kind == 'f' then inFlight(-1) end
  end
  redis.call('HDEL', holds, id)
  ttlLeft[holds] = nil
end

-- The set may name an id the hash no longer has (the hash expired while the set lived on), so
-- the id leaves the set whatever the hash says.
local function drop(id)
  local value = redis.call('HGET', holds, id)
  if value then forget(id, value) end
  redis.call('ZREM', lapse, id)
end

-- Up to when each account's holds were swept in this script: an admission that carries a served
-- hold and a reservation of one account sweeps its holds once.
local sweptUntil = {}

-- Drops the holds that lapsed by now, up to 512 at a time, with one HMGET, HDEL and ZREM for all
-- of them: a burst of calls lapses as a burst, and the call that finds it should not run four
-- commands a hold while every other call waits on Redis. Only once the oldest of them lapsed
-- SWEEP_AFTER_MS ago: until then, one look at the set.
local function dropLapsed(now)
  if sweptUntil[lapse] and sweptUntil[lapse] >= now then return end
  sweptUntil[lapse] = now
  if #redis.call('ZRANGEBYSCORE', lapse, '-inf', int(now - ${SWEEP_AFTER_MS}), 'LIMIT', '0', '1') == 0 then
    return
  end
  local ids = redis.call('ZRANGEBYSCORE', lapse, '-inf', int(now), 'LIMIT', '0', '512')
  local values = redis.call('HMGET', holds, unpack(ids))
  local inflight = 0
  for i = 1, #ids do
    local amount, kind = parse(values[i])
    if amount then
      held(negated(amount))
      if kind == 'f' then inflight = inflight + 1 end
    end
  end
  inFlight(-inflight)
  redis.call('HDEL', holds, unpack(ids))
  redis.call('ZREM', lapse, unpack(ids))
  ttlLeft[holds] = nil
end

-- The keys expire after their latest hold lapses, for an account that stops calling. A hold that
-- would outlive them sets their expiry half as long again as it needs: a call's in-flight hold
-- lapses 15 minutes on, so the keys are renewed every few minutes, not by every call. Their time
-- to live is read once a script (Redis's clock stands still while a script runs), so an admission
-- carrying a served hold and a reservation of one account reads one PTTL.
local function keepFor(ttl)
  local left = ttlLeft[holds] or redis.call('PTTL', holds)
  if left < ttl then
    left = ttl + math.floor(ttl / 2)
    redis.call('PEXPIRE', holds, int(left))
    redis.call('PEXPIRE', lapse, int(left))
  end
  ttlLeft[holds] = left
end

-- inflight: '#inflight' as the caller read it, for a call in flight ('f'): the count, with what
-- gathered for it in this script, is set with the hold in one HSET instead of counted up after it.
-- value: the id's entry as the caller read it with the totals (false: none), or nil for one not
-- read yet.
local function addHold(id, amount, kind, untilMs, now, inflight, value)
  if value == nil then value = redis.call('HGET', holds, id) end
  if value then forget(id, value) end
  if kind == 'f' then
    local totals = pendingOf()
    redis.call('HSET', holds, id, amount .. '|' .. kind, '#inflight', int(inflight + totals.inflight + 1))
    totals.inflight = 0
  else
    redis.call('HSET', holds, id, amount .. '|' .. kind)
  end
  held(amount)
  -- ZADD gives an id already in the set (a hold added again) its new time, keeping the set's expiry.
  redis.call('ZADD', lapse, untilMs, id)
  keepFor(tonumber(untilMs) - now)
end

-- A served exchange that ends its call takes over the call's in-flight entry: the estimate leaves
-- the totals as the cost comes in, and the entry's value and lapse time change in place. Answers
-- false when the call has no entry (released, lapsed, or never held), so the hold is added as any
-- other; an entry already served is this hold sent again, and stays as it is.
local function settle(callId, amount, untilMs, now)
  local estimate, kind = parse(redis.call('HGET', holds, callId))
  if not estimate then return false end
  if kind == 'f' then
    redis.call('HSET', holds, callId, amount .. '|s')
    held(negated(estimate))
    held(amount)
    inFlight(-1)
    redis.call('ZADD', lapse, untilMs, callId)
    keepFor(tonumber(untilMs) - now)
  end
  return true
end
`;

/**
 * Lua, `holdServed(first, arg, scriptNow)`: a served exchange's actual cost held until its lapse
 * time; when the exchange ended its call, it settles the call's in-flight hold in place (`settle`).
 * KEYS[first], KEYS[first + 1]: the account's two keys; ARGV from `arg`: the hold's time, hold
 * id, cost, lapse time, and the call id it ends ('' when the call goes on). `scriptNow`: the
 * admission's time, when the hold waited for one: the account is swept as of then, once for the
 * hold and the reservation; the hold's own time still measures how long its keys must live.
 */
const HOLD_SERVED = `
local function holdServed(first, arg, scriptNow)
  holds, lapse = KEYS[first], KEYS[first + 1]
  local now = tonumber(ARGV[arg])
  dropLapsed(math.max(now, scriptNow or now))
  local id, amount, untilMs, ending = ARGV[arg + 1], ARGV[arg + 2], ARGV[arg + 3], ARGV[arg + 4]
  if ending == '' or not settle(ending, amount, untilMs, now) then
    if ending ~= '' then redis.call('ZREM', lapse, ending) end
    addHold(id, amount, 's', untilMs, now)
  end
end
`;

/**
 * Lua for admission's one script (`admission.ts`): `holdServed`, and `reserve(now, first, arg)`,
 * which holds a call's estimate while it is in flight, if the account may have one more call in
 * flight and its balance less everything held stays above the floor. KEYS[first], KEYS[first + 1]:
 * the account's two keys; ARGV from `arg`: call id, estimate, balance, floor, max in flight,
 * in-flight lapse time. Answers 'ok', 'in_flight' or 'balance'. Needs `INT_LUA` before it, as
 * the rate-limit part does: a whole script defines `int` once. The totals' changes gather while
 * the script runs: it ends with `flushTotals()`.
 */
export const SPEND_LUA = `${HOLDS}${HOLD_SERVED}
local function reserve(now, first, arg)
  holds, lapse = KEYS[first], KEYS[first + 1]
  dropLapsed(now)
  local totals = redis.call('HMGET', holds, '#held', '#inflight', ARGV[arg])
  local gathered = pendingOf()
  local inflight = tonumber(totals[2]) or 0
  if inflight + gathered.inflight >= tonumber(ARGV[arg + 4]) then return 'in_flight' end
  local total = (tonumber(totals[1]) or 0) + gathered.held
  if tonumber(ARGV[arg + 2]) - total <= tonumber(ARGV[arg + 3]) then return 'balance' end
  addHold(ARGV[arg], ARGV[arg + 1], 'f', ARGV[arg + 5], now, inflight, totals[3])
  return 'ok'
end
`;

/** One served hold alone (no admission came to carry it): KEYS and ARGV as `holdServed`'s. */
export const HOLD = `${INT_LUA}${HOLDS}${HOLD_SERVED}
holdServed(1, 1)
flushTotals()
return 1
`;

/** ARGV: the call id. */
export const RELEASE = `${INT_LUA}${HOLDS}
holds, lapse = KEYS[1], KEYS[2]
drop(ARGV[1])
flushTotals()
return 1
`;
