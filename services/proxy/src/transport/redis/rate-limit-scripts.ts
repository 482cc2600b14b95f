import { INT_LUA } from './lua-int.js';

/**
 * One window in Redis: a hash `<prefix>rl:<scope>:<field>` of bucket start → amount, beside the
 * running sum of its buckets (`s`) and the start of its oldest bucket that holds anything (`o`),
 * so a call reads a few fields instead of every bucket. `live` drops the buckets that left the
 * window (each bucket is dropped once, so the work per call is constant on average) and answers
 * the window's sum and its oldest non-empty bucket. The hash expires a window and a bucket after
 * its newest bucket opened.
 */
const LIVE = `
-- Each window's sum and oldest bucket as this script last read or wrote them (false: absent), so a
-- key named twice in one script (a waiting change and a window) is read once and never re-read.
-- The first read of a key also reads the bucket the script is about to count in (\`at\`: the
-- call's current bucket, or a waiting change's), so adding to it is one HSET of the bucket and the
-- sum (\`add\`) instead of an HINCRBY of each.
local known = {}

local function stateOf(key, at)
  if not known[key] then
    local fields = redis.call('HMGET', key, 's', 'o', int(at))
    known[key] = { sum = fields[1], oldest = fields[2], at = at, amount = fields[3] }
  end
  return known[key]
end

local function live(key, now, window, bucket)
  local current = now - (now % bucket)
  local from = current - window
  local state = stateOf(key, current)
  local sum = tonumber(state.sum) or 0
  local cursor = tonumber(state.oldest) or current
  -- 'o' names the oldest bucket that holds anything (refunds keep it so): when it is still in the
  -- window, nothing leaves and no bucket needs reading (most calls).
  if sum > 0 and cursor >= from then return sum, cursor end
  while sum > 0 and cursor < current do
    local amount = tonumber(redis.call('HGET', key, int(cursor))) or 0
    if amount > 0 then
      if cursor >= from then break end
      redis.call('HDEL', key, int(cursor))
      if state.at == cursor then state.amount = false end
      sum = sum - amount
    end
    cursor = cursor + bucket
  end
  if sum <= 0 then
    sum = 0
    cursor = current
  end
  if state.oldest and (tonumber(state.sum) ~= sum or tonumber(state.oldest) ~= cursor) then
    redis.call('HSET', key, 's', int(sum), 'o', int(cursor))
    state.sum, state.oldest = sum, cursor
  end
  return sum, cursor
end

-- The key's expiry is set when a bucket opens: from then it outlives that bucket's time in the
-- window, so adding to a bucket already open (most calls) leaves the expiry as it is.
-- Into an empty window (a sum of 0 keeps 'o' where \`live\` last left it), the bucket added to
-- becomes the oldest that holds anything.
local function add(key, at, amount, window, bucket)
  local state = stateOf(key, at)
  if state.at ~= at then
    -- Another bucket than the one read with the sum (a waiting change moved on to the oldest kept).
    state.at, state.amount = at, redis.call('HGET', key, int(at))
  end
  local wasEmpty = (tonumber(state.sum) or 0) <= 0
  local before = tonumber(state.amount) or 0
  state.amount = before + amount
  state.sum = (tonumber(state.sum) or 0) + amount
  if not state.oldest or (wasEmpty and tonumber(state.oldest) ~= at) then
    redis.call('HSET', key, int(at), int(state.amount), 's', int(state.sum), 'o', int(at))
    state.oldest = at
  else
    redis.call('HSET', key, int(at), int(state.amount), 's', int(state.sum))
  end
  if before == 0 then redis.call('PEXPIRE', key, int(window + bucket)) end
end

-- A refund emptied the bucket at \`at\`: when that was the oldest one holding anything, 'o' moves on
-- to the oldest that still does, so \`live\` can trust it unread. Refunds are rare, and a window's
-- hash holds a bucket per step of its window at most, so reading it whole is cheap enough.
local function passEmptied(key, at)
  local state = stateOf(key, at)
  if tonumber(state.oldest) ~= at then return end
  local fields = redis.call('HGETALL', key)
  local oldest
  for i = 1, #fields, 2 do
    local start = tonumber(fields[i])
    if start and start > at and tonumber(fields[i + 1]) > 0 and (not oldest or start < oldest) then
      oldest = start
    end
  end
  if oldest then
    redis.call('HSET', key, 'o', int(oldest))
    state.oldest = oldest
  end
end

-- Applies changes waiting on this replica: KEYS[first..last], from ARGV[arg] on, per key the
-- bucket start, the amount, window ms and bucket ms. Tokens are added (a replica whose clock is
-- behind the one that wrote last adds to the oldest kept bucket); a negative amount takes a request
-- back from its bucket while that bucket still holds one.
local function apply(first, last, arg)
  for i = first, last do
    local at = tonumber(ARGV[arg])
    local amount = tonumber(ARGV[arg + 1])
    local window = tonumber(ARGV[arg + 2])
    local bucket = tonumber(ARGV[arg + 3])
    if amount > 0 then
      local oldest = tonumber(stateOf(KEYS[i], at).oldest)
      add(KEYS[i], oldest and math.max(at, oldest) or at, amount, window, bucket)
    elseif (tonumber(redis.call('HGET', KEYS[i], int(at))) or 0) > 0 then
      local left = redis.call('HINCRBY', KEYS[i], int(at), int(amount))
      local sum = redis.call('HINCRBY', KEYS[i], 's', int(amount))
      local state = known[KEYS[i]]
      if state then
        state.sum = sum
        if state.at == at then state.amount = left end
      end
      if left <= 0 and sum > 0 then passEmptied(KEYS[i], at) end
    end
    arg = arg + 4
  end
end
`;

