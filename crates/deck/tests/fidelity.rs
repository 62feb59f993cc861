//! The decks keep the seeds' facts: commands, key names, identifiers and figures appear exactly
//! as the seeds write them (our Bengali around them is our own).

fn deck(id: &str) -> String {
    let path = format!("{}/../../src/decks/{id}.md", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

fn assert_all(id: &str, facts: &[&str]) {
    let text = deck(id);
    let missing: Vec<&&str> = facts.iter().filter(|f| !text.contains(**f)).collect();
    assert!(
        missing.is_empty(),
        "{id}.md lost facts of its seed: {missing:?}"
    );
}

/// Seed 000, "Redis in Production".
#[test]
fn production_keeps_seed_000s_facts() {
    assert_all(
        "production",
        &[
            "redisConnection",
            "redisPubClient",
            "redisSubClient",
            "redisCacheConnection",
            "১৫০০ms",
            "maxRetries ১",
            "connectRedis()",
            "freshUntil",
            "±১০%",
            "৯৫%",
            "getOrLoadStrictCache",
            "staleTtlMs = 0",
            "singleFlight",
            "৪০–১০০ms",
            "startLockHeartbeat",
            "lockTtl/3",
            "PEXPIRE",
            "redis.call(\"GET\", KEYS[1]) == ARGV[1]",
            "crypto.randomUUID()",
            "cache:auth:user:v1:student:a91f…",
            "invalidateCourseStudentAccess",
            "Promise.allSettled",
            "cache:course-catalog:v1:version",
            "sv3:cv41",
            "getCachedAuthUser",
            "getCachedCourseContext",
            "hasCourseStudentAccess",
            "১০ মিনিট",
            "১২০s",
            "@socket.io/redis-adapter",
            "~৭০ বাইট",
            "১২ KB",
            "~০.৮%",
            "১,২৪,৩৮২",
            "ZREMRANGEBYSCORE",
            "PFCOUNT",
            "watchMarkActive",
            "defineCommand",
            "EVALSHA",
            "markActive",
            "onlineCount",
            "shouldEmit",
            "৫০ হাজার",
            "১২০ms",
            "requeue()",
            "unref()",
            "MAXLEN ~ 100000",
            "BLOCK 5000",
            "saveChats()",
            "XAUTOCLAIM",
            "XPENDING",
            "logInRouteLimiter",
            "normalizeIdentifier",
            "allkeys-lru",
            "noeviction",
            "AOF",
            "৭৫%",
            "redis_exporter",
            "৪০%",
            "২৩টার মধ্যে ২০টা",
            "HSCAN",
            "getWatchUsers",
            "SLOWLOG",
            "Sentinel",
        ],
    );
}

/// Seed 001, eviction and invalidation: its tables' figures are stated, not only computed.
#[test]
fn eviction_keeps_seed_001s_facts() {
    assert_all(
        "eviction",
        &[
            "39.1%",
            "48.7%",
            "59.9%",
            "34.7%",
            "48.2%",
            "22.2%",
            "39.0%",
            "maxmemory 4gb",
            "maxmemory-policy allkeys-lfu",
            "maxmemory-samples 10",
            "lfu-decay-time 1",
            "lfu-log-factor 10",
            "GETEX",
            "SET lock:product:42 9f3c1a NX PX 2000",
            "INCR plist:ns",
            "user:42:v8",
            "plist:ns5:page:3",
            "১৯৯৪",
            "২০০৩",
            "২০১৭",
            "১৯৬৬",
            "২০১৫",
            "Phil Karlton",
            "৭২০",
            "১৪,৫০০",
            "৮,০০০",
            "১২ MB",
            "503",
            "475",
            "117",
            "XFetch",
            "Caffeine",
            "ZFS",
            "W-TinyLFU",
        ],
    );
}

/// Where seed 000 is wrong about Redis, the production deck says what Redis does, in a visible
/// "সংশোধন" note, and keeps the exact commands, errors and figures of the correction.
#[test]
fn production_states_the_corrections() {
    let text = deck("production");
    let notes = text.matches("! সংশোধন:").count();
    assert!(
        notes >= 7,
        "production.md has {notes} correction notes (7 wanted)"
    );
    assert_all(
        "production",
        &[
            // Cover: the seed's series line.
            "kicker: Backend System Design · বাংলা · পর্ব ২",
            // Subscribed connections (RESP2) and sharded pub/sub.
            "SUBSCRIBE, SSUBSCRIBE, PSUBSCRIBE, UNSUBSCRIBE, SUNSUBSCRIBE, PUNSUBSCRIBE, PING, RESET আর QUIT",
            "RESP3",
            "SPUBLISH/SSUBSCRIBE",
            "Redis 7.0",
            // BullMQ blocks on its own duplicate connection; the stream consumer blocks ours.
            "duplicate",
            "`BZPOPMIN`",
            "`BRPOPLPUSH`",
            "`XREADGROUP … BLOCK`",
            // 20 strict call sites of 23.
            "২৩টা কল সাইট",
            "২০টা strict",
            // HyperLogLog sizes.
            "dense encoding",
            "sparse encoding",
            "১২২৮৮ বাইট",
            "৩৬ KB",
            // Pipeline or MULTI/EXEC also take one round trip; Lua adds check-then-write.
            "pipeline বা MULTI/EXEC",
            // Streams: XACK, trimming, redelivery.
            "PEL",
            "XDEL",
            "`MAXLEN ~`",
            "at-least-once",
            "idempotent",
            // maxmemory under noeviction; LRU is least recently used.
            "OOM error",
            "command not allowed when used memory > 'maxmemory'",
            "`allkeys-*` বা `volatile-*`",
            "*ব্যবহৃত*",
        ],
    );
}
