//! Hand-worked tests per command family, with Redis 7.0's exact error texts (each was
//! checked against `redis-server` 7.0.15 with `redis-cli`).

use super::*;

pub(super) fn r(s: &mut SimRedis, line: &str) -> Reply {
    let a = args::split_args(line).expect("valid line");
    let a: Vec<&[u8]> = a.iter().map(Vec::as_slice).collect();
    s.call(&a)
}

pub(super) fn int(n: i64) -> Reply {
    Reply::Integer(n)
}

pub(super) fn bulk(s: &str) -> Reply {
    Reply::bulk(s)
}

pub(super) fn arr(items: &[&str]) -> Reply {
    Reply::Array(items.iter().map(|s| bulk(s)).collect())
}

pub(super) fn err(s: &str) -> Reply {
    Reply::err(s)
}

const WT: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";

#[test]
fn generic_errors() {
    let mut s = SimRedis::new(1);
    assert_eq!(
        r(&mut s, "frob a b"),
        err("ERR unknown command 'frob', with args beginning with: 'a' 'b' ")
    );
    assert_eq!(
        r(&mut s, "GET"),
        err("ERR wrong number of arguments for 'get' command")
    );
    assert_eq!(
        r(&mut s, "get a b"),
        err("ERR wrong number of arguments for 'get' command")
    );
    assert_eq!(
        r(&mut s, "HSET h a"),
        err("ERR wrong number of arguments for 'hset' command")
    );
    assert_eq!(
        r(&mut s, "hset h a b c"),
        err("ERR wrong number of arguments for 'hset' command")
    );
    assert_eq!(r(&mut s, "PING"), Reply::Status("PONG".into()));
}

#[test]
fn strings_and_keys() {
    let mut s = SimRedis::new(1);
    assert_eq!(r(&mut s, "SET k v"), Reply::ok());
    assert_eq!(r(&mut s, "GET k"), bulk("v"));
    assert_eq!(r(&mut s, "GET nope"), Reply::Nil);
    assert_eq!(r(&mut s, "SET k w NX"), Reply::Nil);
    assert_eq!(r(&mut s, "SET k w XX GET"), bulk("v"));
    assert_eq!(r(&mut s, "SET n 1 NX GET"), Reply::Nil);
    assert_eq!(r(&mut s, "SET k v NX XX"), err("ERR syntax error"));
    assert_eq!(r(&mut s, "SET k v EX 10 PX 100"), err("ERR syntax error"));
    assert_eq!(r(&mut s, "SET k v KEEPTTL EX 10"), err("ERR syntax error"));
    assert_eq!(r(&mut s, "SET k v EX"), err("ERR syntax error"));
    assert_eq!(
        r(&mut s, "SET k v EX 0"),
        err("ERR invalid expire time in 'set' command")
    );
    assert_eq!(
        r(&mut s, "SET k v PX -5"),
        err("ERR invalid expire time in 'set' command")
    );
    assert_eq!(
        r(&mut s, "SET k v EX 1.5"),
        err("ERR value is not an integer or out of range")
    );
    assert_eq!(r(&mut s, "INCR n"), int(2));
    assert_eq!(r(&mut s, "INCRBY n -5"), int(-3));
    assert_eq!(
        r(&mut s, "INCR k"),
        err("ERR value is not an integer or out of range")
    );
    assert_eq!(
        r(&mut s, "INCRBY n 1.5"),
        err("ERR value is not an integer or out of range")
    );
    assert_eq!(r(&mut s, "SET big 9223372036854775807"), Reply::ok());
    assert_eq!(
        r(&mut s, "INCR big"),
        err("ERR increment or decrement would overflow")
    );
    assert_eq!(r(&mut s, "SET z 007"), Reply::ok());
    assert_eq!(
        r(&mut s, "INCR z"),
        err("ERR value is not an integer or out of range")
    );
    assert_eq!(
        r(&mut s, "MGET k nope n"),
        Reply::Array(vec![bulk("w"), Reply::Nil, bulk("-3")])
    );
    assert_eq!(r(&mut s, "EXISTS k k nope"), int(2));
    assert_eq!(r(&mut s, "DEL k nope n"), int(2));
    assert_eq!(r(&mut s, "TYPE k"), Reply::Status("none".into()));
    assert_eq!(r(&mut s, "TYPE big"), Reply::Status("string".into()));
    r(&mut s, "LPUSH l a");
    assert_eq!(r(&mut s, "SET l v GET"), err(WT));
    assert_eq!(r(&mut s, "GET l"), err(WT));
    assert_eq!(r(&mut s, "INCR l"), err(WT));
    assert_eq!(r(&mut s, "SET l v"), Reply::ok(), "SET overwrites any type");
}

