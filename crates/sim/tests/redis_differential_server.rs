//! SimRedis against a real Redis 7 on what a random stream of single-client commands cannot
//! show (see `tests/common` for the server):
//!
//! * `encodings_agree_across_every_threshold`: OBJECT ENCODING of strings (int / embstr /
//!   raw at 20 digits and 44 bytes, and after APPEND, SETRANGE, INCR, INCRBYFLOAT), lists,
//!   hashes (512 fields, 64-byte fields and values), sets (512 integers, a non-integer),
//!   sorted sets (128 members, 64-byte members, ZUNIONSTORE's result), each one step
//!   before and after the limit, with HGETALL / SMEMBERS / ZRANGE and the one-page
//!   HSCAN / SSCAN / ZSCAN of the small encodings compared exactly.
//! * `transactions_of_two_clients_agree`: seeded histories of two clients — WATCH,
//!   UNWATCH, MULTI, queued commands (some with syntax errors, some refused at queue time),
//!   EXEC, DISCARD — while the other client writes, deletes, expires or flushes watched
//!   keys; every reply agrees, EXEC's nil and EXECABORT included.
//! * `keyspace_counts_after_ttl_histories_agree`: with active expiry paused on both sides
//!   (`DEBUG SET-ACTIVE-EXPIRE 0`, so what is reclaimed depends only on the commands), a
//!   seeded history of keys with 1–5 ms TTLs, long TTLs and none, then reads, deletes and
//!   PERSIST after the short TTLs have passed: DBSIZE, `INFO keyspace` (keys, expires,
//!   avg_ttl 0) and `expired_keys` agree. The real server is run with
//!   `--enable-debug-command local`; waiting for the short TTLs polls the wall clock.
//! * `noeviction_answers_oom_and_memory_is_estimated`: with `maxmemory` under what the
//!   server uses, writes flagged `denyoom` answer Redis' OOM error (in MULTI too: EXEC
//!   aborts), reads, DEL and EXPIRE still work; and SimRedis' `used_memory` for 20,000
//!   small strings is within 15% of Redis' (the estimate is approximate by design, see
//!   `redis::evict`).
//! * `a_real_replica_counts_like_the_simulated_one`: a real primary and a real replica
//!   (`redis-server --replicaof`) beside `Replicated`: keys already expired before the
//!   replica attaches reach it in the snapshot; the replica counts logically expired keys
//!   in DBSIZE and INFO keyspace while answering nil for them; a read on the primary
//!   reclaims a key and its DEL reaches the replica; promotion stops replication. The key
//!   counts on both nodes agree at every step (each waited for with the replica's offset).
//! * `a_reload_drops_the_expired_keys_a_replica_would_keep`: keys past their TTL (active
//!   expiry paused) count in DBSIZE and `INFO keyspace` on both; `DEBUG RELOAD` (save the
//!   RDB, load it back as a primary) drops them on the real server as on SimRedis, and
//!   [`SimRedis::restarted`] from the same state counts the same. (Redis ≤ 4.0.9's
//!   snapshot, which skipped expired keys while saving, has no server here to compare.)
//! * `watching_expired_keys_agrees`: WATCH of a key already past its TTL, then another
//!   client's write, read, DEL, FLUSHALL, EXPIRE or nothing — Redis 7.0's special rules.
//! * `blocking_timeouts_parse_like_redis_7_0`: BLPOP's timeout as a long double in seconds
//!   rounded up to the millisecond (0.0001 s waits 1 ms), hexadecimal included, and every
//!   error word for word.
//!
//! Not compared, and why: the order of a hash table's elements (Redis seeds its hash per
//! process), which keys allkeys-* eviction picks (Redis samples its own hash table), and
//! replication offsets (SimRedis ships key states, not command text; it counts Redis' bytes
//! only approximately for commands Redis rewrites).

mod common;

