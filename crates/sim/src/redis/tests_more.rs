//! Hand-worked tests of the newer command families and of the server's machinery (virtual
//! time, scripts, transactions, eviction, replication). Replies were checked against
//! `redis-server` 7.0.15; the differential tests compare far more of them.

use super::tests::{arr, bulk, err, int, r};
use super::*;

#[test]
fn strings() {
    let mut s = SimRedis::new(1);
    assert_eq!(r(&mut s, "SET n 10.5"), Reply::ok());
    assert_eq!(
        r(&mut s, "INCRBYFLOAT n 0.1"),
        bulk("10.6"),
        "x87 long double"
    );
    assert_eq!(
        r(&mut s, "INCRBYFLOAT n 5.0e3"),
        bulk("5010.60000000000000009")
    );
    assert_eq!(r(&mut s, "OBJECT ENCODING n"), bulk("embstr"));
    assert_eq!(
        r(&mut s, "INCRBYFLOAT n inf"),
        err("ERR increment would produce NaN or Infinity")
    );
    assert_eq!(
        r(&mut s, "DECRBY n 1"),
        err("ERR value is not an integer or out of range")
    );
    assert_eq!(r(&mut s, "SET c 5"), Reply::ok());
    assert_eq!(r(&mut s, "DECR c"), int(4));
    assert_eq!(
        r(&mut s, "DECRBY c -9223372036854775808"),
        err("ERR decrement would overflow")
    );
    assert_eq!(r(&mut s, "APPEND c 2"), int(2));
    assert_eq!(
        r(&mut s, "OBJECT ENCODING c"),
        bulk("raw"),
        "APPEND leaves it raw"
    );
    assert_eq!(r(&mut s, "SETRANGE pad 3 ab"), int(5));
    assert_eq!(r(&mut s, "GET pad"), Reply::Bulk(b"\0\0\0ab".to_vec()));
    assert_eq!(r(&mut s, "GETRANGE pad -2 -1"), bulk("ab"));
    assert_eq!(r(&mut s, "GETRANGE pad -1 -2"), bulk(""));
    assert_eq!(
        r(&mut s, "SETRANGE pad -1 x"),
        err("ERR offset is out of range")
    );
    assert_eq!(
        r(&mut s, "MSETNX a 1 pad 2"),
        int(0),
        "pad exists: nothing set"
    );
    assert_eq!(r(&mut s, "EXISTS a"), int(0));
    assert_eq!(
        r(&mut s, "MSET a 1 b"),
        err("ERR wrong number of arguments for 'mset' command")
    );
    assert_eq!(
        r(&mut s, "SETEX t 0 v"),
        err("ERR invalid expire time in 'setex' command")
    );
    assert_eq!(r(&mut s, "PSETEX t 1500 v"), Reply::ok());
    assert_eq!(r(&mut s, "GETEX t PERSIST"), bulk("v"));
    assert_eq!(r(&mut s, "TTL t"), int(-1));
    assert_eq!(r(&mut s, "GETEX t PX 100 EX 1"), err("ERR syntax error"));
    assert_eq!(
        r(&mut s, "GETEX t PXAT 1"),
        bulk("v"),
        "a past PXAT deletes after reading"
    );
    assert_eq!(r(&mut s, "EXISTS t"), int(0));
    assert_eq!(r(&mut s, "GETDEL pad"), Reply::Bulk(b"\0\0\0ab".to_vec()));
    assert_eq!(r(&mut s, "SETNX pad x"), int(1));
    assert_eq!(r(&mut s, "STRLEN pad"), int(1));
}