#[test]
fn expiry_commands() {
    let mut s = SimRedis::new(1);
    r(&mut s, "SET k v");
    assert_eq!(r(&mut s, "TTL k"), int(-1));
    assert_eq!(r(&mut s, "TTL nope"), int(-2));
    assert_eq!(r(&mut s, "EXPIRE k 10"), int(1));
    assert_eq!(r(&mut s, "PTTL k"), int(10_000));
    s.advance(1_499);
    assert_eq!(r(&mut s, "TTL k"), int(9), "8501 ms rounds to 9 s");
    assert_eq!(r(&mut s, "EXPIRE k 100 NX"), int(0));
    assert_eq!(r(&mut s, "EXPIRE k 5 GT"), int(0));
    assert_eq!(r(&mut s, "EXPIRE k 5 LT"), int(1));
    assert_eq!(r(&mut s, "PEXPIRE k 6000 XX GT"), int(1));
    assert_eq!(
        r(&mut s, "EXPIRE k 10 NX XX"),
        err("ERR NX and XX, GT or LT options at the same time are not compatible")
    );
    assert_eq!(
        r(&mut s, "EXPIRE k 10 GT LT"),
        err("ERR GT and LT options at the same time are not compatible")
    );
    assert_eq!(
        r(&mut s, "EXPIRE k 10 foo"),
        err("ERR Unsupported option foo")
    );
    assert_eq!(
        r(&mut s, "EXPIRE k abc"),
        err("ERR value is not an integer or out of range")
    );
    assert_eq!(
        r(&mut s, "EXPIRE k 9999999999999999"),
        err("ERR invalid expire time in 'expire' command")
    );
    assert_eq!(r(&mut s, "PERSIST k"), int(1));
    assert_eq!(r(&mut s, "PERSIST k"), int(0));
    assert_eq!(r(&mut s, "EXPIRE nope 10"), int(0));
    assert_eq!(r(&mut s, "EXPIRE k -1"), int(1), "a past time deletes");
    assert_eq!(r(&mut s, "EXISTS k"), int(0));
    // SET clears a TTL, KEEPTTL keeps it; other writes keep it.
    r(&mut s, "SET k v PX 1000");
    r(&mut s, "SET k w KEEPTTL");
    assert_eq!(r(&mut s, "PTTL k"), int(1000));
    r(&mut s, "SET k 1");
    assert_eq!(r(&mut s, "PTTL k"), int(-1));
    r(&mut s, "SET k 1 PX 1000");
    r(&mut s, "INCR k");
    assert_eq!(r(&mut s, "PTTL k"), int(1000));
    // Alive at exactly its expiry time, gone one ms later (Redis: expired when now > when).
    s.advance(1000);
    assert_eq!(r(&mut s, "GET k"), bulk("2"));
    s.advance(1);
    assert_eq!(r(&mut s, "GET k"), Reply::Nil);
    // The cron tick at 2500 ms reclaimed it just before the GET.
    assert_eq!(s.expire_stats().active, 1);
}

