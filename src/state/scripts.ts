/**
 * The Redis store's Lua scripts: each is one atomic server-side step. `admit` and `settle` mirror
 * `rules.ts`, `circuit` mirrors `routing/transitions.ts` (the same test suites run on the memory and
 * the Redis stores). Numbers go back as strings: Redis truncates Lua numbers to integers.
 */

/**
 * The time every instance agrees on: Redis `TIME` (ms), or ARGV[1] when a test injects a clock.
 * (`redis.replicate_commands` lets Redis < 5 write after reading TIME; later versions always do.)
 */
const clock = `
local now
if ARGV[1] == '' then
  if redis.replicate_commands then redis.replicate_commands() end
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
else
  now = tonumber(ARGV[1])
end
`;

/** `periods(ms)`: the UTC day (`YYYYMMDD`) and month (`YYYYMM`), as `periodsOf` in `types.ts`. */
export const periodsLua = `
local function periods(ms)
  local z = math.floor(ms / 86400000) + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  local month = string.format('%04d%02d', y, m)
  return month .. string.format('%02d', d), month
end
`;

/**
 * KEYS (one hash tag, the gateway key's): 1 token bucket (hash), 2 day spend, 3 month spend, 4
 * in-flight reservations (sorted set, score = expiry), 5 requests-per-minute log (sorted set,
 * score = admission time), 6 withdrawn admissions (sorted set of ids, see `withdrawScript`). ARGV: 1 now ('' = Redis TIME), 2 rpm, 3 tpm, 4 tokens, 5 day limit,
 * 6 month limit (-1: none), 7 reserve, 8 id, 9 reservation TTL, 10 day, 11 month (the periods
 * KEYS 2 and 3 were named for). Returns `{'ok', now}`, `{'budget', period, spent, limit}`,
 * `{'rate', limit, waitMs}`, or `{'period', now}` when the instance named other periods than
 * Redis's clock says (around midnight UTC; the caller asks again with these), or `{'withdrawn'}`
 * (nothing recorded) for an admission the gateway gave up on before it ran.
 */
export const admitScript = `${clock}${periodsLua}
if redis.call('ZSCORE', KEYS[6], ARGV[8]) then return {'withdrawn'} end
local rpm = tonumber(ARGV[2])
local tpm = tonumber(ARGV[3])
local tokens = tonumber(ARGV[4])
local dayLimit = tonumber(ARGV[5])
local monthLimit = tonumber(ARGV[6])
local reserve = tonumber(ARGV[7])
local ttl = tonumber(ARGV[9])
local budgeted = dayLimit >= 0 or monthLimit >= 0
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
if budgeted then
  local day, month = periods(now)
  if day ~= ARGV[10] or month ~= ARGV[11] then return {'period', tostring(now)} end
  local reserved = 0
  local members = redis.call('ZRANGE', KEYS[4], 0, -1)
  for i = 1, #members do
    reserved = reserved + tonumber(string.match(members[i], ':(%d+)$'))
  end
  local spentDay = tonumber(redis.call('GET', KEYS[2]) or '0')
  if dayLimit >= 0 and spentDay + reserved >= dayLimit then
    return {'budget', 'day', tostring(spentDay + reserved), tostring(dayLimit)}
  end
  local spentMonth = tonumber(redis.call('GET', KEYS[3]) or '0')
  if monthLimit >= 0 and spentMonth + reserved >= monthLimit then
    return {'budget', 'month', tostring(spentMonth + reserved), tostring(monthLimit)}
  end
end
if rpm > 0 then
  -- The log: drop what left the window, keep at most the newest rpm, refuse while rpm remain.
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - 60000)
  local count = redis.call('ZCARD', KEYS[5])
  if count > rpm then redis.call('ZREMRANGEBYRANK', KEYS[5], 0, count - rpm - 1) end
  if count >= rpm then
    local oldest = redis.call('ZRANGE', KEYS[5], 0, 0, 'WITHSCORES')
    return {'rate', 'requests', tostring(tonumber(oldest[2]) + 60000 - now)}
  end
end
local left = 0
local at = now
if tpm > 0 then
  local bucket = redis.call('HMGET', KEYS[1], 't', 'at')
  at = tonumber(bucket[2]) or now
  left = math.min(tpm, (tonumber(bucket[1]) or tpm) + math.max(0, now - at) * tpm / 60000)
  local need = math.min(tokens, tpm)
  if left < need then
    return {'rate', 'tokens', tostring((need - left) * 60000 / tpm)}
  end
  -- Never backwards: a call whose clock reading arrives late must not refill the same time twice.
  at = math.max(at, now)
end
if rpm > 0 then
  redis.call('ZADD', KEYS[5], now, ARGV[8])
  redis.call('PEXPIRE', KEYS[5], 60000)
end
if tpm > 0 then
  redis.call('HSET', KEYS[1], 't', tostring(left - tokens), 'at', tostring(at))
  redis.call('PEXPIRE', KEYS[1], 180000)
end
-- Every admission holds a member (id:micros) until its settle: the budget's reservation, and what
-- makes a replayed settle count once.
redis.call('ZADD', KEYS[4], now + ttl, ARGV[8] .. ':' .. ARGV[7])
redis.call('PEXPIRE', KEYS[4], ttl)
return {'ok', tostring(now)}
`;

