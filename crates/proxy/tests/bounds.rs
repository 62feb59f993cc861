//! A class can't break it: every attack of issue 22 meets a bound — a typed error, and the
//! session (and everyone else's) goes on. Bounded work per command (counts, offsets, a cost-
//! weighted rate), bounded memory (the session's budget in Redis, a reply cap, the reply
//! bytes on their way), bounded time and slots (per-address cap, lifetime, idle timer that
//! pings do not reset, every frame counted), no check-then-act on the key limit.

mod support;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};
use support::{code, commandstats, config, Proxy, RedisServer, Ws};
use tokio_tungstenite::tungstenite::Message;

fn limit(v: &Value) -> &str {
    v["err"]["limit"].as_str().unwrap_or("")
}

/// Sends every command at once, then reads all the answers (in the order they finish).
async fn burst(ws: &mut Ws, cmds: &[Vec<String>]) -> Vec<Value> {
    let mut ids = Vec::new();
    for c in cmds {
        let words: Vec<&str> = c.iter().map(String::as_str).collect();
        ids.push(ws.start(&words).await);
    }
    let mut got: Vec<Value> = Vec::new();
    for _ in &ids {
        got.push(ws.recv().await.expect("an answer"));
    }
    got.sort_by_key(|v| v["id"].as_u64());
    got
}

/// A command retried while it is RATE_LIMITED, every 100 ms (as a polite client does), for
/// at most 10 s; its `ok`.
async fn polite(ws: &mut Ws, w: &[&str]) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut every = tokio::time::interval(Duration::from_millis(100));
    loop {
        every.tick().await;
        let v = ws.cmd(w).await;
        match code(&v) {
            "" => return v["ok"].clone(),
            "RATE_LIMITED" => assert!(Instant::now() < deadline, "{w:?} still limited: {v}"),
            _ => panic!("{w:?} → {v}"),
        }
    }
}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