/**
 * Lua, `admitWindows(now, windows, changes, arg)`: applies the waiting changes, then checks every
 * window of a call and, when none is over, counts the call in its request windows. KEYS[1..]: the
 * call's `windows`, then the `changes` waiting; ARGV from `arg`: per window its window ms, bucket
 * ms, limit, and 1 for a request window (counted) or 0 for a token window (checked only), then the
 * changes (see `apply`). Answers over (0/1), then per window its count (before this call) and when
 * its oldest bucket frees. Its keys come first in every script that runs it (`admission.ts` too),
 * and `INT_LUA` before it: a whole script defines `int` once.
 */
export const ADMIT_WINDOWS_LUA = `${LIVE}
local function admitWindows(now, windows, changes, arg)
  apply(windows + 1, windows + changes, arg + windows * 4)
  local over = 0
  local out = { 0 }
  for i = 1, windows do
    local at = arg + (i - 1) * 4
    local window = tonumber(ARGV[at])
    local bucket = tonumber(ARGV[at + 1])
    local limit = tonumber(ARGV[at + 2])
    local counted = tonumber(ARGV[at + 3])
    local count, oldest = live(KEYS[i], now, window, bucket)
    if (counted == 1 and count + 1 > limit) or (counted == 0 and count >= limit) then over = 1 end
    out[#out + 1] = count
    out[#out + 1] = count > 0 and (oldest + window + bucket) or now
  end
  if over == 0 then
    for i = 1, windows do
      local at = arg + (i - 1) * 4
      if tonumber(ARGV[at + 3]) == 1 then
        local bucket = tonumber(ARGV[at + 1])
        add(KEYS[i], now - (now % bucket), 1, tonumber(ARGV[at]), bucket)
      end
    end
  end
  out[1] = over
  return out
end
`;

/** The windows alone (a session's token check): ARGV now, then `admitPart`'s arguments. */
export const ADMIT = `${INT_LUA}${ADMIT_WINDOWS_LUA}
return admitWindows(tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), 4)
`;

/** Applies waiting changes alone (see `apply`): ARGV is the changes. */
export const APPLY = `${INT_LUA}${LIVE}
apply(1, #KEYS, 1)
return 1
`;
