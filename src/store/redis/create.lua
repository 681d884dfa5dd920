-- KEYS: meta deadlines sessions
-- ARGV: 1 id, 2 created (RFC 3339), 3 owner or '', 4 deadline ms or '', 5 created ms
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, 'the session exists'} end
redis.call('HSET', KEYS[1], 'created', ARGV[2], 'seq', 0, 'phase', 'greeting', 'updated', ARGV[5])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'owner', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1]) end
redis.call('ZADD', KEYS[3], 0, ARGV[1])
return {1, 0}