#[test]
fn active_expiry_reclaims_untouched_keys_deterministically() {
    let run = |seed| {
        let mut s = SimRedis::new(seed);
        for i in 0..1000 {
            r(&mut s, &format!("SET k{i} v PX {}", 50 + i % 500));
            r(&mut s, &format!("SET p{i} v"));
        }
        let mut sizes = Vec::new();
        for _ in 0..12 {
            s.advance(100);
            sizes.push(s.dbsize());
        }
        (sizes, s.expire_stats())
    };
    let (sizes, st) = run(7);
    assert_eq!((sizes.clone(), st), run(7), "same seed, same reclaiming");
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
    assert_eq!(
        *sizes.last().unwrap(),
        1000,
        "only the persistent keys remain"
    );
    assert_eq!(st.active, 1000);
    assert_eq!(st.lazy, 0);
    assert_eq!(st.cycles, 12);
    // With active expiry off, the keys stay until touched.
    let mut s = SimRedis::with_config(
        1,
        ExpireConfig {
            hz: 0,
            ..ExpireConfig::default()
        },
    );
    r(&mut s, "SET a v PX 10");
    s.advance(1000);
    assert_eq!(s.dbsize(), 1);
    assert_eq!(r(&mut s, "GET a"), Reply::Nil);
    assert_eq!(s.dbsize(), 0);
}

#[test]
fn lists() {
    let mut s = SimRedis::new(1);
    assert_eq!(r(&mut s, "RPUSH l a b c"), int(3));
    assert_eq!(r(&mut s, "LPUSH l z"), int(4));
    assert_eq!(r(&mut s, "LRANGE l 0 -1"), arr(&["z", "a", "b", "c"]));
    assert_eq!(r(&mut s, "LRANGE l -2 100"), arr(&["b", "c"]));
    assert_eq!(r(&mut s, "LRANGE l 3 1"), arr(&[]));
    assert_eq!(
        r(&mut s, "LRANGE l a 1"),
        err("ERR value is not an integer or out of range")
    );
    assert_eq!(r(&mut s, "LLEN l"), int(4));
    assert_eq!(r(&mut s, "LPOP l"), bulk("z"));
    assert_eq!(r(&mut s, "RPOP l 2"), arr(&["c", "b"]));
    assert_eq!(r(&mut s, "LPOP l 0"), arr(&[]));
    assert_eq!(
        r(&mut s, "LPOP l -1"),
        err("ERR value is out of range, must be positive")
    );
    assert_eq!(
        r(&mut s, "LPOP l 1 2"),
        err("ERR wrong number of arguments for 'lpop' command")
    );
    assert_eq!(r(&mut s, "LPOP nope 2"), Reply::Nil);
    assert_eq!(r(&mut s, "RPUSH r x y x z x"), int(5));
    assert_eq!(r(&mut s, "LREM r -2 x"), int(2));
    assert_eq!(r(&mut s, "LRANGE r 0 -1"), arr(&["x", "y", "z"]));
    assert_eq!(r(&mut s, "LREM r 0 x"), int(1));
    assert_eq!(r(&mut s, "LMOVE r dst LEFT RIGHT"), bulk("y"));
    assert_eq!(r(&mut s, "LMOVE r r RIGHT LEFT"), bulk("z"), "rotation");
    assert_eq!(r(&mut s, "LMOVE r dst LEFT up"), err("ERR syntax error"));
    assert_eq!(r(&mut s, "LMOVE nope dst LEFT LEFT"), Reply::Nil);
    r(&mut s, "SET str v");
    assert_eq!(r(&mut s, "LMOVE r str LEFT LEFT"), err(WT));
    assert_eq!(r(&mut s, "LPUSH str a"), err(WT));
    assert_eq!(r(&mut s, "LLEN str"), err(WT));
    assert_eq!(r(&mut s, "LMOVE r dst LEFT LEFT"), bulk("z"));
    assert_eq!(r(&mut s, "EXISTS r"), int(0), "an emptied list is deleted");
    assert_eq!(r(&mut s, "LRANGE dst 0 -1"), arr(&["z", "y"]));
}