#[test]
fn keys_and_expiry_times() {
    let mut s = SimRedis::new(1);
    r(&mut s, "SET a 1 PX 5000");
    assert_eq!(r(&mut s, "PEXPIRETIME a"), int(EPOCH_MS + 5000));
    assert_eq!(
        r(&mut s, "EXPIRETIME a"),
        int((EPOCH_MS + 5000 + 500) / 1000)
    );
    assert_eq!(r(&mut s, "RENAME a b"), Reply::ok());
    assert_eq!(r(&mut s, "PTTL b"), int(5000), "RENAME keeps the TTL");
    assert_eq!(r(&mut s, "RENAME nope b"), err("ERR no such key"));
    r(&mut s, "SET c 2");
    assert_eq!(r(&mut s, "RENAMENX b c"), int(0));
    assert_eq!(r(&mut s, "EXPIREAT c 1"), int(1), "a past time deletes");
    assert_eq!(r(&mut s, "EXISTS c"), int(0));
    assert_eq!(
        r(&mut s, &format!("PEXPIREAT b {}", EPOCH_MS + 9000)),
        int(1)
    );
    assert_eq!(r(&mut s, "PTTL b"), int(9000));
    assert_eq!(r(&mut s, "UNLINK b nope"), int(1));
    assert_eq!(r(&mut s, "OBJECT ENCODING nope"), Reply::Nil);
    assert_eq!(
        r(&mut s, "OBJECT FROB x"),
        err("ERR unknown subcommand 'FROB'. Try OBJECT HELP.")
    );
    assert_eq!(
        r(&mut s, "object encoding"),
        err("ERR wrong number of arguments for 'object|encoding' command")
    );
}

#[test]
fn lists() {
    let mut s = SimRedis::new(1);
    r(&mut s, "RPUSH l a b c b a");
    assert_eq!(r(&mut s, "LPOS l b"), int(1));
    assert_eq!(r(&mut s, "LPOS l b RANK -1"), int(3));
    assert_eq!(
        r(&mut s, "LPOS l a COUNT 0"),
        Reply::Array(vec![int(0), int(4)])
    );
    assert_eq!(
        r(&mut s, "LPOS l a MAXLEN 2 COUNT 0"),
        Reply::Array(vec![int(0)])
    );
    assert_eq!(r(&mut s, "LPOS l a RANK 0"), err("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"));
    assert_eq!(r(&mut s, "LINDEX l -1"), bulk("a"));
    assert_eq!(r(&mut s, "LSET l 9 x"), err("ERR index out of range"));
    assert_eq!(r(&mut s, "LINSERT l BEFORE c x"), int(6));
    assert_eq!(r(&mut s, "LTRIM l 1 -2"), Reply::ok());
    assert_eq!(r(&mut s, "LRANGE l 0 -1"), arr(&["b", "x", "c", "b"]));
    assert_eq!(r(&mut s, "RPOPLPUSH l m"), bulk("b"));
    assert_eq!(r(&mut s, "OBJECT ENCODING m"), bulk("quicklist"));
    assert_eq!(
        s.execute(1, &["BLPOP", "none", "l", "1"]),
        Exec::Reply(Reply::Array(vec![bulk("l"), bulk("b")]))
    );
    assert_eq!(r(&mut s, "LTRIM l 5 1"), Reply::ok());
    assert_eq!(r(&mut s, "EXISTS l"), int(0), "trimmed to nothing: deleted");
}

#[test]
fn blocking_timeouts_round_up_to_the_millisecond() {
    let mut s = SimRedis::new(1);
    // Redis 7.0 reads 0.0001 s as 0.1 ms and rounds up: it waits 1 ms (not for ever).
    assert_eq!(
        s.execute(1, &["BLMOVE", "src", "dst", "LEFT", "RIGHT", "0.0001"]),
        Exec::Blocked
    );
    assert_eq!(s.next_timeout_ms(), Some(1));
    s.advance(1);
    let w = s.take_woken();
    assert_eq!((w[0].client, &w[0].reply, w[0].at_ms), (1, &Reply::Nil, 1));
    // A ten-day BRPOP and a huge XREAD BLOCK time out without running every cycle.
    assert_eq!(s.execute(2, &["BRPOP", "q", "864000"]), Exec::Blocked);
    assert_eq!(
        s.execute(3, &["XREAD", "BLOCK", "900000000000", "STREAMS", "st", "$"]),
        Exec::Blocked
    );
    let t = std::time::Instant::now();
    s.advance(900_000_000_000);
    assert!(t.elapsed().as_millis() < 2_000, "{:?}", t.elapsed());
    let w: Vec<(u64, u64)> = s.take_woken().iter().map(|w| (w.client, w.at_ms)).collect();
    assert_eq!(w, [(2, 1 + 864_000_000), (3, 1 + 900_000_000_000)]);
}