use common::{poll, Conn, Server};
use redislab_sim::redis::{Exec, Node, Replicated, SimRedis, Snapshot};
use redislab_sim::{Mulberry32, Reply};
use std::time::{Duration, Instant};

fn strs<S: AsRef<str>>(v: &[S]) -> Vec<String> {
    v.iter().map(|x| x.as_ref().to_string()).collect()
}

/// Sends `c` to both and asserts the replies agree; the reply.
fn both(sim: &mut SimRedis, real: &mut Conn, c: &[String]) -> Reply {
    let want = real.call(c);
    let got = match sim.execute(1, c) {
        Exec::Reply(r) => r,
        Exec::Blocked => panic!("{c:?} blocked"),
    };
    assert_eq!(got, want, "{:?}", &c[..c.len().min(5)]);
    want
}

fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis() as i64
}

#[test]
fn encodings_agree_across_every_threshold() {
    let mut server = Server::start();
    let mut real = server.conn();
    let mut sim = SimRedis::new(1);
    let mut run = |c: Vec<String>| {
        both(&mut sim, &mut real, &c);
    };
    let enc = |k: &str| strs(&["OBJECT", "ENCODING", k]);
    // Strings.
    for v in [
        "0",
        "-5",
        "10000",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "12345678901234567890",
        "007",
        "1.5",
        " 1",
        "",
        &"x".repeat(44),
        &"x".repeat(45),
        &"y".repeat(100),
    ] {
        run(strs(&["SET", "s", v]));
        run(enc("s"));
    }
    for steps in [
        &[
            &["SET", "a", "12"][..],
            &["APPEND", "a", "3"],
            &["OBJECT", "ENCODING", "a"],
        ][..],
        &[
            &["DEL", "a"],
            &["APPEND", "a", "77"],
            &["OBJECT", "ENCODING", "a"],
        ],
        &[
            &["SET", "a", "abc"],
            &["SETRANGE", "a", "0", "1"],
            &["OBJECT", "ENCODING", "a"],
        ],
        &[
            &["DEL", "a"],
            &["SETRANGE", "a", "2", "9"],
            &["OBJECT", "ENCODING", "a"],
        ],
        &[
            &["SET", "a", "5"],
            &["INCR", "a"],
            &["OBJECT", "ENCODING", "a"],
        ],
        &[
            &["SET", "a", "raw1"],
            &["SET", "a", "5"],
            &["INCRBY", "a", "-9"],
            &["OBJECT", "ENCODING", "a"],
        ],
        &[
            &["SET", "a", "2.5"],
            &["INCRBYFLOAT", "a", "0.5"],
            &["GET", "a"],
            &["OBJECT", "ENCODING", "a"],
        ],
        &[&["GETSET", "a", "42"], &["OBJECT", "ENCODING", "a"]],
        &[
            &["MSET", "a", "43", "b", "bee"],
            &["OBJECT", "ENCODING", "a"],
            &["OBJECT", "ENCODING", "b"],
        ],
        &[&["SETEX", "a", "100", "44"], &["OBJECT", "ENCODING", "a"]],
        &[&["RPUSH", "l", "1"], &["OBJECT", "ENCODING", "l"]],
        &[&["OBJECT", "ENCODING", "missing"]],
        &[
            &["OBJECT", "REFCOUNT", "a"],
            &["OBJECT", "FROB", "a"],
            &["OBJECT", "ENCODING"],
        ],
    ] {
        for c in steps {
            run(strs(c));
        }
    }
    // Hashes: entries and value sizes.
    for (n, vlen, flen) in [
        (512, 5, 5),
        (513, 5, 5),
        (10, 64, 5),
        (10, 65, 5),
        (10, 5, 65),
    ] {
        run(strs(&["DEL", "h"]));
        for i in 0..n {
            let f = format!("{i:0>flen$}");
            run(strs(&["HSET", "h", &f, &"v".repeat(vlen)]));
        }
        run(enc("h"));
        run(strs(&["HLEN", "h"]));
        if n <= 20 && vlen <= 64 && flen <= 64 {
            run(strs(&["HSCAN", "h", "0"])); // a listpack: one page, in order
        }
    }
    run(strs(&["DEL", "h"]));
    run(strs(&["HSET", "h", "a", "1", "b", "2"]));
    run(strs(&["HGETALL", "h"]));
    run(strs(&["HSCAN", "h", "0", "MATCH", "a*"]));
    run(strs(&["HINCRBYFLOAT", "h", "a", "1e70"]));
    run(enc("h"));
    run(strs(&["DEL", "h"]));
    run(strs(&["HSETNX", "h", "f", &"z".repeat(65)]));
    run(enc("h"));
    // Sets: integers up to 512, then a string or one more.
    for (n, extra) in [
        (512, None),
        (513, None),
        (3, Some("abc")),
        (3, Some("007")),
        (3, Some("-12")),
    ] {
        run(strs(&["DEL", "t"]));
        for i in 0..n {
            run(strs(&["SADD", "t", &(i * 7 - 100).to_string()]));
        }
        if let Some(x) = extra {
            run(strs(&["SADD", "t", x]));
        }
        run(enc("t"));
        run(strs(&["SCARD", "t"]));
        if n < 10 && extra != Some("abc") && extra != Some("007") {
            run(strs(&["SMEMBERS", "t"]));
            run(strs(&["SSCAN", "t", "0"]));
            run(strs(&["SUNION", "t", "t"]));
        }
    }
    run(strs(&["DEL", "t"]));
    run(strs(&["SADD", "t", "x"]));
    run(enc("t"));
    // Sorted sets: members and member sizes, ZADD's first member, ZUNIONSTORE.
    for (n, mlen) in [(128, 5), (129, 5), (10, 64), (10, 65)] {
        run(strs(&["DEL", "z"]));
        for i in 0..n {
            let m = format!("{i:0>mlen$}");
            run(strs(&["ZADD", "z", &(i % 7).to_string(), &m]));
        }
        run(enc("z"));
        run(strs(&["ZRANGE", "z", "0", "3", "WITHSCORES"]));
        if n <= 20 && mlen <= 64 {
            run(strs(&["ZSCAN", "z", "0"]));
        }
        run(strs(&["ZUNIONSTORE", "u", "1", "z", "WEIGHTS", "0.5"]));
        run(enc("u"));
        run(strs(&["ZREMRANGEBYSCORE", "z", "1", "+inf"]));
        run(strs(&["ZUNIONSTORE", "u", "1", "z"]));
        run(enc("u"));
        run(enc("z"));
    }
    run(strs(&["DEL", "z"]));
    run(strs(&["ZADD", "z", "1", &"m".repeat(65), "2", "b"]));
    run(enc("z"));
    run(strs(&["SADD", "t2", "1", "2", "3"]));
    run(strs(&[
        "ZUNIONSTORE",
        "u",
        "2",
        "t2",
        "z",
        "AGGREGATE",
        "MAX",
    ]));
    run(strs(&["ZRANGE", "u", "0", "-1", "WITHSCORES"]));
    run(enc("u"));
    run(strs(&["PFADD", "p", "a"]));
    run(enc("p"));
}