async fn calls(admin: &mut redis::aio::MultiplexedConnection, cmd: &str) -> u64 {
    commandstats(admin)
        .await
        .get(cmd)
        .and_then(|v| v.strip_prefix("calls="))
        .and_then(|v| v.split(',').next())
        .map_or(0, |n| n.parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_big_key_costs_its_weight_and_its_replies_are_bounded() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let mut cfg = config(&redis.url());
    cfg.max_reply_bytes = 256 * 1024;
    let proxy = Proxy::start(cfg.clone()).await;
    let mut a = proxy.connect().await;
    // Build the biggest list the session's budget allows: pushes of 60 elements of 1,000
    // bytes, until SESSION_MEMORY.
    let elem = "x".repeat(1000);
    let mut pushed = 0;
    let refused = loop {
        let mut w = vec!["RPUSH", "big"];
        w.extend(std::iter::repeat_n(elem.as_str(), 60));
        let v = a.cmd(&w).await;
        if code(&v).is_empty() {
            pushed += 60;
            continue;
        }
        break v;
    };
    assert_eq!(
        (code(&refused), limit(&refused)),
        ("TOO_LARGE", "SESSION_MEMORY"),
        "{refused}"
    );
    let llen: u64 = redis::cmd("LLEN")
        .arg(format!("{}big", a.namespace()))
        .query_async(&mut admin)
        .await
        .unwrap();
    assert_eq!(llen, pushed);
    assert!((600..=1000).contains(&llen), "{llen} elements in 1 MiB");
    // A reply over the cap: a typed error, the command ran, the session goes on.
    let v = a.cmd(&["LRANGE", "big", "0", "-1"]).await;
    assert_eq!((code(&v), limit(&v)), ("TOO_LARGE", "REPLY_SIZE"), "{v}");
    assert_eq!(
        a.ok(&["LRANGE", "big", "0", "1"])
            .await
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(a.ok(&["PING"]).await, json!({"status": "PONG"}));

    // 32 full reads at once: each weighs the key's size (≈ 50 units of the rate) and holds
    // up to that much of the session's share of replies on their way: a handful run, the
    // rest are refused at once — Redis never holds 32 copies.
    let before = calls(&mut admin, "lrange").await;
    let lrange = vec![words(&["LRANGE", "big", "0", "-1"]); 32];
    let got = burst(&mut a, &lrange).await;
    let ran = got.iter().filter(|v| limit(v) == "REPLY_SIZE").count();
    let limited: Vec<&str> = got
        .iter()
        .filter(|v| code(v) == "RATE_LIMITED")
        .map(limit)
        .collect();
    assert_eq!(ran + limited.len(), 32, "{got:?}");
    assert!((1..=8).contains(&ran), "{ran} ran");
    assert!(limited.iter().all(|l| *l == "RATE" || *l == "REPLY_BUDGET"));
    assert_eq!(calls(&mut admin, "lrange").await - before, ran as u64);
    // LREM of the big list: a walk, weighed the same.
    let before = calls(&mut admin, "lrem").await;
    let got = burst(&mut a, &vec![words(&["LREM", "big", "0", "nomatch"]); 20]).await;
    let ran = got.iter().filter(|v| code(v).is_empty()).count();
    assert!(ran <= 8, "{ran} LREMs ran");
    assert_eq!(calls(&mut admin, "lrem").await - before, ran as u64);
    // DEL frees the budget (a free of the whole list weighs as much: retried as a client
    // would after RATE_LIMITED, a few times a second).
    assert_eq!(polite(&mut a, &["DEL", "big"]).await, json!(1));
    assert_eq!(polite(&mut a, &["RPUSH", "big", "x"]).await, json!(1));
    // Another session was never held up.
    let mut b = proxy.connect().await;
    assert_eq!(b.ok(&["LRANGE", "big", "0", "-1"]).await, json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counts_offsets_pending_groups_and_consumers_are_capped() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let mut cfg = config(&redis.url());
    cfg.rate_per_sec = 1_000_000;
    cfg.burst = 1_000_000;
    cfg.address_rate = 1_000_000;
    cfg.address_burst = 1_000_000;
    cfg.limits.max_consumers = 3;
    let proxy = Proxy::start(cfg).await;
    let mut a = proxy.connect().await;
    let ns = a.namespace();
    // A stream of 1,500 entries (every XADD got a MAXLEN).
    let adds: Vec<Vec<String>> = (0..1500)
        .map(|i| words(&["XADD", "s", "*", "n", &i.to_string()]))
        .collect();
    for chunk in adds.chunks(32) {
        for v in burst(&mut a, chunk).await {
            assert!(code(&v).is_empty(), "{v}");
        }
    }
    a.ok(&["XGROUP", "CREATE", "s", "g", "0"]).await;
    // No COUNT: the proxy's, clamped to the pending cap (1,000).
    let r = a
        .ok(&["XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">"])
        .await;
    assert_eq!(r[0][1].as_array().unwrap().len(), 1000);
    let v = a
        .cmd(&[
            "XREADGROUP",
            "GROUP",
            "g",
            "c1",
            "COUNT",
            "1",
            "STREAMS",
            "s",
            ">",
        ])
        .await;
    assert_eq!(limit(&v), "PENDING_PER_GROUP", "{v}");
    // XCLAIM … FORCE cannot add pending entries past the cap either.
    let v = a
        .cmd(&["XCLAIM", "s", "g", "c1", "0", "1-1", "FORCE"])
        .await;
    assert_eq!(limit(&v), "PENDING_PER_GROUP", "{v}");
    // Acknowledged: room again.
    let first = r[0][1][0][0].as_str().unwrap().to_string();
    assert_eq!(a.ok(&["XACK", "s", "g", &first]).await, json!(1));
    let r = a
        .ok(&[
            "XREADGROUP",
            "GROUP",
            "g",
            "c1",
            "COUNT",
            "5",
            "STREAMS",
            "s",
            ">",
        ])
        .await;
    assert_eq!(r[0][1].as_array().unwrap().len(), 1);
    let pending: Vec<redis::Value> = redis::cmd("XPENDING")
        .arg(format!("{ns}s"))
        .arg("g")
        .query_async(&mut admin)
        .await
        .unwrap();
    assert_eq!(pending[0], redis::Value::Int(1000));
    // Consumers (3: the ones Redis holds — XAUTOCLAIM that takes an entry over makes one)
    // and groups (8).
    for c in ["c2", "c3"] {
        let r = a
            .ok(&["XAUTOCLAIM", "s", "g", c, "0", "0", "COUNT", "1"])
            .await;
        assert_eq!(r[1].as_array().unwrap().len(), 1, "{r}");
    }
    let v = a
        .cmd(&["XAUTOCLAIM", "s", "g", "c4", "0", "0", "COUNT", "1"])
        .await;
    assert_eq!(limit(&v), "CONSUMERS_PER_GROUP", "{v}");
    for g in 1..8 {
        a.ok(&["XGROUP", "CREATE", "s", &format!("g{g}"), "$"])
            .await;
    }
    let v = a.cmd(&["XGROUP", "CREATE", "s", "g8", "$"]).await;
    assert_eq!(limit(&v), "GROUPS_PER_STREAM", "{v}");
    // Counts and offsets: refused before anything is sent.
    let before = commandstats(&mut admin).await;
    for (w, l) in [
        (
            &[
                "ZRANGEBYSCORE",
                "z",
                "-inf",
                "+inf",
                "LIMIT",
                "100000000",
                "1",
            ][..],
            "OFFSET",
        ),
        (
            &[
                "XAUTOCLAIM",
                "s",
                "g",
                "c1",
                "0",
                "0",
                "COUNT",
                "99999999999",
            ],
            "COUNT",
        ),
        (
            &[
                "XPENDING",
                "s",
                "g",
                "IDLE",
                "999999999",
                "-",
                "+",
                "100000",
            ],
            "COUNT",
        ),
        (&["XRANGE", "s", "-", "+", "COUNT", "20000"], "COUNT"),
        (&["XADD", "s", "MINID", "0", "*", "f", "v"], "STREAM_TRIM"),
        (&["LPOP", "l", "1000000"], "COUNT"),
    ] {
        let v = a.cmd(w).await;
        assert_eq!(limit(&v), l, "{w:?} → {v}");
    }
    // XREADGROUP's BLOCK: Redis obeys the last one, and so does the bound.
    let t = Instant::now();
    let v = a
        .ok(&[
            "XREADGROUP",
            "GROUP",
            "g1",
            "c1",
            "BLOCK",
            "1",
            "BLOCK",
            "0",
            "NOACK",
            "STREAMS",
            "s",
            ">",
        ])
        .await;
    assert_eq!(v, json!(null));
    assert!(
        t.elapsed() >= Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );
    let mut after = commandstats(&mut admin).await;
    // Only the XREADGROUP went (and its bookkeeping).
    after.remove("xreadgroup");
    after.remove("evalsha");
    after.remove("type");
    after.remove("xlen");
    after.remove("xinfo|groups");
    let mut before = before;
    before.remove("xreadgroup");
    before.remove("evalsha");
    before.remove("type");
    before.remove("xlen");
    before.remove("xinfo|groups");
    assert_eq!(before, after);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writes_cannot_all_pass_the_key_limit() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let mut cfg = config(&redis.url());
    cfg.max_keys = 10;
    let proxy = Proxy::start(cfg).await;
    let mut a = proxy.connect().await;
    let sets: Vec<Vec<String>> = (0..30)
        .map(|i| words(&["SET", &format!("k{i}"), "v"]))
        .collect();
    let got = burst(&mut a, &sets).await;
    let ok = got.iter().filter(|v| code(v).is_empty()).count();
    let refused = got
        .iter()
        .filter(|v| limit(v) == "KEYS_PER_SESSION")
        .count();
    assert_eq!((ok, refused), (10, 20), "{got:?}");
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}k*", a.namespace()))
        .query_async(&mut admin)
        .await
        .unwrap();
    assert_eq!(keys.len(), 10);
}

/// A refusal names the rate it was over: two sessions from one address share the address'
/// rate; one session alone meets its own first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_names_the_rate_it_was_over() {
    let redis = RedisServer::start();
    let mut cfg = config(&redis.url());
    // Refills of one a second: a slow machine's delays do not change the counts.
    cfg.rate_per_sec = 1;
    cfg.burst = 8;
    cfg.address_rate = 1;
    cfg.address_burst = 10;
    let proxy = Proxy::start(cfg).await;
    let (mut a, mut b) = (proxy.connect().await, proxy.connect().await);
    let ping = vec![words(&["PING"]); 6];
    let mut refusals = Vec::new();
    for ws in [&mut a, &mut b] {
        for v in burst(ws, &ping).await {
            if code(&v) == "RATE_LIMITED" {
                refusals.push(v["err"]["message"].as_str().unwrap().to_string());
            }
        }
    }
    // a: 6 of its own 8, 6 of the address' 10; b: 4 left at the address.
    assert_eq!(refusals.len(), 2, "{refusals:?}");
    assert!(
        refusals.iter().all(|m| m.contains("your address")),
        "{refusals:?}"
    );
    drop((a, b));

    let mut cfg = config(&redis.url());
    cfg.rate_per_sec = 1;
    cfg.burst = 5;
    let proxy = Proxy::start(cfg).await;
    let mut c = proxy.connect().await;
    let got = burst(&mut c, &vec![words(&["PING"]); 8]).await;
    let refusals: Vec<&str> = got
        .iter()
        .filter(|v| code(v) == "RATE_LIMITED")
        .map(|v| v["err"]["message"].as_str().unwrap())
        .collect();
    assert_eq!(refusals.len(), 3, "{got:?}");
    assert!(
        refusals.iter().all(|m| m.contains("per-connection")),
        "{refusals:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_frame_counts_and_pings_do_not_keep_a_session() {
    let redis = RedisServer::start();
    let mut cfg = config(&redis.url());
    cfg.rate_per_sec = 5;
    cfg.burst = 5;
    cfg.idle_timeout = Duration::from_millis(600);
    let proxy = Proxy::start(cfg).await;
    // Binary frames: refused, and counted by the rate.
    let mut a = proxy.connect().await;
    for _ in 0..10 {
        a.ws.send(Message::Binary(vec![1].into())).await.unwrap();
    }
    let mut kinds = Vec::new();
    for _ in 0..10 {
        let v = a.recv().await.unwrap();
        kinds.push(format!("{}/{}", code(&v), limit(&v)));
    }
    assert_eq!(
        kinds.iter().filter(|k| *k == "BAD_REQUEST/").count(),
        5,
        "{kinds:?}"
    );
    assert_eq!(
        kinds.iter().filter(|k| *k == "RATE_LIMITED/RATE").count(),
        5,
        "{kinds:?}"
    );
    // Pings, one every 250 ms (within the rate), keep nothing alive: idle timeout.
    let t = Instant::now();
    let mut b = proxy.connect().await;
    let mut every = tokio::time::interval(Duration::from_millis(250));
    let closed = loop {
        tokio::select! {
            _ = every.tick() => b.ws.send(Message::Ping(vec![].into())).await.unwrap(),
            m = b.ws.next() => match m {
                Some(Ok(Message::Close(f))) => break f.expect("a close frame"),
                Some(Ok(_)) => {}
                other => panic!("{other:?}"),
            },
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "pings kept the session"
        );
    };
    assert_eq!(closed.reason.as_str(), "idle timeout");
    assert!(t.elapsed() >= Duration::from_millis(600));
    // A ping flood: closed.
    let mut c = proxy.connect().await;
    for _ in 0..20 {
        let _ = c.ws.send(Message::Ping(vec![].into())).await;
    }
    let f = c.close_frame().await.expect("a close frame");
    assert_eq!(
        (u16::from(f.code), f.reason.as_str()),
        (1008, "too many frames")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_has_a_lifetime_and_an_address_a_cap() {
    let redis = RedisServer::start();
    let mut cfg = config(&redis.url());
    cfg.max_session = Duration::from_millis(800);
    cfg.max_sessions_per_address = 3;
    let proxy = Proxy::start(cfg).await;
    let origin = proxy.origin();
    let one = Ipv4Addr::new(127, 0, 0, 1);
    let mut from_one = Vec::new();
    for _ in 0..3 {
        from_one.push(Ws::connect_from(proxy.addr, &origin, one).await.unwrap());
    }
    match Ws::connect_from(proxy.addr, &origin, one).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 429),
        other => panic!("a fourth session from one address: {:?}", other.is_ok()),
    }
    // Another machine is not held up by it.
    let mut other = Ws::connect_from(proxy.addr, &origin, Ipv4Addr::new(127, 0, 0, 2))
        .await
        .unwrap();
    assert_eq!(other.ok(&["PING"]).await, json!({"status": "PONG"}));
    assert_eq!(proxy.state.sessions_from(one.into()), 3);
    // However busy, a session ends at its lifetime.
    let t = Instant::now();
    let s = &mut from_one[0];
    let f = loop {
        let id = s.start(&["PING"]).await;
        match s.ws.next().await {
            Some(Ok(Message::Close(f))) => break f.expect("a close frame"),
            Some(Ok(Message::Text(t))) => {
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                assert_eq!(v["id"], json!(id));
            }
            other => panic!("{other:?}"),
        }
        assert!(t.elapsed() < Duration::from_secs(5));
    };
    assert_eq!(
        (u16::from(f.code), f.reason.as_str()),
        (1000, "session lifetime over")
    );
    drop(from_one);
    drop(other);
    proxy.wait_no_sessions(Duration::from_secs(10)).await;
    // The address' places are free again.
    Ws::connect_from(proxy.addr, &origin, one).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_s_memory_in_redis_is_counted_and_bounded() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let mut cfg = config(&redis.url());
    cfg.rate_per_sec = 1_000_000;
    cfg.burst = 1_000_000;
    cfg.address_rate = 1_000_000;
    cfg.address_burst = 1_000_000;
    cfg.heavy_per_sec = 1_000_000;
    cfg.heavy_burst = 1_000_000;
    let budget = cfg.session_bytes;
    let pending_cap = cfg.limits.max_pending;
    let proxy = Proxy::start(cfg).await;
    let mut a = proxy.connect().await;
    let ns = a.namespace();
    // Every kind of data, in turns, until the budget refuses.
    a.ok(&["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"]).await;
    let mut i = 0u64;
    let refused = 'fill: loop {
        i += 1;
        let n = i.to_string();
        let v10 = "v".repeat((i % 200) as usize);
        let batch = vec![
            words(&["SET", &format!("str{}", i % 50), &v10]),
            words(&["RPUSH", "list", &v10, &n]),
            words(&["HSET", "hash", &format!("f{n}"), &v10]),
            words(&["ZADD", "zset", &n, &format!("m{n}")]),
            words(&["XADD", "s", "*", "n", &n, "v", &v10]),
            words(&[
                "XREADGROUP",
                "GROUP",
                "g",
                &format!("c{}", i % 3),
                "COUNT",
                "1",
                "STREAMS",
                "s",
                ">",
            ]),
            words(&["INCR", "counter"]),
        ];
        for v in burst(&mut a, &batch).await {
            match (code(&v), limit(&v)) {
                ("", _) => {}
                ("TOO_LARGE", "SESSION_MEMORY") => break 'fill v,
                ("TOO_LARGE", "PENDING_PER_GROUP") => {}
                _ => panic!("{v}"),
            }
        }
    };
    assert_eq!(limit(&refused), "SESSION_MEMORY");
    // What Redis itself says the session holds (every element counted: SAMPLES 0).
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}*", &ns[..ns.len() - 1]))
        .query_async(&mut admin)
        .await
        .unwrap();
    let mut real = 0u64;
    for k in &keys {
        let m: Option<u64> = redis::cmd("MEMORY")
            .arg("USAGE")
            .arg(k)
            .arg("SAMPLES")
            .arg(0)
            .query_async(&mut admin)
            .await
            .unwrap();
        real += m.unwrap_or(0);
    }
    // Within the budget (each write was admitted with room for it; a read of pending
    // entries in flight may add at most what the pending cap allows, here one at a time).
    let _ = pending_cap;
    eprintln!(
        "{} keys, {real} bytes in Redis (MEMORY USAGE); budget {budget}",
        keys.len()
    );
    assert!(real <= budget, "{real} > {budget}");
    // The accounting is an upper bound, but not a wild one.
    assert!(
        real >= budget / 4,
        "{real} bytes: the accounting is too pessimistic"
    );
}
