-- KEYS: meta goals; ARGV: first (1-based), goals...
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, 'unknown session'} end
local first = tonumber(ARGV[1])
if first <= 1 then redis.call('DEL', KEYS[2]) else redis.call('LTRIM', KEYS[2], 0, first - 2) end
for i = 2, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
return {1, 0}
