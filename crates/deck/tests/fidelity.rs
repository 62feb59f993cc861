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
            "১,৫০০ms",
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
            "| ৬০০s |",
            "১২০s",
            "@socket.io/redis-adapter",
            "~৭০ বাইট",
            "১২ KB",
            "০.৮১%",
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
            "২৩টার ২০টা",
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
            "৩৯.১%",
            "৪৮.৭%",
            "৫৯.৯%",
            "৩৪.৭%",
            "৪৮.২%",
            "২২.২%",
            "৩৯.০%",
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
            "৫০৩",
            "৪৭৫",
            "১১৭",
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
            "Redis ৭.০",
            // BullMQ blocks on its own duplicate connection; the stream consumer blocks ours.
            "duplicate",
            "BZPOPMIN",
            "BRPOPLPUSH",
            "`XREADGROUP … BLOCK`",
            // 20 strict call sites of 23.
            "২৩টা কল সাইট",
            "২০টা ডাকে `getOrLoadStrictCache`",
            // HyperLogLog sizes.
            "dense রূপে",
            "sparse রূপে",
            "১২,৩০৪ বাইট",
            "hll-sparse-max-bytes",
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
            "allkeys-* বা volatile-*",
            "সবচেয়ে কম সম্প্রতি ব্যবহৃত",
        ],
    );
}

/// Seed 004, one notification to 5,00,000 devices: every figure, command, key and identifier of
/// its 27 steps, and the deck's shape (29 slides: the cover, 27 steps, the recap). Figures are
/// written the decks' one way (`১,৫০০ms`, `৩৯.১%`): the same values as the seeds'.
#[test]
fn broadcast_keeps_seed_004s_facts() {
    let text = deck("broadcast");
    let slides = text.split("\n---\n").count() - 1;
    assert_eq!(slides, 29, "broadcast.md has {slides} slides");
    assert_all(
        "broadcast",
        &[
            // Steps 00–02: the loop inside the request.
            "৫,০০,০০০ টোকেন",
            "`/broadcast`",
            "for (const t of tokens)",
            "৩,২১৪ / ৫,০০,০০০",
            "১০ মিনিট ৪২ সেকেন্ড",
            "≈ ২০০ms",
            "৫,০০,০০০ × ২০০ms",
            "প্রায় ২৭ ঘণ্টা",
            "≈ ২৭.৮ ঘণ্টা",
            "১,০০,০০০ সেকেন্ড",
            "৩০ সেকেন্ড",
            "Nginx",
            "৪,৯৬,৭৮৬",
            "৪.৯৬ লাখ",
            // Step 03: enqueue and answer.
            "BullMQ · Redis",
            "`200 OK` · ~৪০ms",
            // Steps 04–05: paging.
            "findMany()",
            "OUT OF MEMORY",
            "skip: 0 → 5000 → 10000 → …",
            "`skip: 495000`",
            "৪,৯৫,০০০",
            "cursor: { courseId_studentId } · take: 5000",
            "`async function*`",
            "`yield`",
            // Steps 06–07: chunks of 500.
            "sendEachForMulticast",
            "max 500 / call",
            "৫০১টা",
            "REJECTED",
            "`chunk(tokens, 500)`",
            "৫,০০,০০০ ÷ ৫০০",
            "১,০০০",
            // Steps 08–09: all at once, then a throttle.
            "429",
            "`throttle.wait()`",
            "`maxBatchesPerSec: 10`",
            "১০ × ৫০০ = ৫,০০০",
            "৫,০০০ notification/sec",
            "~১০০ সেকেন্ডে",
            // Steps 10–13: dedup and the lock.
            "SET key 1 NX EX 900",
            "OK · null · null",
            "EX 900",
            "`tok = a1b2`",
            "`c3d4`",
            "redis.call(\"GET\", KEYS[1]) == ARGV[1]",
            "`if GET == ARGV[1] then DEL`",
            // Steps 14–17: retries, the failed set, dead tokens.
            "attempts: 3",
            "type: \"exponential\", delay: 10000",
            "delayed set",
            "failed set",
            "| ১০s |",
            "| ২০s |",
            "| ৪০s |",
            "token-not-registered",
            "invalid-token",
            "`isValid = false`",
            "updateMany",
            // Steps 18–27: the read side.
            "৩–৪টা কোয়েরি",
            "`freshUntil`",
            "ফিড ২০s, অথ ৬০s, পারমিশন ১২০s",
            "cache stampede",
            "১০,০০০",
            "singleFlight",
            "৪০–১০০ms",
            "heartbeat",
            "প্রতি ৩০ সেকেন্ডে",
            "±১০%",
            "২৭ থেকে ৩৩ সেকেন্ডের",
            "applyJitter(ttl, 0.1)",
            "`freshTtl`",
            "SCAN",
            "INCR …:version",
            "41 → 42",
            "…:list:…:v41",
            "…:list:…:v42",
            "ioredis",
            "১,৫০০ms",
            "commandTimeout: 1500",
            "catch",
            "loader()",
        ],
    );
}

/// Where seed 004 is wrong about BullMQ, Redis or its clients, or its own numbers disagree, the
/// deck says what is true, with the exact options and figures.
#[test]
fn broadcast_states_the_corrections() {
    let text = deck("broadcast");
    let notes = text.matches("! সংশোধন:").count();
    assert!(
        notes >= 7,
        "broadcast.md has {notes} correction notes (7 wanted)"
    );
    assert_all(
        "broadcast",
        &[
            // A 30 s timeout and a counter at 10 min 42 s: the loop outlived the connection.
            "৬৪২ সেকেন্ডে ২০০ms করে কল হয় ≈ ৩,২১০টা",
            // Jobs survive what Redis survives.
            "AOF",
            "`maxmemory-policy noeviction`",
            // No job timeout in BullMQ: failure with attempts left, or a stalled job.
            "`lockDuration: 30000`",
            "*stalled*",
            "`jobId`",
            // A failed job is kept, not deleted (the scripts of steps 14 and 15).
            "failedReason",
            "removeOnFail",
            // attempts: 3 is two retries: waits of 10 s and 20 s.
            "`attempts: 3`-এ চলা তিনবার",
            "`attempts: 4`",
            // The Admin SDK's error codes in full.
            "`messaging/registration-token-not-registered`",
            "`messaging/invalid-argument`",
            // KEYS blocks; SCAN is incremental.
            "আটকায় KEYS",
            "`COUNT 10`",
            // ioredis defaults.
            "`commandTimeout` নেই",
            "`maxRetriesPerRequest: 20`",
        ],
    );
}