/// One step of a two-client transaction history.
fn tx_step(rng: &mut Mulberry32) -> (usize, Vec<String>) {
    let keys = ["k1", "k2", "k3"];
    let k = keys[rng.below(3) as usize].to_string();
    let client = rng.below(2) as usize;
    let s = |x: &str| x.to_string();
    let c = match rng.below(22) {
        0..=2 => vec![s("WATCH"), k.clone(), s(keys[rng.below(3) as usize])],
        3 => vec![s("UNWATCH")],
        4..=6 => vec![s("MULTI")],
        7..=9 => vec![s("EXEC")],
        10 => vec![s("DISCARD")],
        11 | 12 => vec![s("SET"), k, rng.below(3).to_string()],
        13 => vec![s("INCR"), k],
        14 => vec![s("DEL"), k],
        15 => vec![s("EXPIRE"), k, s(["100", "0", "-1"][rng.below(3) as usize])],
        16 => vec![s("PERSIST"), k],
        17 => vec![s("GET"), k],
        18 => vec![s("SET"), k, s("v"), s("BOGUS")],
        19 => vec![s("FROB"), k],
        20 => vec![s("LPUSH"), k, s("x")],
        _ => vec![s("FLUSHALL")],
    };
    (client, c)
}

#[test]
fn transactions_of_two_clients_agree() {
    let mut server = Server::start();
    let mut admin = server.conn();
    let mut sent = 0;
    for seed in 1..=40u32 {
        admin.cmd(&["FLUSHALL"]);
        let mut reals = [server.conn(), server.conn()];
        let mut sim = SimRedis::new(seed);
        let mut rng = Mulberry32::new(seed);
        let mut history = Vec::new();
        for _ in 0..150 {
            let (cl, c) = tx_step(&mut rng);
            let want = reals[cl].call(&c);
            let got = match sim.execute(cl as u64 + 1, &c) {
                Exec::Reply(r) => r,
                Exec::Blocked => unreachable!("nothing blocks"),
            };
            history.push(format!("client {cl}: {c:?} -> {want}"));
            assert_eq!(
                got,
                want,
                "seed {seed}\n{}",
                history[history.len().saturating_sub(30)..].join("\n")
            );
            sent += 1;
        }
    }
    eprintln!("{sent} commands of two clients agree");
}

