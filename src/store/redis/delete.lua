-- KEYS: meta log snaps ids goals deadlines finished sessions; ARGV: id, channel
for i = 1, 5 do redis.call('DEL', KEYS[i]) end
redis.call('ZREM', KEYS[6], ARGV[1])
redis.call('ZREM', KEYS[7], ARGV[1])
redis.call('ZREM', KEYS[8], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[1] .. ' 0')
return {1, 0}
