/**
 * The Redis store's Lua scripts: each is one atomic server-side step. `admit` and `settle` mirror
 * `rules.ts`, `circuit` mirrors `routing/transitions.ts` (the same test suites run on the memory and
 * the Redis stores). Numbers go back as strings: Redis truncates Lua numbers to integers.
 */

/**
 * KEYS: bucket hash, day spend, month spend, in-flight reservations (sorted set, score = expiry).
 * ARGV: now, rpm, tpm, tokens, day limit, month limit (-1: none), reserve, id, reservation TTL.
 * Returns `{'ok'}`, `{'budget', period, spent, limit}` or `{'rate', limit, waitMs}`.
 */
export const admitScript = `
local now = tonumber(ARGV[1])
local rpm = tonumber(ARGV[2])
local tpm = tonumber(ARGV[3])
local tokens = tonumber(ARGV[4])
local dayLimit = tonumber(ARGV[5])
local monthLimit = tonumber(ARGV[6])
local reserve = tonumber(ARGV[7])
local ttl = tonumber(ARGV[9])
local budgeted = dayLimit >= 0 or monthLimit >= 0
if budgeted then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
  local reserved = 0
  local members = redis.call('ZRANGE', KEYS[4], 0, -1)
  for i = 1, #members do
    reserved = reserved + tonumber(string.match(members[i], ':(%d+)$'))
  end
  local day = tonumber(redis.call('GET', KEYS[2]) or '0')
  if dayLimit >= 0 and day + reserved >= dayLimit then
    return {'budget', 'day', tostring(day + reserved), tostring(dayLimit)}
  end
  local month = tonumber(redis.call('GET', KEYS[3]) or '0')
  if monthLimit >= 0 and month + reserved >= monthLimit then
    return {'budget', 'month', tostring(month + reserved), tostring(monthLimit)}
  end
end
if rpm > 0 or tpm > 0 then
  local bucket = redis.call('HMGET', KEYS[1], 'r', 't', 'at')
  local at = tonumber(bucket[3]) or now
  local elapsed = math.max(0, now - at)
  local requests = math.min(rpm, (tonumber(bucket[1]) or rpm) + elapsed * rpm / 60000)
  local left = math.min(tpm, (tonumber(bucket[2]) or tpm) + elapsed * tpm / 60000)
  if rpm > 0 and requests < 1 then
    return {'rate', 'requests', tostring((1 - requests) * 60000 / rpm)}
  end
  local need = math.min(tokens, tpm)
  if tpm > 0 and left < need then
    return {'rate', 'tokens', tostring((need - left) * 60000 / tpm)}
  end
  if rpm > 0 then requests = requests - 1 else requests = 0 end
  if tpm > 0 then left = left - tokens else left = 0 end
  -- Never backwards: a call whose clock reading arrives late must not refill the same time twice.
  redis.call('HSET', KEYS[1], 'r', tostring(requests), 't', tostring(left), 'at', tostring(math.max(at, now)))
  redis.call('PEXPIRE', KEYS[1], 180000)
end
if budgeted and reserve > 0 then
  redis.call('ZADD', KEYS[4], now + ttl, ARGV[8] .. ':' .. ARGV[7])
  redis.call('PEXPIRE', KEYS[4], ttl)
end
return {'ok'}
`;

/**
 * KEYS: as `admit`. ARGV: tpm, token correction (used - reserved), cost, reservation member ('' for
 * none), day TTL, month TTL (seconds).
 */
export const settleScript = `
if ARGV[4] ~= '' then redis.call('ZREM', KEYS[4], ARGV[4]) end
local tpm = tonumber(ARGV[1])
local delta = tonumber(ARGV[2])
if tpm > 0 and delta ~= 0 then
  local left = redis.call('HGET', KEYS[1], 't')
  if left then redis.call('HSET', KEYS[1], 't', tostring(math.min(tpm, tonumber(left) - delta))) end
end
local cost = tonumber(ARGV[3])
if cost > 0 then
  redis.call('INCRBY', KEYS[2], cost)
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[5]))
  redis.call('INCRBY', KEYS[3], cost)
  redis.call('EXPIRE', KEYS[3], tonumber(ARGV[6]))
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
      nextRec = {state = 'half-open', failures = rec.failures, probeAt = op.now, probe = op.probe}
      out = {state = 'half-open', allowed = true, probe = op.probe}
    else
      out = {state = rec.state, allowed = false}
      if rec.state == 'open' then out['until'] = rec.reopenAt or 0 end
    end
  end
elseif op.kind == 'failure' then
  local failures = rec.failures + 1
  local long = op.retryAfterMs >= op.longRetryAfterMs
  if rec.state == 'half-open' or long or failures >= op.failureThreshold then
    local openMs = math.min(op.maxOpenMs, math.max(op.cooldownMs, op.retryAfterMs))
    nextRec = {state = 'open', failures = failures, reopenAt = op.now + openMs}
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
    nextRec = {state = 'open', failures = rec.failures, reopenAt = op.now}
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