#[test]
fn blocking_lists() {
    let mut s = SimRedis::new(1);
    assert_eq!(r(&mut s, "BRPOP q -1"), err("ERR timeout is negative"));
    assert_eq!(
        r(&mut s, "BRPOP q abc"),
        err("ERR timeout is not a float or out of range")
    );
    assert_eq!(r(&mut s, "BLMOVE a b left up 0"), err("ERR syntax error"));
    // Not allowed to block (call): nil at once.
    assert_eq!(r(&mut s, "BRPOP q 0"), Reply::Nil);
    // Three clients block; pushes serve them in the order they blocked.
    assert_eq!(s.execute(1, &["BRPOP", "q", "0"]), Exec::Blocked);
    assert_eq!(
        s.execute(2, &["BRPOPLPUSH", "q", "done", "0"]),
        Exec::Blocked
    );
    assert_eq!(
        s.execute(3, &["BLMOVE", "done", "q2", "LEFT", "RIGHT", "1.5"]),
        Exec::Blocked
    );
    assert!(s.is_blocked(1) && s.is_blocked(2) && s.is_blocked(3));
    s.advance(10);
    assert_eq!(s.execute(9, &["LPUSH", "q", "a", "b"]), Exec::Reply(int(2)));
    let w = s.take_woken();
    // q = [b, a]: client 1 pops a (right), client 2 moves b to done, which serves client 3.
    assert_eq!(
        w,
        vec![
            Woken {
                client: 1,
                reply: arr(&["q", "a"]),
                at_ms: 10
            },
            Woken {
                client: 2,
                reply: bulk("b"),
                at_ms: 10
            },
            Woken {
                client: 3,
                reply: bulk("b"),
                at_ms: 10
            },
        ]
    );
    assert_eq!(r(&mut s, "LRANGE q2 0 -1"), arr(&["b"]));
    assert_eq!(r(&mut s, "EXISTS q done"), int(0));
    // Timeouts fire at their deadline in virtual time.
    assert_eq!(s.execute(4, &["BRPOP", "x", "y", "0.25"]), Exec::Blocked);
    assert_eq!(s.next_timeout_ms(), Some(260));
    s.advance(249);
    assert!(s.take_woken().is_empty());
    s.advance(1);
    assert_eq!(
        s.take_woken(),
        vec![Woken {
            client: 4,
            reply: Reply::Nil,
            at_ms: 260
        }]
    );
    assert!(!s.is_blocked(4));
    // A wrong type answers at once; a non-empty list pops at once.
    r(&mut s, "SET str v");
    assert_eq!(s.execute(5, &["BRPOP", "str", "0"]), Exec::Reply(err(WT)));
    r(&mut s, "RPUSH l 1");
    assert_eq!(
        s.execute(5, &["BRPOP", "nope", "l", "0"]),
        Exec::Reply(arr(&["l", "1"]))
    );
    // A BLMOVE whose destination became a string is told WRONGTYPE when served.
    assert_eq!(
        s.execute(6, &["BLMOVE", "src", "str", "LEFT", "LEFT", "0"]),
        Exec::Blocked
    );
    r(&mut s, "RPUSH src e");
    assert_eq!(s.take_woken()[0].reply, err(WT));
    assert_eq!(r(&mut s, "LLEN src"), int(1));
    // A client that disconnects stops waiting.
    assert_eq!(s.execute(7, &["BRPOP", "w", "0"]), Exec::Blocked);
    s.disconnect(7);
    r(&mut s, "RPUSH w 1");
    assert!(s.take_woken().is_empty());
}