#[test]
fn hashes_and_their_encodings() {
    let mut s = SimRedis::new(1);
    r(&mut s, "HSET h a 1 b x");
    assert_eq!(
        r(&mut s, "HMGET h a z b"),
        Reply::Array(vec![bulk("1"), Reply::Nil, bulk("x")])
    );
    assert_eq!(r(&mut s, "HEXISTS h b"), int(1));
    assert_eq!(r(&mut s, "HSETNX h a 2"), int(0));
    assert_eq!(r(&mut s, "HINCRBYFLOAT h a 0.5"), bulk("1.5"));
    assert_eq!(
        r(&mut s, "HINCRBYFLOAT h b 1"),
        err("ERR hash value is not a float")
    );
    assert_eq!(
        r(&mut s, "HINCRBYFLOAT h a inf"),
        err("ERR value is NaN or Infinity")
    );
    assert_eq!(
        r(&mut s, "HKEYS h"),
        arr(&["a", "b"]),
        "a listpack keeps insertion order"
    );
    assert_eq!(r(&mut s, "OBJECT ENCODING h"), bulk("listpack"));
    r(&mut s, &format!("HSET h long {}", "v".repeat(65)));
    assert_eq!(r(&mut s, "OBJECT ENCODING h"), bulk("hashtable"));
    assert_eq!(r(&mut s, "HDEL h long"), int(1));
    assert_eq!(
        r(&mut s, "OBJECT ENCODING h"),
        bulk("hashtable"),
        "never back"
    );
    assert_eq!(r(&mut s, "HMSET h c 3"), Reply::ok());
    assert_eq!(r(&mut s, "HLEN h"), int(3));
}

#[test]
fn sets() {
    let mut s = SimRedis::new(1);
    assert_eq!(r(&mut s, "SADD a 3 1 2 1"), int(3));
    assert_eq!(
        r(&mut s, "SMEMBERS a"),
        arr(&["1", "2", "3"]),
        "an intset is sorted"
    );
    assert_eq!(r(&mut s, "OBJECT ENCODING a"), bulk("intset"));
    r(&mut s, "SADD b 2 3 x");
    assert_eq!(r(&mut s, "OBJECT ENCODING b"), bulk("hashtable"));
    assert_eq!(r(&mut s, "SINTER a b"), arr(&["2", "3"]));
    assert_eq!(r(&mut s, "SDIFF a b"), arr(&["1"]));
    assert_eq!(r(&mut s, "SUNION a nope"), arr(&["1", "2", "3"]));
    assert_eq!(
        r(&mut s, "SMISMEMBER a 1 9"),
        Reply::Array(vec![int(1), int(0)])
    );
    assert_eq!(r(&mut s, "SISMEMBER b x"), int(1));
    assert_eq!(
        r(&mut s, "SPOP a -1"),
        err("ERR value is out of range, must be positive")
    );
    assert_eq!(r(&mut s, "SRANDMEMBER a 0"), arr(&[]));
    let Reply::Array(five) = r(&mut s, "SRANDMEMBER a -5") else {
        panic!("an array")
    };
    assert_eq!(five.len(), 5, "a negative count repeats");
    // Seeded: the same seed pops the same members.
    let pops = |seed| {
        let mut s = SimRedis::new(seed);
        r(&mut s, "SADD t a b c d e f g");
        (r(&mut s, "SPOP t 3"), r(&mut s, "SRANDMEMBER t"))
    };
    assert_eq!(pops(7), pops(7));
    assert_ne!(pops(7), pops(8));
    assert_eq!(r(&mut s, "SPOP a 10"), arr(&["1", "2", "3"]));
    assert_eq!(r(&mut s, "EXISTS a"), int(0));
}

