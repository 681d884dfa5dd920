-- KEYS: meta log snaps ids goals deadlines finished
-- ARGV: 1 id, 2 seq, 3 event, 4 phase, 5 deadline ms or '', 6 snapshot or '', 7 client id or '',
--       8 reset '1'/'0', 9 goals_total, 10 updated ms, 11 snapshots kept from seq, 12 ids kept,
--       13 channel, 14 finished count, 15.. finished goals
local last = redis.call('HGET', KEYS[1], 'seq')
if not last then return {0, 'unknown session ' .. ARGV[1]} end
last = tonumber(last)
local seq = tonumber(ARGV[2])
if seq ~= last + 1 then return {0, 'session ' .. ARGV[1] .. ': append of seq ' .. seq .. ' after ' .. last} end
redis.call('XADD', KEYS[2], ARGV[2] .. '-1', 'e', ARGV[3])
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[2], ARGV[6])
  local keep = tonumber(ARGV[11])
  for _, f in ipairs(redis.call('HKEYS', KEYS[3])) do
    if tonumber(f) < keep then redis.call('HDEL', KEYS[3], f) end
  end
end
if ARGV[7] ~= '' then
  redis.call('RPUSH', KEYS[4], ARGV[2] .. ' ' .. ARGV[7])
  redis.call('LTRIM', KEYS[4], -tonumber(ARGV[12]), -1)
end
if ARGV[8] == '1' then redis.call('DEL', KEYS[5]) end
local n = tonumber(ARGV[14])
local first = tonumber(ARGV[9]) - n
if first <= 0 then redis.call('DEL', KEYS[5]) else redis.call('LTRIM', KEYS[5], 0, first - 1) end
for i = 1, n do redis.call('RPUSH', KEYS[5], ARGV[14 + i]) end
redis.call('HSET', KEYS[1], 'seq', seq, 'phase', ARGV[4], 'updated', ARGV[10])
if ARGV[5] ~= '' then redis.call('ZADD', KEYS[6], ARGV[5], ARGV[1]) else redis.call('ZREM', KEYS[6], ARGV[1]) end
if ARGV[4] == 'idle' or ARGV[4] == 'completed' then
  redis.call('ZADD', KEYS[7], ARGV[10], ARGV[1])
else
  redis.call('ZREM', KEYS[7], ARGV[1])
end
redis.call('PUBLISH', ARGV[13], ARGV[1] .. ' ' .. seq)
return {1, seq}