#[test]
fn hashes() {
    let mut s = SimRedis::new(1);
    assert_eq!(r(&mut s, "HSET h a 1 b 2"), int(2));
    assert_eq!(r(&mut s, "HSET h a 3 c 4"), int(1));
    assert_eq!(r(&mut s, "HGET h a"), bulk("3"));
    assert_eq!(r(&mut s, "HGET h z"), Reply::Nil);
    assert_eq!(r(&mut s, "HGETALL h"), arr(&["a", "3", "b", "2", "c", "4"]));
    assert_eq!(r(&mut s, "HLEN h"), int(3));
    assert_eq!(r(&mut s, "HINCRBY h a 5"), int(8));
    assert_eq!(r(&mut s, "HINCRBY h new -2"), int(-2));
    assert_eq!(
        r(&mut s, "HINCRBY h a x"),
        err("ERR value is not an integer or out of range")
    );
    r(&mut s, "HSET h s text");
    assert_eq!(
        r(&mut s, "HINCRBY h s 1"),
        err("ERR hash value is not an integer")
    );
    r(&mut s, "HSET h m 9223372036854775807");
    assert_eq!(
        r(&mut s, "HINCRBY h m 1"),
        err("ERR increment or decrement would overflow")
    );
    assert_eq!(r(&mut s, "HDEL h a b zz"), int(2));
    assert_eq!(r(&mut s, "HDEL h c new s m"), int(4));
    assert_eq!(r(&mut s, "EXISTS h"), int(0));
    assert_eq!(r(&mut s, "HGETALL h"), arr(&[]));
    r(&mut s, "SET str v");
    for c in [
        "HSET str a 1",
        "HGET str a",
        "HGETALL str",
        "HDEL str a",
        "HLEN str",
        "HINCRBY str a 1",
    ] {
        assert_eq!(r(&mut s, c), err(WT), "{c}");
    }
}