#[test]
fn sorted_sets_more() {
    let mut s = SimRedis::new(1);
    r(&mut s, "ZADD z 1 a 2 b 3 c");
    assert_eq!(r(&mut s, "ZCOUNT z (1 +inf"), int(2));
    assert_eq!(r(&mut s, "ZRANK z c"), int(2));
    assert_eq!(r(&mut s, "ZREVRANK z c"), int(0));
    assert_eq!(
        r(&mut s, "ZREVRANGE z 0 1 WITHSCORES"),
        arr(&["c", "3", "b", "2"])
    );
    assert_eq!(r(&mut s, "ZREVRANGE z 0 1 REV"), err("ERR syntax error"));
    assert_eq!(r(&mut s, "ZPOPMIN z"), arr(&["a", "1"]));
    r(&mut s, "SADD t b x");
    assert_eq!(r(&mut s, "ZUNIONSTORE u 2 z t WEIGHTS 2 10"), int(3));
    // b: 2·2 + 1·10 = 14; c: 3·2 = 6; x: 10 (the smaller input first, as Redis sorts them)
    assert_eq!(
        r(&mut s, "ZRANGE u 0 -1 WITHSCORES"),
        arr(&["c", "6", "x", "10", "b", "14"])
    );
    assert_eq!(
        r(&mut s, "ZUNIONSTORE u 0 z"),
        err("ERR at least 1 input key is needed for 'zunionstore' command")
    );
    assert_eq!(r(&mut s, "ZUNIONSTORE u 1 nope"), int(0));
    assert_eq!(
        r(&mut s, "EXISTS u"),
        int(0),
        "an empty result deletes the destination"
    );
}

#[test]
fn hyperloglog_small() {
    let mut s = SimRedis::new(1);
    assert_eq!(r(&mut s, "PFADD p a b c"), int(1));
    assert_eq!(r(&mut s, "PFADD p a"), int(0));
    assert_eq!(r(&mut s, "PFCOUNT p"), int(3));
    let Reply::Bulk(raw) = r(&mut s, "GET p") else {
        panic!("a string")
    };
    assert_eq!(&raw[..5], b"HYLL\x01", "sparse");
    assert_eq!(
        u64::from_le_bytes(raw[8..16].try_into().unwrap()),
        3,
        "cached count"
    );
    r(&mut s, "SET str hello");
    assert_eq!(
        r(&mut s, "PFADD str x"),
        err("WRONGTYPE Key is not a valid HyperLogLog string value.")
    );
    assert_eq!(r(&mut s, "PFMERGE m p nope"), Reply::ok());
    assert_eq!(r(&mut s, "PFCOUNT m p"), int(3));
}