#[test]
fn keyspace_counts_after_ttl_histories_agree() {
    let mut server = Server::start_with(&["--enable-debug-command", "local"]);
    let mut real = server.conn();
    for seed in [1u32, 2, 3] {
        real.cmd(&["FLUSHALL"]);
        real.cmd(&["CONFIG", "RESETSTAT"]);
        let mut sim = SimRedis::new(seed);
        let start = Instant::now();
        sim.set_epoch_ms(unix_ms());
        let sync = |sim: &mut SimRedis| sim.advance_to(start.elapsed().as_millis() as u64);
        let mut rng = Mulberry32::new(seed);
        let c = |sim: &mut SimRedis, real: &mut Conn, v: Vec<String>| {
            sync(sim);
            both(sim, real, &v)
        };
        c(
            &mut sim,
            &mut real,
            strs(&["DEBUG", "SET-ACTIVE-EXPIRE", "0"]),
        );
        for i in 0..300 {
            let k = format!("k{i}");
            let v = match rng.below(4) {
                0 => strs(&["SET", &k, "v", "PX", &(1 + rng.below(5)).to_string()]),
                1 => strs(&["SET", &k, "v", "EX", "1000"]),
                2 => strs(&["SET", &k, "v"]),
                _ => strs(&["SET", &k, "v", "PX", "2000000"]),
            };
            c(&mut sim, &mut real, v);
        }
        let before = strs(&["INFO", "keyspace"]);
        let r = c(&mut sim, &mut real, before);
        assert!(r.as_bulk().is_some_and(|b| b.ends_with(b",avg_ttl=0\r\n")));
        // Past the short TTLs on both clocks: wait on the wall clock, not a sleep.
        let set_end = start.elapsed();
        poll(5, "the short TTLs to pass", || {
            (start.elapsed() > set_end + Duration::from_millis(10)).then_some(())
        });
        sync(&mut sim);
        for _ in 0..400 {
            let k = format!("k{}", rng.below(320));
            let v = match rng.below(5) {
                0 => strs(&["GET", &k]),
                1 => strs(&["DEL", &k]),
                2 => strs(&["PERSIST", &k]),
                3 => strs(&["EXISTS", &k]),
                _ => strs(&["DBSIZE"]),
            };
            c(&mut sim, &mut real, v);
        }
        c(&mut sim, &mut real, strs(&["INFO", "keyspace"]));
        let stats = |r: Reply| {
            String::from_utf8_lossy(r.as_bulk().unwrap_or_default())
                .lines()
                .find(|l| l.starts_with("expired_keys:"))
                .map(str::to_string)
        };
        let (s, r) = (
            stats(sim.cmd(&["INFO", "stats"])),
            stats(real.cmd(&["INFO", "stats"])),
        );
        assert_eq!(s, r, "seed {seed}");
        assert!(s.is_some_and(|l| l != "expired_keys:0"));
    }
}