#[test]
fn sorted_sets() {
    let mut s = SimRedis::new(1);
    assert_eq!(r(&mut s, "ZADD z 1 a 2 b 3 c"), int(3));
    assert_eq!(r(&mut s, "ZADD z CH 5 a 2 b 4 d"), int(2));
    assert_eq!(r(&mut s, "ZRANGE z 0 -1"), arr(&["b", "c", "d", "a"]));
    assert_eq!(
        r(&mut s, "ZRANGE z 0 1 WITHSCORES"),
        arr(&["b", "2", "c", "3"])
    );
    assert_eq!(r(&mut s, "ZRANGE z 0 0 REV"), arr(&["a"]));
    assert_eq!(
        r(&mut s, "ZRANGE z (2 +inf BYSCORE LIMIT 1 2"),
        arr(&["d", "a"])
    );
    assert_eq!(
        r(&mut s, "ZRANGE z +inf (2 BYSCORE REV LIMIT 0 2 WITHSCORES"),
        arr(&["a", "5", "d", "4"])
    );
    assert_eq!(r(&mut s, "ZRANGEBYSCORE z 3 4"), arr(&["c", "d"]));
    assert_eq!(r(&mut s, "ZRANGEBYSCORE z -inf +inf LIMIT -1 5"), arr(&[]));
    assert_eq!(
        r(&mut s, "ZRANGEBYSCORE z -inf +inf LIMIT 1 -1"),
        arr(&["c", "d", "a"])
    );
    assert_eq!(
        r(&mut s, "ZRANGE z 0 -1 LIMIT 0 1"),
        err(
            "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
        )
    );
    assert_eq!(
        r(&mut s, "ZRANGEBYSCORE z 0 1 REV"),
        err("ERR syntax error")
    );
    assert_eq!(
        r(&mut s, "ZRANGEBYSCORE z a b"),
        err("ERR min or max is not a float")
    );
    assert_eq!(
        r(&mut s, "ZRANGE z a 1"),
        err("ERR value is not an integer or out of range")
    );
    assert_eq!(r(&mut s, "ZSCORE z a"), bulk("5"));
    assert_eq!(r(&mut s, "ZSCORE z zz"), Reply::Nil);
    assert_eq!(r(&mut s, "ZINCRBY z 0.1 a"), bulk("5.0999999999999996"));
    assert_eq!(r(&mut s, "ZADD z INCR 1 new"), bulk("1"));
    assert_eq!(r(&mut s, "ZADD z NX INCR 1 new"), Reply::Nil);
    assert_eq!(r(&mut s, "ZADD z GT 0 new"), int(0));
    assert_eq!(r(&mut s, "ZSCORE z new"), bulk("1"));
    assert_eq!(r(&mut s, "ZADD z LT CH 0 new"), int(1));
    assert_eq!(r(&mut s, "ZADD z XX 1 ghost"), int(0));
    assert_eq!(r(&mut s, "ZADD nz XX 1 ghost"), int(0));
    assert_eq!(r(&mut s, "EXISTS nz"), int(0));
    assert_eq!(
        r(&mut s, "ZADD z NX XX 1 a"),
        err("ERR XX and NX options at the same time are not compatible")
    );
    assert_eq!(
        r(&mut s, "ZADD z GT LT 1 a"),
        err("ERR GT, LT, and/or NX options at the same time are not compatible")
    );
    assert_eq!(
        r(&mut s, "ZADD z INCR 1 a 2 b"),
        err("ERR INCR option supports a single increment-element pair")
    );
    assert_eq!(r(&mut s, "ZADD z 1 a 2"), err("ERR syntax error"));
    assert_eq!(
        r(&mut s, "ZADD z x a"),
        err("ERR value is not a valid float")
    );
    assert_eq!(
        r(&mut s, "ZADD z nan a"),
        err("ERR value is not a valid float")
    );
    assert_eq!(r(&mut s, "ZINCRBY z +inf a"), bulk("inf"));
    assert_eq!(
        r(&mut s, "ZINCRBY z -inf a"),
        err("ERR resulting score is not a number (NaN)")
    );
    assert_eq!(r(&mut s, "ZCARD z"), int(5));
    assert_eq!(r(&mut s, "ZREMRANGEBYSCORE z (2 4"), int(2));
    assert_eq!(r(&mut s, "ZREM z a b nope"), int(2));
    assert_eq!(r(&mut s, "ZRANGE z 0 -1 WITHSCORES"), arr(&["new", "0"]));
    assert_eq!(r(&mut s, "ZREM z new"), int(1));
    assert_eq!(r(&mut s, "EXISTS z"), int(0));
    r(&mut s, "SET str v");
    for c in [
        "ZADD str 1 a",
        "ZCARD str",
        "ZRANGE str 0 1",
        "ZSCORE str a",
        "ZREM str a",
        "ZINCRBY str 1 a",
        "ZREMRANGEBYSCORE str 0 1",
        "ZRANGEBYSCORE str 0 1",
    ] {
        assert_eq!(r(&mut s, c), err(WT), "{c}");
    }
}