/**
 * Withdraws an admission the gateway gave up on (`withdrawals.ts`). KEYS: 1 token bucket, 2 in-flight
 * reservations, 3 requests-per-minute log, 4 withdrawn admissions (as `admit`'s 1, 4, 5, 6). ARGV: 1
 * now ('' = Redis TIME), 2 id, 3 reservation member, 4 tokens taken, 5 tpm, 6 mark TTL (ms). When
 * the admission ran, what it recorded is removed (its tokens given back); else the id is marked
 * withdrawn, and the admission records nothing when it arrives. Returns 1 (removed) or 0 (marked).
 */
export const withdrawScript = `${clock}
if redis.call('ZREM', KEYS[2], ARGV[3]) == 1 then
  redis.call('ZREM', KEYS[3], ARGV[2])
  local tokens = tonumber(ARGV[4])
  local tpm = tonumber(ARGV[5])
  if tpm > 0 and tokens > 0 then
    local left = redis.call('HGET', KEYS[1], 't')
    if left then redis.call('HSET', KEYS[1], 't', tostring(math.min(tpm, tonumber(left) + tokens))) end
  end
  return 1
end
local ttl = tonumber(ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
redis.call('ZADD', KEYS[4], now + ttl, ARGV[2])
redis.call('PEXPIRE', KEYS[4], ttl)
return 0
`;

/**
 * KEYS: as `admit` (1 to 5). ARGV: 1 now ('' = Redis TIME), 2 tpm, 3 token correction (used - reserved),
 * 4 cost, 5 reservation member ('' for none), 6 day TTL, 7 month TTL (seconds), 8 replay: '' for
 * a settle sent as the call ends, else the reservation's expiry (ms). A replay (a settle that
 * failed during a Redis outage, sent again) whose member is gone before its expiry was already
 * applied — its first attempt reached Redis but its reply did not — and is skipped (returns 0).
 */
export const settleScript = `${clock}
local removed = 0
if ARGV[5] ~= '' then removed = redis.call('ZREM', KEYS[4], ARGV[5]) end
if ARGV[8] ~= '' and ARGV[5] ~= '' and removed == 0 then
  if now < tonumber(ARGV[8]) then return 0 end
end
local tpm = tonumber(ARGV[2])
local delta = tonumber(ARGV[3])
if tpm > 0 and delta ~= 0 then
  local left = redis.call('HGET', KEYS[1], 't')
  if left then redis.call('HSET', KEYS[1], 't', tostring(math.min(tpm, tonumber(left) - delta))) end
end
local cost = tonumber(ARGV[4])
if cost > 0 then
  redis.call('INCRBY', KEYS[2], cost)
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[6]))
  redis.call('INCRBY', KEYS[3], cost)
  redis.call('EXPIRE', KEYS[3], tonumber(ARGV[7]))
end
return 1
`;

/**
 * KEYS: the circuits hash. ARGV: circuit key, channel, the operation (JSON). Applies one
 * transition, publishes the new record (`key\\nrecord`) when it changed, returns
 * `{outcome, record}` as JSON.
 */