#[test]
fn noeviction_answers_oom_and_memory_is_estimated() {
    let mut server = Server::start();
    let mut real = server.conn();
    let mut sim = SimRedis::new(1);
    let steps: &[&[&str]] = &[
        &["SET", "a", "1"],
        &["RPUSH", "l", "x"],
        &["CONFIG", "SET", "maxmemory-policy", "noeviction"],
        &["CONFIG", "SET", "maxmemory", "1"],
        &["CONFIG", "GET", "maxmemory"],
        &["SET", "b", "1"],
        &["INCR", "a"],
        &["GET", "a"],
        &["EXPIRE", "a", "100"],
        &["LPOP", "l"],
        &["DEL", "a"],
        &["MULTI"],
        &["SET", "c", "1"],
        &["GET", "c"],
        &["EXEC"],
        &["MULTI"],
        &["GET", "c"],
        &["EXEC"],
        &[
            "EVALSHA",
            "b70c2384248f88e6b75b9f89241a180f856ad852",
            "1",
            "k",
            "t",
        ],
        &["CONFIG", "SET", "maxmemory", "0"],
        &["SET", "b", "1"],
        &["CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"],
        &["CONFIG", "GET", "maxmemory-policy"],
        &["CONFIG", "SET", "maxmemory-policy", "lru"],
        &["CONFIG", "SET", "maxmemory", "ten"],
        &["CONFIG", "SET", "nosuch", "1"],
    ];
    for c in steps {
        both(&mut sim, &mut real, &strs(c));
    }
    // The estimate: 20,000 keys of 10-byte values (half with a TTL).
    let used = |r: Reply| -> i64 {
        String::from_utf8_lossy(r.as_bulk().unwrap_or_default())
            .lines()
            .find_map(|l| l.strip_prefix("used_memory:"))
            .and_then(|v| v.trim().parse().ok())
            .expect("used_memory")
    };
    let base_real = used(real.cmd(&["INFO", "memory"]));
    let base_sim = used(sim.cmd(&["INFO", "memory"]));
    for i in 0..20_000 {
        let k = format!("key:{i:08}");
        let mut c = vec!["SET".to_string(), k, "0123456789".into()];
        if i % 2 == 0 {
            c.extend(["EX".to_string(), "1000".into()]);
        }
        both(&mut sim, &mut real, &c);
    }
    let grew_real = used(real.cmd(&["INFO", "memory"])) - base_real;
    let grew_sim = used(sim.cmd(&["INFO", "memory"])) - base_sim;
    let ratio = grew_sim as f64 / grew_real as f64;
    eprintln!(
        "20,000 keys: Redis grew {grew_real} bytes, SimRedis estimates {grew_sim} ({ratio:.3})"
    );
    assert!((0.85..1.15).contains(&ratio), "{ratio}");
}

/// `slave_repl_offset` == the primary's `master_repl_offset`: the replica has everything.
fn caught_up(primary: &mut Conn, replica: &mut Conn) -> bool {
    let field = |c: &mut Conn, name: &str| -> Option<i64> {
        let r = c.cmd(&["INFO", "replication"]);
        String::from_utf8_lossy(r.as_bulk()?)
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
    };
    let p = field(primary, "master_repl_offset:");
    let r = field(replica, "slave_repl_offset:");
    let up = replica
        .cmd(&["INFO", "replication"])
        .as_bulk()
        .is_some_and(|b| String::from_utf8_lossy(b).contains("master_link_status:up"));
    up && p.is_some() && p == r
}