#[test]
fn scripts_release_and_extend() {
    let mut s = SimRedis::new(1).with_named_scripts();
    let rel = scripts::RELEASE.sha1;
    let ext = scripts::EXTEND.sha1;
    r(&mut s, "SET lock tok PX 1000");
    assert_eq!(r(&mut s, &format!("EVALSHA {ext} 1 lock bad 5000")), int(0));
    assert_eq!(r(&mut s, &format!("EVALSHA {ext} 1 lock tok 5000")), int(1));
    assert_eq!(r(&mut s, "PTTL lock"), int(5000));
    assert_eq!(r(&mut s, &format!("EVALSHA {rel} 1 lock bad")), int(0));
    assert_eq!(
        r(
            &mut s,
            &format!("EVALSHA {} 1 lock tok", rel.to_uppercase())
        ),
        int(1)
    );
    assert_eq!(r(&mut s, "EXISTS lock"), int(0));
    assert_eq!(r(&mut s, &format!("EVALSHA {rel} 1 lock tok")), int(0));
    r(&mut s, "LPUSH l x");
    assert_eq!(
        r(&mut s, &format!("EVALSHA {rel} 1 l tok")),
        err(&format!("{WT} script: {rel}, on @user_script:1."))
    );
    assert_eq!(
        r(&mut s, &format!("EVALSHA {rel} 0")),
        err(&format!("ERR Lua redis lib command arguments must be strings or integers script: {rel}, on @user_script:1."))
    );
    r(&mut s, "SET lock tok");
    assert_eq!(
        r(&mut s, &format!("EVALSHA {ext} 1 lock tok abc")),
        err(&format!(
            "ERR value is not an integer or out of range script: {ext}, on @user_script:1."
        ))
    );
    assert_eq!(r(&mut s, &format!("EVALSHA {ext} 1 lock tok -5")), int(1));
    assert_eq!(
        r(&mut s, "EXISTS lock"),
        int(0),
        "a negative PEXPIRE deletes"
    );
    assert_eq!(
        r(&mut s, &format!("EVALSHA {rel} 2 lock")),
        err("ERR Number of keys can't be greater than number of args")
    );
    assert_eq!(
        r(&mut s, &format!("EVALSHA {rel} -1 lock")),
        err("ERR Number of keys can't be negative")
    );
    assert_eq!(
        r(&mut s, "EVALSHA abc 1 lock"),
        err("NOSCRIPT No matching script. Please use EVAL.")
    );
    assert_eq!(
        r(
            &mut s,
            "EVALSHA 0123456789abcdef0123456789abcdef01234567 1 lock"
        ),
        err("NOSCRIPT No matching script. Please use EVAL.")
    );
    assert_eq!(
        r(
            &mut s,
            &format!("SCRIPT EXISTS {rel} abc {}", ext.to_uppercase())
        ),
        Reply::Array(vec![int(1), int(0), int(1)])
    );
    let load = s.call(&[b"SCRIPT", b"LOAD", scripts::RELEASE.source.as_bytes()]);
    assert_eq!(load, bulk(rel));
    r(&mut s, "SET lock tok");
    let eval = s.call(&[
        b"EVAL",
        scripts::RELEASE.source.as_bytes(),
        b"1",
        b"lock",
        b"tok",
    ]);
    assert_eq!(eval, int(1));
    assert_eq!(scripts::find(b"release").map(|s| s.sha1), Some(rel));
}

#[test]
fn script_sha1s_are_the_sources_sha1() {
    // Real Redis names a script by the SHA1 of its source; `sha1sum` is the oracle here and
    // `tests/redis_differential.rs` asserts SCRIPT LOAD on a real server agrees.
    for s in SCRIPTS {
        let out = std::process::Command::new("sh")
            .args(["-c", "printf '%s' \"$SRC\" | sha1sum"])
            .env("SRC", s.source)
            .output();
        let Ok(out) = out else { continue };
        let hex = String::from_utf8_lossy(&out.stdout);
        if hex.len() >= 40 {
            assert_eq!(&hex[..40], s.sha1, "{}", s.name);
        }
        assert_eq!(s.sha1.len(), 40);
        assert!(s
            .sha1
            .bytes()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    }
}

#[test]
fn snapshot_lists_live_keys_in_order() {
    let mut s = SimRedis::new(1);
    r(&mut s, "SET b v PX 100");
    r(&mut s, "RPUSH a x");
    r(&mut s, "SET c v PX 10");
    s.advance(50);
    assert_eq!(
        s.snapshot(),
        vec![(b"a".to_vec(), "list", -1), (b"b".to_vec(), "string", 50)]
    );
}

#[test]
fn watch_sees_del() {
    let mut s = SimRedis::new(1);
    r(&mut s, "SET h0 v");
    assert_eq!(r(&mut s, "WATCH h1 h0"), Reply::ok());
    assert_eq!(r(&mut s, "DEL l1 h0"), int(1));
    assert_eq!(r(&mut s, "MULTI"), Reply::ok());
    assert_eq!(r(&mut s, "GET t2"), Reply::Status("QUEUED".into()));
    assert_eq!(r(&mut s, "EXEC"), Reply::Nil);
}