export const circuitScript = `
local field = ARGV[1]
local op = cjson.decode(ARGV[3])
local raw = redis.call('HGET', KEYS[1], field)
local rec
if raw then rec = cjson.decode(raw) else rec = {state = 'closed', failures = 0} end
local nextRec = nil
local out
if op.kind == 'check' then
  if rec.state == 'closed' then
    out = {state = 'closed', allowed = true}
  else
    local due
    if rec.state == 'open' then due = op.now >= (rec.reopenAt or 0)
    else due = op.now - (rec.probeAt or 0) >= op.probeTimeoutMs end
    if due then
      nextRec = {state = 'half-open', failures = rec.failures, probeAt = op.now, probe = op.probe, cause = rec.cause}
      out = {state = 'half-open', allowed = true, probe = op.probe}
    else
      out = {state = rec.state, allowed = false}
      if rec.state == 'open' then out['until'] = rec.reopenAt or 0 end
      out.cause = rec.cause
    end
  end
elseif op.kind == 'failure' then
  local failures = rec.failures + 1
  local long = op.retryAfterMs >= op.longRetryAfterMs
  if rec.state == 'half-open' or long or failures >= op.failureThreshold then
    local openMs = op.cooldownMs
    if op.retryAfterMs > 0 then openMs = op.retryAfterMs end
    openMs = math.min(op.maxOpenMs, openMs)
    local cause = rec.cause
    if rec.state == 'closed' or (rec.state == 'half-open' and op.probe ~= nil and op.probe == rec.probe) then
      cause = op.cause
    end
    local reopenAt = op.now + openMs
    if rec.state == 'open' then reopenAt = math.max(reopenAt, rec.reopenAt or 0) end
    nextRec = {state = 'open', failures = failures, reopenAt = reopenAt, cause = cause}
    out = {state = 'open'}
  else
    rec.failures = failures
    nextRec = rec
    out = {state = rec.state}
  end
elseif op.kind == 'success' then
  if rec.state ~= 'closed' or rec.failures ~= 0 then nextRec = {state = 'closed', failures = 0} end
  out = {state = 'closed'}
elseif op.kind == 'release' then
  if rec.state == 'half-open' and rec.probe == op.probe then
    nextRec = {state = 'open', failures = rec.failures, reopenAt = op.now, cause = rec.cause}
    out = {state = 'open'}
  else
    out = {state = rec.state}
  end
else
  return redis.error_reply('unknown circuit operation')
end
local encoded = raw or ''
if nextRec then
  encoded = cjson.encode(nextRec)
  redis.call('HSET', KEYS[1], field, encoded)
  redis.call('PUBLISH', ARGV[2], field .. '\\n' .. encoded)
end
return cjson.encode({outcome = out, record = nextRec or rec})
`;

/**
 * A stored value's size (STRLEN) and, when it is at most ARGV[1] bytes, the value (GET) in the same
 * round trip: `{size, value}` (value nil: none), or `{size}` alone for a larger one, which the
 * caller holds (or refuses) by that size before fetching it. KEYS: 1 the value, 2 its group's index
 * (`storeValueScript`); ARGV: 1 the size up to which the value comes, 2 its name in the index. A
 * value its group gave up (out of the index, its key not yet deleted) is none: `{0, nil}`.
 */
export const valueScript = `
if not redis.call('ZSCORE', KEYS[2], ARGV[2]) then return {0, false} end
local size = redis.call('STRLEN', KEYS[1])
if size > tonumber(ARGV[1]) then return {size} end
return {size, redis.call('GET', KEYS[1])}
`;

/**
 * Stores a value under a group's bound: the group (a gateway key's stored values) holds at most
 * ARGV[5] bytes (0: no bound), and one over it gives up its own oldest (the soonest to expire)
 * first — never another group's. KEYS (one hash tag, the group's): 1 the value, 2 the group's index
 * (sorted set: name → expiry, ms; a value is read only while its name is in it), 3 the group's
 * sizes (hash: name → bytes, and `#` → their sum), 4 the group's names given up (a set: their keys
 * wait to be deleted). ARGV: 1 now ('' = Redis TIME), 2 the value's name in the index, 3 the value,
 * 4 TTL (ms), 5 the bound, 6 '1' for NX (keep a value already there), 7 '' — or the value's size
 * when the caller sends it by a SET right after the script, in one MULTI (ARGV 3 then ''): a large
 * value never passes through Lua — 8 the most names one run gives up, and 9 '1' to only make the
 * room (nothing written: `{'room', n}`, the caller then stores). Names whose expiry passed
 * leave the index first (their values expired with them), so their bytes stop counting. The values
 * given up leave the index here — from now on none is read — and their names join KEYS[4], which
 * the caller (or any later store of the group: the deletes do not hang on this reply) empties by
 * `UNLINK`s of their keys; a script touches only the keys it declares (one Cluster slot, whatever
 * the proxy). One run gives up at most ARGV[8] names (a script blocks Redis for every key while it
 * runs): a value that needs more is not stored by this run, which answers `{'more', n}` — its name
 * leaves the index, and joins KEYS[4] (the SET after it in the MULTI still writes its key) — and
 * the caller makes the rest of the room by runs with ARGV[9] (no value sent again), then stores. Returns `{'ok', n}` (n: names waiting in KEYS[4]), `{'more', n}`,
 * `{'exists'}` (NX, nothing written) or `{'large'}` for a value over the bound on its own (nothing
 * written). Names pass `unpack` in slices: Lua's stack takes only so many at once.
 */