#[test]
fn a_real_replica_counts_like_the_simulated_one() {
    let mut primary_server = Server::start_with(&["--enable-debug-command", "local"]);
    let mut p = primary_server.conn();
    let mut sim = SimRedis::new(1);
    let start = Instant::now();
    sim.set_epoch_ms(unix_ms());
    let now = |start: Instant| start.elapsed().as_millis() as u64;
    let cmd = |sim: &mut SimRedis, p: &mut Conn, v: &[&str]| {
        sim.advance_to(now(start));
        both(sim, p, &strs(v));
    };
    cmd(&mut sim, &mut p, &["DEBUG", "SET-ACTIVE-EXPIRE", "0"]);
    for i in 0..20 {
        cmd(
            &mut sim,
            &mut p,
            &["SET", &format!("gone{i}"), "v", "PX", "1"],
        );
        cmd(&mut sim, &mut p, &["SET", &format!("kept{i}"), "v"]);
    }
    poll(5, "the short TTLs to pass", || {
        (start.elapsed() > Duration::from_millis(5)).then_some(())
    });
    // The replica attaches: its snapshot holds the 20 expired keys too.
    let port = primary_server.port().to_string();
    let mut replica_server = Server::start_with(&[
        "--replicaof",
        "127.0.0.1",
        &port,
        "--enable-debug-command",
        "local",
    ]);
    let mut r = replica_server.conn();
    poll(20, "the replica's full sync", || {
        caught_up(&mut p, &mut r).then_some(())
    });
    sim.advance_to(now(start));
    let mut pair = Replicated::attach(sim, 2, 0);
    pair.advance_to(now(start));
    let counts = |pair: &mut Replicated, p: &mut Conn, r: &mut Conn, what: &str| {
        for (node, conn) in [(Node::Primary, p), (Node::Replica, r)] {
            for c in [&["DBSIZE"][..], &["INFO", "keyspace"]] {
                let want = conn.cmd(c);
                let got = match pair.execute(node, 9, c) {
                    Exec::Reply(x) => x,
                    Exec::Blocked => unreachable!(),
                };
                let strip = |x: &Reply| {
                    String::from_utf8_lossy(x.as_bulk().unwrap_or(b""))
                        .split(",avg_ttl")
                        .next()
                        .unwrap_or("")
                        .to_string()
                };
                if c[0] == "INFO" {
                    assert_eq!(strip(&got), strip(&want), "{what}: {node:?} {c:?}");
                } else {
                    assert_eq!(got, want, "{what}: {node:?} {c:?}");
                }
            }
        }
    };
    counts(&mut pair, &mut p, &mut r, "after the full sync");
    // Reads on the replica: nil for the expired keys, and the counts stay.
    for i in 0..5 {
        for k in [format!("gone{i}"), format!("kept{i}")] {
            let want = r.cmd(&["GET", &k]);
            assert_eq!(
                pair.execute(Node::Replica, 9, &["GET", &k]),
                Exec::Reply(want),
                "{k}"
            );
        }
    }
    let w = r.cmd(&["SET", "x", "y"]);
    assert_eq!(
        pair.execute(Node::Replica, 9, &["SET", "x", "y"]),
        Exec::Reply(w)
    );
    counts(&mut pair, &mut p, &mut r, "after reads on the replica");
    // Reads on the primary reclaim expired keys; their DELs reach the replica.
    for i in 0..8 {
        let k = format!("gone{i}");
        let want = p.cmd(&["GET", &k]);
        pair.advance_to(now(start));
        assert_eq!(
            pair.execute(Node::Primary, 9, &["GET", &k]),
            Exec::Reply(want)
        );
    }
    for i in 0..5 {
        let k = format!("new{i}");
        let want = p.cmd(&["SET", &k, "v", "EX", "1000"]);
        assert_eq!(
            pair.execute(Node::Primary, 9, &["SET", &k, "v", "EX", "1000"]),
            Exec::Reply(want)
        );
    }
    poll(10, "the replica to catch up", || {
        caught_up(&mut p, &mut r).then_some(())
    });
    pair.advance_to(now(start));
    counts(
        &mut pair,
        &mut p,
        &mut r,
        "after lazy expiry on the primary",
    );
    // Promotion: the replica stops following; a write on the old primary does not reach it.
    // (The new primary would now reclaim expired keys in its own cycle, at a moment of its
    // own choosing: paused on both sides, the counts stay comparable.)
    assert_eq!(r.cmd(&["DEBUG", "SET-ACTIVE-EXPIRE", "0"]), Reply::ok());
    pair.execute(Node::Replica, 9, &["DEBUG", "SET-ACTIVE-EXPIRE", "0"]);
    assert_eq!(r.cmd(&["REPLICAOF", "NO", "ONE"]), Reply::ok());
    pair.promote();
    assert!(!pair.linked());
    p.cmd(&["SET", "after", "1"]);
    pair.execute(Node::Primary, 9, &["SET", "after", "1"]);
    pair.advance_to(now(start) + 1000);
    assert_eq!(r.cmd(&["EXISTS", "after"]), Reply::Integer(0));
    assert_eq!(
        pair.execute(Node::Replica, 9, &["EXISTS", "after"]),
        Exec::Reply(Reply::Integer(0))
    );
    counts(&mut pair, &mut p, &mut r, "after promotion");
}

