import { createHash } from 'node:crypto';

/**
 * The Redis store's atomic steps. Redis runs a script to the end before any other command, so each is one atomic
 * step across every client. Times come from the server's clock (TIME), so instances with skewed clocks still agree.
 */
export interface LuaScript {
  source: string;
  sha: string;
}

function script(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

const NOW_MS = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

/**
 * KEYS[1]: the window hash (field: bucket start ms, value: "amount:expiresAtMs").
 * ARGV: amount, limit, windowMs. Returns {allowed 0|1, used, retryAfterMs}. Same steps as sliding-window.ts.
 */
export const CONSUME = script(`${NOW_MS}
local amount = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local bucketMs = math.max(1, math.ceil(window / 64))
local fields = redis.call('HGETALL', KEYS[1])
local used = 0
local live = {}
local lastExpiry = 0
for i = 1, #fields, 2 do
  local value = fields[i + 1]
  local sep = string.find(value, ':', 1, true)
  local n = tonumber(string.sub(value, 1, sep - 1))
  local expires = tonumber(string.sub(value, sep + 1))
  if expires <= now then
    redis.call('HDEL', KEYS[1], fields[i])
  else
    used = used + n
    live[#live + 1] = { n, expires }
    lastExpiry = math.max(lastExpiry, expires)
  end
end
if used + amount <= limit then
  if amount > 0 then
    local start = math.floor(now / bucketMs) * bucketMs
    local field = string.format('%d', start)
    local n = amount
    local expires = start + bucketMs + window
    local current = redis.call('HGET', KEYS[1], field)
    if current then
      local sep = string.find(current, ':', 1, true)
      n = n + tonumber(string.sub(current, 1, sep - 1))
      expires = math.max(expires, tonumber(string.sub(current, sep + 1)))
    end
    redis.call('HSET', KEYS[1], field, string.format('%d:%d', n, expires))
    lastExpiry = math.max(lastExpiry, expires)
  end
  if lastExpiry > 0 then redis.call('PEXPIREAT', KEYS[1], string.format('%d', lastExpiry)) end
  return { 1, used + amount, 0 }
end
table.sort(live, function(left, right) return left[2] < right[2] end)
local needed = used + amount - limit
local freed = 0
local retry = window
for _, bucket in ipairs(live) do
  freed = freed + bucket[1]
  if freed >= needed then
    retry = math.max(1, bucket[2] - now)
    break
  end
end
return { 0, used, retry }
`);

/** KEYS[1]: counter. ARGV: by, ttlMs ("0": none; applied only when the counter is created). */
export const INCREMENT = script(`
local existed = redis.call('EXISTS', KEYS[1])
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if existed == 0 and ARGV[2] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return value
`);

/**
 * KEYS[1]: the counters (a JSON object of whole numbers, the kv value `get` reads). ARGV: the amounts as a JSON array
 * of [field, amount] pairs (in order, so `over` names the first), the limits as a JSON object, ttlMs ("0": keep the
 * expiry the key has). Returns {applied 0|1, the counters' JSON after (before, when refused), the field over}. Same
 * step as store-errors.ts's stepCounters.
 */
export const INCREMENT_WITHIN = script(`
local text = redis.call('GET', KEYS[1])
local values = {}
if text then
  local ok, decoded = pcall(cjson.decode, text)
  if not ok or type(decoded) ~= 'table' then return redis.error_reply('the value is not an integer counter set') end
  for _, count in pairs(decoded) do
    if type(count) ~= 'number' or count ~= math.floor(count) then
      return redis.error_reply('the value is not an integer counter set')
    end
  end
  values = decoded
end
local amounts = cjson.decode(ARGV[1])
local limits = cjson.decode(ARGV[2])
for _, pair in ipairs(amounts) do
  local field, amount = pair[1], pair[2]
  local limit = limits[field]
  if amount > 0 and limit ~= nil and (values[field] or 0) + amount > limit then
    return { 0, text or '{}', field }
  end
end
for _, pair in ipairs(amounts) do
  local field, amount = pair[1], pair[2]
  values[field] = math.max(0, (values[field] or 0) + amount)
end
local json = cjson.encode(values)
if ARGV[3] ~= '0' then
  redis.call('SET', KEYS[1], json, 'PX', ARGV[3])
else
  local ttl = redis.call('PTTL', KEYS[1])
  redis.call('SET', KEYS[1], json)
  if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
end
return { 1, json, '' }
`);

/**
 * KEYS[1]: balance, KEYS[2]: ledger list. ARGV: delta, requireNonNegative ("1"|"0"), the entry's JSON without its
 * closing brace (balanceAfter and atMs are added here). Returns {applied 0|1, balance, atMs}.
 */
export const LEDGER_APPLY = script(`
local balance = tonumber(redis.call('GET', KEYS[1]) or '0')
local delta = tonumber(ARGV[1])
local after = balance + delta
if ARGV[2] == '1' and delta < 0 and after < 0 then
  return { 0, string.format('%d', balance), '0' }
end
${NOW_MS}
redis.call('SET', KEYS[1], string.format('%d', after))
redis.call('RPUSH', KEYS[2], ARGV[3] .. string.format(',"balanceAfter":%d,"atMs":%d}', after, now))
return { 1, string.format('%d', after), string.format('%d', now) }
`);

/** KEYS[1]: balance, KEYS[2]: ledger list. Sets the balance to the sum of the ledger's deltas; returns it. */
export const REBUILD_BALANCE = script(`
local entries = redis.call('LRANGE', KEYS[2], 0, -1)
local sum = 0
for _, entry in ipairs(entries) do sum = sum + cjson.decode(entry).delta end
if #entries > 0 or redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('SET', KEYS[1], string.format('%d', sum))
end
return string.format('%d', sum)
`);

/**
 * KEYS[1]: the turn hash (field `next`: when the next turn may start, ms; fields `lease:<id>`: when each lease expires;
 * the starting claim, when held: `claim` its lease id, `claimUntil` when it expires, `claimInterval` its interval,
 * `claimAfter` the next start before its grant).
 * ARGV: `reserve`, `sent`, `release` or `unsent` (a release whose request never left), the lease id, intervalMs, maxConcurrent ("0": none), leaseMs, startingMs
 * ("0": no claim). Returns {outcome, waitMs} for reserve (`granted`, `wait`, `busy`) and {`sent` or `released`, held
 * 0|1} for the others. Same steps as turn-slots.ts's decideTurn.
 */
export const TURN = script(`${NOW_MS}
local fields = redis.call('HGETALL', KEYS[1])
local nextStart = 0
local held = 0
local firstExpiry = nil
local lastExpiry = 0
local leases = {}
local claim = nil
local claimUntil = 0
local claimInterval = 0
local claimAfter = nil
for i = 1, #fields, 2 do
  local name = fields[i]
  if name == 'claim' then
    claim = fields[i + 1]
  elseif name == 'claimUntil' then
    claimUntil = tonumber(fields[i + 1])
  elseif name == 'claimInterval' then
    claimInterval = tonumber(fields[i + 1])
  elseif name == 'claimAfter' then
    claimAfter = tonumber(fields[i + 1])
  elseif name == 'next' then
    nextStart = tonumber(fields[i + 1])
  else
    local value = tonumber(fields[i + 1])
    if value <= now then
      redis.call('HDEL', KEYS[1], name)
    else
      leases[name] = value
      held = held + 1
      if firstExpiry == nil or value < firstExpiry then firstExpiry = value end
      if value > lastExpiry then lastExpiry = value end
    end
  end
end
-- A claim never reported counts as sent when it expired: the next start is one interval (+ 1 ms) after that.
if claim ~= nil and claimUntil <= now then
  nextStart = math.max(nextStart, claimUntil + claimInterval + 1)
  redis.call('HDEL', KEYS[1], 'claim', 'claimUntil', 'claimInterval', 'claimAfter')
  redis.call('HSET', KEYS[1], 'next', string.format('%d', nextStart))
  claim = nil
end
local function expireAt(extra)
  local at = math.max(nextStart, lastExpiry, extra)
  if claim ~= nil then at = math.max(at, claimUntil + claimInterval + 1) end
  if at <= now then
    redis.call('DEL', KEYS[1])
  else
    redis.call('PEXPIREAT', KEYS[1], string.format('%d', at))
  end
end
local leaseField = 'lease:' .. ARGV[2]
if ARGV[1] == 'sent' or ARGV[1] == 'release' or ARGV[1] == 'unsent' then
  -- Reported sent, or released before it was: the next start is one interval from now, plus 1 ms as TIME is
  -- rounded down to whole ms (turn-slots.ts sentPlusInterval). Released unsent while it held the claim (its request
  -- never left, and no turn was granted since): the next start goes back to where it was before the grant.
  local claimed = claim == ARGV[2]
  if claimed then
    if ARGV[1] == 'unsent' and claimAfter ~= nil then
      nextStart = claimAfter
    else
      nextStart = math.max(nextStart, now + claimInterval + 1)
    end
    redis.call('HDEL', KEYS[1], 'claim', 'claimUntil', 'claimInterval', 'claimAfter')
    redis.call('HSET', KEYS[1], 'next', string.format('%d', nextStart))
    claim = nil
  end
  local released = 0
  if ARGV[1] ~= 'sent' and leases[leaseField] then
    redis.call('HDEL', KEYS[1], leaseField)
    released = 1
  end
  if claimed then expireAt(0) end
  if ARGV[1] == 'sent' then return { 'sent', claimed and 1 or 0 } end
  return { 'released', released }
end
local interval = tonumber(ARGV[3])
local maxConcurrent = tonumber(ARGV[4])
local leaseMs = tonumber(ARGV[5])
local startingMs = tonumber(ARGV[6])
if maxConcurrent > 0 and held >= maxConcurrent then
  return { 'busy', math.max(1, firstExpiry - now) }
end
local due = nextStart
-- Behind a claim the next start is at least one interval after the report still to come, so after now.
if claim ~= nil then due = math.max(due, now + claimInterval) end
if due > now then
  return { 'wait', due - now }
end
nextStart = now + interval
redis.call('HSET', KEYS[1], 'next', string.format('%d', nextStart), leaseField, string.format('%d', now + leaseMs))
if startingMs > 0 and interval > 0 then
  claim = ARGV[2]
  claimUntil = now + math.min(startingMs, leaseMs)
  claimInterval = interval
  redis.call('HSET', KEYS[1], 'claim', claim, 'claimUntil', string.format('%d', claimUntil),
    'claimInterval', string.format('%d', claimInterval), 'claimAfter', string.format('%d', due))
end
expireAt(now + leaseMs)
return { 'granted', 0 }
`);