#[test]
fn transactions() {
    let mut s = SimRedis::new(1);
    let mut c = |client: u64, line: &str| {
        let a = args::split_args(line).unwrap();
        match s.execute(client, &a) {
            Exec::Reply(x) => x,
            Exec::Blocked => panic!("blocked"),
        }
    };
    assert_eq!(c(1, "MULTI"), Reply::ok());
    assert_eq!(c(1, "SET a 1"), Reply::Status("QUEUED".into()));
    assert_eq!(c(1, "INCR a"), Reply::Status("QUEUED".into()));
    assert_eq!(c(1, "LPUSH a x"), Reply::Status("QUEUED".into()));
    assert_eq!(
        c(1, "EXEC"),
        Reply::Array(vec![Reply::ok(), int(2), err(super::WRONGTYPE)]),
        "no rollback: the error comes back in its place"
    );
    c(1, "MULTI");
    assert_eq!(
        c(1, "GET"),
        err("ERR wrong number of arguments for 'get' command")
    );
    assert_eq!(
        c(1, "EXEC"),
        err("EXECABORT Transaction discarded because of previous errors.")
    );
    // A watched key changed by another client: EXEC answers nil.
    assert_eq!(c(1, "WATCH a"), Reply::ok());
    assert_eq!(c(2, "SET a 5"), Reply::ok());
    c(1, "MULTI");
    c(1, "GET a");
    assert_eq!(c(1, "EXEC"), Reply::Nil);
    // Redis 7.0: a watched key that expires before EXEC also fails the transaction.
    c(2, "SET e v PX 10");
    c(1, "WATCH e");
    s.advance(11);
    let mut c = |client: u64, line: &str| match s.execute(client, &args::split_args(line).unwrap())
    {
        Exec::Reply(x) => x,
        Exec::Blocked => panic!("blocked"),
    };
    c(1, "MULTI");
    assert_eq!(c(1, "EXEC"), Reply::Nil);
    assert_eq!(c(1, "EXEC"), err("ERR EXEC without MULTI"));
    assert_eq!(c(1, "DISCARD"), err("ERR DISCARD without MULTI"));
    c(1, "MULTI");
    assert_eq!(
        c(1, "WATCH a"),
        err("ERR WATCH inside MULTI is not allowed")
    );
    assert_eq!(c(1, "MULTI"), err("ERR MULTI calls can not be nested"));
    assert_eq!(c(1, "DISCARD"), Reply::ok());
}

#[test]
fn scripts_must_be_loaded_and_keep_their_writes() {
    let mut s = SimRedis::new(1);
    let add = scripts::ADD_JOB;
    let ev = format!("EVALSHA {} 2 job:1 wait 1 send x", add.sha1);
    assert_eq!(
        r(&mut s, &ev),
        err("NOSCRIPT No matching script. Please use EVAL.")
    );
    assert_eq!(
        r(&mut s, &format!("SCRIPT EXISTS {}", add.sha1)),
        Reply::Array(vec![int(0)])
    );
    assert_eq!(
        s.call(&[b"SCRIPT", b"LOAD", add.source.as_bytes()]),
        bulk(add.sha1)
    );
    assert_eq!(r(&mut s, &ev), int(1));
    // KEYS[2] missing: the Lua has written the hash when `lpush` fails.
    let half = format!("EVALSHA {} 1 job:2 1 send x", add.sha1);
    assert!(r(&mut s, &half).is_error());
    assert_eq!(
        r(&mut s, "HGET job:2 name"),
        bulk("send"),
        "the write before the error stays"
    );
    assert_eq!(r(&mut s, "SCRIPT FLUSH"), Reply::ok());
    assert_eq!(
        r(&mut s, &ev),
        err("NOSCRIPT No matching script. Please use EVAL.")
    );
    let mut loaded = SimRedis::new(1).with_named_scripts();
    assert_eq!(r(&mut loaded, &ev), int(1));
}

#[test]
fn info_and_config() {
    let mut s = SimRedis::new(1);
    r(&mut s, "SET a 1 EX 100");
    r(&mut s, "SET b 1");
    let info = r(&mut s, "INFO keyspace");
    assert_eq!(
        info,
        bulk("# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl=0\r\n")
    );
    s.advance(100);
    let info = r(&mut s, "INFO keyspace");
    assert_eq!(
        info,
        bulk("# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl=99900\r\n"),
        "one cycle fed the moving average"
    );
    assert_eq!(
        r(
            &mut s,
            "CONFIG SET maxmemory 10mb maxmemory-policy allkeys-lru"
        ),
        Reply::ok()
    );
    assert_eq!(
        r(&mut s, "CONFIG GET maxmemory*"),
        arr(&[
            "maxmemory",
            "10485760",
            "maxmemory-policy",
            "allkeys-lru",
            "maxmemory-samples",
            "5"
        ])
    );
    assert_eq!(
        r(&mut s, "CONFIG SET maxmemory 1 hz x"),
        err("ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an integer")
    );
    assert_eq!(
        r(&mut s, "CONFIG GET maxmemory"),
        arr(&["maxmemory", "10485760"]),
        "all or nothing"
    );
    assert_eq!(r(&mut s, "DEBUG SET-ACTIVE-EXPIRE 0"), Reply::ok());
    assert_eq!(
        r(&mut s, "DEBUG SLEEP 0"),
        err("ERR unknown subcommand or wrong number of arguments for 'SLEEP'. Try DEBUG HELP.")
    );
}