/// BLPOP's timeout read as Redis 7.0 reads it (a long double in seconds, rounded up to the
/// millisecond): errors word for word; a short timeout answers nil on both, after the same
/// number of ms on SimRedis' clock as `ceil(t · 1000)`.
#[test]
fn blocking_timeouts_parse_like_redis_7_0() {
    let mut server = Server::start();
    let mut real = server.conn();
    for (t, ms) in [
        ("0.0001", Some(1)),
        ("1e-400", Some(1)),
        ("0x1p-12", Some(1)),
        ("0.0015", Some(2)),
        ("0.01", Some(10)),
        ("abc", None),
        ("-1", None),
        ("inf", None),
        ("-inf", None),
        ("1e300", None),
        ("nan", None),
        (" 1", None),
        ("1e5000", None),
    ] {
        let mut sim = SimRedis::new(1);
        let c = ["BLPOP", "nokey", t];
        let want = real.cmd(&c);
        match (sim.execute(1, &c), ms) {
            (Exec::Blocked, Some(ms)) => {
                assert_eq!(want, Reply::Nil, "{t}");
                assert_eq!(sim.next_timeout_ms(), Some(ms), "{t}");
                sim.advance(ms);
                assert_eq!(sim.take_woken()[0].reply, Reply::Nil);
            }
            (Exec::Reply(got), None) => assert_eq!(got, want, "{t}"),
            (other, _) => panic!("{t}: SimRedis {other:?}, Redis {want}"),
        }
    }
}