export const storeValueScript = `${clock}
local member = ARGV[2]
local size = ARGV[7] == '' and string.len(ARGV[3]) or tonumber(ARGV[7])
local ttl = tonumber(ARGV[4])
local bound = tonumber(ARGV[5])
local cap = math.max(1, tonumber(ARGV[8]))
if ARGV[6] == '1' and redis.call('ZSCORE', KEYS[2], member) and redis.call('EXISTS', KEYS[1]) == 1 then
  return {'exists'}
end
if bound > 0 and size > bound then return {'large'} end
local total = tonumber(redis.call('HGET', KEYS[3], '#') or '0')
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1000)
for i = 1, #expired do
  total = total - tonumber(redis.call('HGET', KEYS[3], expired[i]) or '0')
  redis.call('HDEL', KEYS[3], expired[i])
end
if #expired > 0 then redis.call('ZREM', KEYS[2], unpack(expired)) end
-- The value it replaces (if any) stops counting.
local previous = tonumber(redis.call('HGET', KEYS[3], member) or '0')
total = total - previous
if bound > 0 and total + size > bound then
  local over = total + size - bound
  local victims = {}
  local oldest = redis.call('ZRANGE', KEYS[2], 0, cap)
  for i = 1, #oldest do
    if over <= 0 or #victims >= cap then break end
    if oldest[i] ~= member then
      local bytes = tonumber(redis.call('HGET', KEYS[3], oldest[i]) or '0')
      over = over - bytes
      total = total - bytes
      victims[#victims + 1] = oldest[i]
    end
  end
  for from = 1, #victims, 500 do
    local to = math.min(from + 499, #victims)
    redis.call('HDEL', KEYS[3], unpack(victims, from, to))
    redis.call('ZREM', KEYS[2], unpack(victims, from, to))
    redis.call('SADD', KEYS[4], unpack(victims, from, to))
  end
  if #victims > 0 and redis.call('PTTL', KEYS[4]) < ttl then redis.call('PEXPIRE', KEYS[4], ttl) end
  if over > 0 and #victims >= cap then
    -- More to give up than one run may: nothing stored; the caller runs it again.
    if ARGV[9] == '1' then
      total = total + previous
    else
      redis.call('ZREM', KEYS[2], member)
      redis.call('HDEL', KEYS[3], member)
      redis.call('SADD', KEYS[4], member)
      if redis.call('PTTL', KEYS[4]) < ttl then redis.call('PEXPIRE', KEYS[4], ttl) end
    end
    redis.call('HSET', KEYS[3], '#', tostring(math.max(0, total)))
    return {'more', redis.call('SCARD', KEYS[4])}
  end
  -- Every other value gone: nothing else counts (a sum that drifted starts over).
  if over > 0 then total = 0 end
end
if ARGV[9] == '1' then
  redis.call('HSET', KEYS[3], '#', tostring(math.max(0, total) + previous))
  return {'room', redis.call('SCARD', KEYS[4])}
end
-- Its name stored again: its key is no longer one to delete.
redis.call('SREM', KEYS[4], member)
if ARGV[7] == '' then redis.call('SET', KEYS[1], ARGV[3], 'PX', ttl) end
redis.call('ZADD', KEYS[2], now + ttl, member)
redis.call('HSET', KEYS[3], member, tostring(size), '#', tostring(math.max(0, total) + size))
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
return {'ok', redis.call('SCARD', KEYS[4])}
`;