/// The same commands, then time advanced once by `total` or in one-cycle steps: the same
/// counters, keys, RNG (checked by what a later sampled cycle deletes) and avg_ttl.
fn skipped_vs_stepped(total: u64) {
    let setup = |s: &mut SimRedis| {
        for i in 0..2_000u32 {
            let ttl = 1 + (i * 7_919) % 4_000; // 1 s to about an hour
            s.cmd(&["SET", &format!("k{i}"), "v", "EX", &ttl.to_string()]);
        }
        for i in 0..50 {
            s.cmd(&["SET", &format!("far{i}"), "v", "EX", "9000"]);
            s.cmd(&["SET", &format!("keep{i}"), "v"]);
        }
        assert_eq!(s.execute(9, &["BRPOP", "q", "1234.5"]), Exec::Blocked);
    };
    let mut a = SimRedis::new(3);
    let mut b = SimRedis::new(3);
    setup(&mut a);
    setup(&mut b);
    a.advance(total);
    for _ in 0..total / 100 {
        b.advance(100);
    }
    b.advance(total % 100);
    assert_eq!(a.expire_stats(), b.expire_stats());
    assert_eq!(a.snapshot(), b.snapshot());
    assert_eq!(a.take_woken(), b.take_woken());
    assert_eq!(a.cmd(&["INFO", "keyspace"]), b.cmd(&["INFO", "keyspace"]));
    // The RNG is where it would be: a new batch of expired keys is sampled alike.
    for s in [&mut a, &mut b] {
        for i in 0..500 {
            s.cmd(&["SET", &format!("n{i}"), "v", "PX", "50"]);
        }
        s.advance(350);
    }
    assert_eq!(a.expire_stats(), b.expire_stats());
    assert_eq!(a.snapshot(), b.snapshot());
}

#[test]
fn skipping_idle_time_equals_running_every_cycle() {
    skipped_vs_stepped(2 * 3_600_000 + 37);
    skipped_vs_stepped(3_000);
}

#[test]
fn rng_skip_equals_steps() {
    let mut a = crate::rng::Mulberry32::new(5);
    let mut b = a.clone();
    a.skip(1_000_003);
    for _ in 0..1_000_003 {
        b.next_u32();
    }
    assert_eq!(a, b);
}

/// Redis 7.0's rules for a key already expired when watched (checked against 7.0.15 with
/// two connections and active expiry paused): deleting it is no change, writing it is.
#[test]
fn watching_an_already_expired_key() {
    for (case, want_nil) in [
        ("SET k v2", true),
        ("GET k", false),
        ("", false),
        ("DEL k", false),
        ("FLUSHALL", false),
    ] {
        let mut s = SimRedis::new(1);
        let mut c =
            |client: u64, line: &str| match s.execute(client, &args::split_args(line).unwrap()) {
                Exec::Reply(x) => x,
                Exec::Blocked => panic!("blocked"),
            };
        c(1, "DEBUG SET-ACTIVE-EXPIRE 0");
        c(1, "SET k v PX 1");
        s.advance(10);
        let mut c =
            |client: u64, line: &str| match s.execute(client, &args::split_args(line).unwrap()) {
                Exec::Reply(x) => x,
                Exec::Blocked => panic!("blocked"),
            };
        c(1, "WATCH k");
        if !case.is_empty() {
            c(2, case);
        }
        c(1, "MULTI");
        c(1, "PING");
        let got = c(1, "EXEC");
        let want = if want_nil {
            Reply::Nil
        } else {
            Reply::Array(vec![Reply::Status("PONG".into())])
        };
        assert_eq!(got, want, "{case:?}");
    }
}