/// WATCH of a key already past its TTL (active expiry paused on both sides), then another
/// client writes it, reads it (a lazy delete), deletes it, flushes, or nothing: EXEC
/// answers alike (Redis 7.0 counts only the write as a change).
#[test]
fn watching_expired_keys_agrees() {
    let mut server = Server::start_with(&["--enable-debug-command", "local"]);
    let mut a = server.conn();
    let mut b = server.conn();
    for case in ["SET k v2", "GET k", "", "DEL k", "FLUSHALL", "EXPIRE k 100"] {
        let mut sim = SimRedis::new(1);
        let start = Instant::now();
        sim.set_epoch_ms(unix_ms());
        let both2 = |sim: &mut SimRedis, conn: &mut Conn, client: u64, line: &str| {
            sim.advance_to(start.elapsed().as_millis() as u64);
            let c: Vec<String> = line.split(' ').map(str::to_string).collect();
            let want = conn.call(&c);
            let got = match sim.execute(client, &c) {
                Exec::Reply(r) => r,
                Exec::Blocked => unreachable!(),
            };
            assert_eq!(got, want, "{case:?}: {line}");
        };
        both2(&mut sim, &mut a, 1, "FLUSHALL");
        both2(&mut sim, &mut a, 1, "DEBUG SET-ACTIVE-EXPIRE 0");
        both2(&mut sim, &mut a, 1, "SET k v PX 1");
        let set = start.elapsed();
        poll(5, "the TTL to pass", || {
            (start.elapsed() > set + Duration::from_millis(10)).then_some(())
        });
        both2(&mut sim, &mut a, 1, "WATCH k");
        if !case.is_empty() {
            both2(&mut sim, &mut b, 2, case);
        }
        both2(&mut sim, &mut a, 1, "MULTI");
        both2(&mut sim, &mut a, 1, "PING");
        both2(&mut sim, &mut a, 1, "EXEC");
    }
}

#[test]
fn a_reload_drops_the_expired_keys_a_replica_would_keep() {
    let mut server = Server::start_with(&["--enable-debug-command", "local"]);
    let mut real = server.conn();
    let mut sim = SimRedis::new(5);
    let start = Instant::now();
    sim.set_epoch_ms(unix_ms());
    let now = |start: Instant| start.elapsed().as_millis() as u64;
    let c = |sim: &mut SimRedis, real: &mut Conn, v: &[&str]| {
        sim.advance_to(now(start));
        both(sim, real, &strs(v))
    };
    c(&mut sim, &mut real, &["DEBUG", "SET-ACTIVE-EXPIRE", "0"]);
    for i in 0..30 {
        c(
            &mut sim,
            &mut real,
            &["SET", &format!("gone{i}"), "v", "PX", "1"],
        );
        c(
            &mut sim,
            &mut real,
            &["SET", &format!("kept{i}"), "v", "EX", "1000"],
        );
        c(&mut sim, &mut real, &["SET", &format!("plain{i}"), "v"]);
    }
    // Past the last 1 ms TTL on both clocks: wait on the wall clock, not a sleep.
    let set_end = start.elapsed();
    poll(5, "the short TTLs to pass", || {
        (start.elapsed() > set_end + Duration::from_millis(3)).then_some(())
    });
    let keyspace = |r: Reply| {
        String::from_utf8_lossy(r.as_bulk().unwrap_or_default())
            .split(",avg_ttl")
            .next()
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(c(&mut sim, &mut real, &["DBSIZE"]), Reply::Integer(90));
    sim.advance_to(now(start));
    let (restarted, loaded) = sim.restarted(6, Snapshot::All);
    assert_eq!((loaded.keys, loaded.expired), (60, 30));
    assert_eq!(c(&mut sim, &mut real, &["DEBUG", "RELOAD"]), Reply::ok());
    assert_eq!(c(&mut sim, &mut real, &["DBSIZE"]), Reply::Integer(60));
    let (s, r) = (
        keyspace(sim.cmd(&["INFO", "keyspace"])),
        keyspace(real.cmd(&["INFO", "keyspace"])),
    );
    assert_eq!(s, r);
    assert_eq!(s, "# Keyspace\r\ndb0:keys=60,expires=30");
    assert_eq!(restarted.dbsize(), 60);
    assert_eq!(restarted.volatile_len(), 30);
    for k in ["gone0", "kept0", "plain0"] {
        c(&mut sim, &mut real, &["EXISTS", k]);
        c(&mut sim, &mut real, &["TTL", k]);
    }
}
