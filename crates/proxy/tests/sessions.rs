//! What a session can do: commands in its own namespace, replies without the prefix, the
//! named scripts (reloaded after SCRIPT FLUSH), blocking reads on its own connection with a
//! bounded block time, its keys expiring after it ends; and the static files' headers.

mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::{code, config, wait_blocked, wait_until, Proxy, RedisServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_run_in_the_session_namespace() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let proxy = Proxy::start(config(&redis.url())).await;
    let mut a = proxy.connect().await;
    let mut b = proxy.connect().await;
    let (na, nb) = (a.namespace(), b.namespace());
    assert!(
        na.starts_with("lab:{") && na.ends_with("}:") && na.len() == 32 + 7,
        "{na}"
    );
    assert_ne!(na, nb);
    assert!(a.hello["commands"].as_array().unwrap().len() == 51);
    assert_eq!(a.hello["scripts"][0]["name"], "release");

    // The issue's example, then the same key in two sessions.
    let v = a.cmd(&["SET", "lock:x", "tok", "NX", "PX", "5000"]).await;
    assert_eq!(v, json!({"id": v["id"], "ok": {"status": "OK"}}));
    assert_eq!(a.ok(&["SET", "lock:x", "other", "NX"]).await, json!(null));
    assert_eq!(b.ok(&["GET", "lock:x"]).await, json!(null));
    b.ok(&["SET", "lock:x", "b's"]).await;
    assert_eq!(a.ok(&["GET", "lock:x"]).await, json!("tok"));
    assert_eq!(b.ok(&["get", "lock:x"]).await, json!("b's"));
    // In Redis, under the prefixes.
    let real: Option<String> = redis::cmd("GET")
        .arg(format!("{na}lock:x"))
        .query_async(&mut admin)
        .await
        .unwrap();
    assert_eq!(real.as_deref(), Some("tok"));
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("*")
        .query_async(&mut admin)
        .await
        .unwrap();
    // The sessions' keys and tracking sets, and the proxy's registry of sessions.
    assert!(
        keys.iter().all(|k| k.starts_with(&na[..na.len() - 1])
            || k.starts_with(&nb[..nb.len() - 1])
            || k == "lab:sessions"),
        "{keys:?}"
    );

    // Multi-key commands, Redis' own errors, reply shapes.
    a.ok(&["SET", "k1", "1"]).await;
    assert_eq!(
        a.ok(&["MGET", "k1", "lock:x", "nope"]).await,
        json!(["1", "tok", null])
    );
    assert_eq!(a.ok(&["EXISTS", "k1", "nope"]).await, json!(1));
    let v = a.cmd(&["LPUSH", "k1", "x"]).await;
    assert_eq!(code(&v), "REDIS");
    assert!(
        v["err"]["message"]
            .as_str()
            .unwrap()
            .starts_with("WRONGTYPE"),
        "{v}"
    );
    assert_eq!(a.ok(&["INCRBY", "n", "5"]).await, json!(5));
    assert_eq!(a.ok(&["PING"]).await, json!({"status": "PONG"}));
    assert_eq!(a.ok(&["HSET", "h", "f", "v"]).await, json!(1));
    assert_eq!(a.ok(&["HGETALL", "h"]).await, json!(["f", "v"]));
    assert_eq!(a.ok(&["ZADD", "z", "1", "m"]).await, json!(1));
    assert_eq!(
        a.ok(&["ZRANGE", "z", "0", "-1", "WITHSCORES"]).await,
        json!(["m", "1"])
    );
    assert_eq!(a.ok(&["PUBLISH", "ch", "hi"]).await, json!(0));
    assert_eq!(a.ok(&["DEL", "k1", "n", "h", "z"]).await, json!(4));

    // Streams: group, read (stream names come back without the prefix), ack.
    a.ok(&["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"]).await;
    let id = a.ok(&["XADD", "s", "*", "job", "1"]).await;
    let r = a
        .ok(&[
            "XREADGROUP",
            "GROUP",
            "g",
            "c",
            "COUNT",
            "10",
            "STREAMS",
            "s",
            ">",
        ])
        .await;
    assert_eq!(r, json!([["s", [[id.clone(), ["job", "1"]]]]]));
    assert_eq!(
        a.ok(&["XACK", "s", "g", id.as_str().unwrap()]).await,
        json!(1)
    );
    let r = a.ok(&["XAUTOCLAIM", "s", "g", "c2", "0", "0"]).await;
    assert_eq!(r[0], json!("0-0"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn named_scripts_run_and_reload_after_script_flush() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let proxy = Proxy::start(config(&redis.url())).await;
    let mut a = proxy.connect().await;
    a.ok(&["SET", "lock", "tok", "PX", "10000"]).await;
    assert_eq!(
        a.script("extend", &["lock"], &["nope", "500"]).await["ok"],
        json!(0)
    );
    assert_eq!(
        a.script("extend", &["lock"], &["tok", "50000"]).await["ok"],
        json!(1)
    );
    let pttl = a.ok(&["PTTL", "lock"]).await.as_i64().unwrap();
    assert!(pttl > 10_000, "{pttl}");
    // The script cache emptied behind the proxy's back: EVALSHA → NOSCRIPT → LOAD → again.
    let _: () = redis::cmd("SCRIPT")
        .arg("FLUSH")
        .query_async(&mut admin)
        .await
        .unwrap();
    assert_eq!(
        a.script("release", &["lock"], &["other"]).await["ok"],
        json!(0)
    );
    assert_eq!(
        a.script("release", &["lock"], &["tok"]).await["ok"],
        json!(1)
    );
    assert_eq!(a.ok(&["EXISTS", "lock"]).await, json!(0));
    // A script's own error is Redis'.
    a.ok(&["RPUSH", "list", "x"]).await;
    let v = a.script("release", &["list"], &["t"]).await;
    assert_eq!(code(&v), "REDIS", "{v}");
    assert!(
        v["err"]["message"].as_str().unwrap().contains("WRONGTYPE"),
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocking_reads_are_bounded_and_hold_up_nobody() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let proxy = Proxy::start(config(&redis.url())).await; // max block 1 s
    let mut a = proxy.connect().await;
    let mut b = proxy.connect().await;

    // BRPOP with 0 ("for ever") is bounded: nil after about a second.
    let t = Instant::now();
    let blocked = a.start(&["BRPOP", "q", "0"]).await;
    // Meanwhile b, and a itself, are served at once.
    for i in 0..50 {
        let t1 = Instant::now();
        b.ok(&["SET", "k", &i.to_string()]).await;
        assert!(
            t1.elapsed() < Duration::from_millis(300),
            "{:?}",
            t1.elapsed()
        );
    }
    let v = a.answer(blocked).await;
    assert_eq!(v["ok"], json!(null), "{v}");
    let waited = t.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_millis(2500),
        "{waited:?}"
    );

    // A pop that gets an element answers with the key name without the prefix.
    let blocked = a.start(&["BRPOP", "q2", "q", "5"]).await;
    wait_blocked(&mut admin, 1).await;
    let push = a.start(&["RPUSH", "q", "job"]).await;
    // The two answers may come in either order.
    let mut got = std::collections::HashMap::new();
    for _ in 0..2 {
        let v = a.recv().await.unwrap();
        got.insert(v["id"].as_u64().unwrap(), v["ok"].clone());
    }
    assert_eq!(got[&push], json!(1));
    assert_eq!(got[&blocked], json!(["q", "job"]));
    // BLMOVE and XREADGROUP BLOCK.
    a.ok(&["RPUSH", "src", "x"]).await;
    assert_eq!(
        a.ok(&["BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"]).await,
        json!("x")
    );
    a.ok(&["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"]).await;
    let t = Instant::now();
    let v = a
        .ok(&[
            "XREADGROUP",
            "GROUP",
            "g",
            "c",
            "BLOCK",
            "0",
            "STREAMS",
            "s",
            ">",
        ])
        .await;
    assert_eq!(v, json!(null));
    assert!(t.elapsed() < Duration::from_millis(2500));
}

/// Requests sent one after another without waiting: each is answered exactly once with its
/// own reply (answers that are ready together go out in one write), and another session is
/// served meanwhile. (The in-flight bound: `reliability.rs`, Redis paused.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_requests_are_each_answered_once() {
    let redis = RedisServer::start();
    let mut cfg = config(&redis.url());
    cfg.max_in_flight = 32;
    let proxy = Proxy::start(cfg).await;
    let mut a = proxy.connect().await;
    let mut b = proxy.connect().await;
    for round in 0..5 {
        let mut incrs = std::collections::HashSet::new();
        let mut gets = std::collections::HashSet::new();
        for i in 0..32 {
            if i % 4 == 3 {
                gets.insert(a.start(&["GET", "fixed"]).await);
            } else {
                incrs.insert(a.start(&["INCR", "n"]).await);
            }
        }
        // Another session is served meanwhile.
        assert_eq!(b.ok(&["INCR", "m"]).await, json!(round + 1));
        let mut values = Vec::new();
        for _ in 0..32 {
            let v = a.recv().await.unwrap();
            let id = v["id"].as_u64().unwrap();
            if incrs.remove(&id) {
                values.push(v["ok"].as_i64().unwrap());
            } else {
                assert!(gets.remove(&id), "an answer to no request, or twice: {v}");
                assert_eq!(v["ok"], json!(null), "{v}");
            }
        }
        assert!(incrs.is_empty() && gets.is_empty());
        values.sort_unstable();
        let from = round * 24;
        assert_eq!(values, ((from + 1)..=(from + 24)).collect::<Vec<_>>());
    }
}

async fn pttl(admin: &mut redis::aio::MultiplexedConnection, key: &str) -> i64 {
    redis::cmd("PTTL")
        .arg(key)
        .query_async(admin)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_keys_expire_after_it_ends() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let mut cfg = config(&redis.url());
    cfg.session_grace = Duration::from_millis(1500);
    let life = cfg.max_session + cfg.session_grace;
    let proxy = Proxy::start(cfg).await;
    let mut a = proxy.connect().await;
    let ns = a.namespace();
    a.ok(&["SET", "forever", "1"]).await;
    a.ok(&["SET", "short", "1", "PX", "600"]).await;
    a.ok(&["RPUSH", "list", "a", "b"]).await;
    a.ok(&["XADD", "s", "*", "f", "v"]).await;
    a.ok(&["INCR", "n"]).await;
    a.ok(&["HSET", "h", "f", "v"]).await;
    a.ok(&["SET", "forever", "2"]).await; // again: a key the session knows
                                          // Through the proxy a key without a TTL of its own reads -1, as the labs teach…
    for k in ["forever", "list", "s", "n", "h"] {
        assert_eq!(a.ok(&["TTL", k]).await, json!(-1), "{k}");
        assert_eq!(a.ok(&["PTTL", k]).await, json!(-1), "{k}");
    }
    assert_eq!(a.ok(&["PERSIST", "forever"]).await, json!(0));
    // …but in Redis every one carries the session's backstop from the moment it was written.
    for k in ["forever", "list", "s", "n", "h"] {
        let t = pttl(&mut admin, &format!("{ns}{k}")).await;
        assert!(t > 0 && t <= life.as_millis() as i64, "{k}: {t}");
    }
    let t = pttl(&mut admin, &format!("{ns}short")).await;
    assert!(t > 0 && t <= 600, "{t}");
    a.ws.close(None).await.unwrap();
    drop(a);
    // The session's end: its keys' expiry within the grace (the lab's shorter one kept).
    proxy.wait_no_sessions(Duration::from_secs(10)).await;
    for k in ["forever", "list", "s", "n", "h"] {
        let t = pttl(&mut admin, &format!("{ns}{k}")).await;
        assert!(t > 0 && t <= 1500, "{k}: {t}");
    }
    assert!(pttl(&mut admin, &format!("{ns}short")).await <= 600);
    // All gone, the tracking set too.
    let id = ns[..ns.len() - 1].to_string();
    let admin = tokio::sync::Mutex::new(admin);
    wait_until(
        "every key of the session expired",
        Duration::from_secs(10),
        || async {
            let keys: Vec<String> = redis::cmd("KEYS")
                .arg(format!("{id}*"))
                .query_async(&mut *admin.lock().await)
                .await
                .unwrap();
            keys.is_empty()
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lab_s_own_ttls_keep_redis_semantics() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let proxy = Proxy::start(config(&redis.url())).await;
    let mut a = proxy.connect().await;
    let ns = a.namespace();
    a.ok(&["SET", "k", "v"]).await;
    // NX applies while only the backstop is there; then XX, GT, LT see the lab's TTL.
    assert_eq!(a.ok(&["EXPIRE", "k", "100", "XX"]).await, json!(0));
    assert_eq!(a.ok(&["EXPIRE", "k", "100", "GT"]).await, json!(0));
    assert_eq!(a.ok(&["EXPIRE", "k", "100", "NX"]).await, json!(1));
    let t = a.ok(&["TTL", "k"]).await.as_i64().unwrap();
    assert!((99..=100).contains(&t), "{t}");
    assert_eq!(a.ok(&["EXPIRE", "k", "50", "NX"]).await, json!(0));
    assert_eq!(a.ok(&["EXPIRE", "k", "50", "GT"]).await, json!(0));
    assert_eq!(a.ok(&["EXPIRE", "k", "50", "LT"]).await, json!(1));
    assert_eq!(a.ok(&["PEXPIRE", "k", "200000", "GT"]).await, json!(1));
    let t = a.ok(&["PTTL", "k"]).await.as_i64().unwrap();
    assert!(t > 150_000 && t <= 200_000, "{t}");
    // PERSIST: the lab's TTL gone (TTL -1), the backstop back in Redis.
    assert_eq!(a.ok(&["PERSIST", "k"]).await, json!(1));
    assert_eq!(a.ok(&["TTL", "k"]).await, json!(-1));
    assert!(pttl(&mut admin, &format!("{ns}k")).await > 200_000);
    // A TTL past the session's end is kept just before it.
    assert_eq!(a.ok(&["EXPIRE", "k", "999999999"]).await, json!(1));
    let t = pttl(&mut admin, &format!("{ns}k")).await;
    assert!(t > 0 && t < (2 * 3600 + 60) * 1000, "{t}");
    a.ok(&["SET", "k2", "v", "EX", "999999999"]).await;
    let t = pttl(&mut admin, &format!("{ns}k2")).await;
    assert!(t > 0 && t < (2 * 3600 + 60) * 1000, "{t}");
    // Missing keys and bad numbers as Redis answers them; EXPIRE to the past deletes.
    assert_eq!(a.ok(&["TTL", "nope"]).await, json!(-2));
    assert_eq!(a.ok(&["EXPIRE", "nope", "10"]).await, json!(0));
    assert_eq!(a.ok(&["PERSIST", "nope"]).await, json!(0));
    assert_eq!(code(&a.cmd(&["EXPIRE", "k", "soon"]).await), "REDIS");
    assert_eq!(a.ok(&["EXPIRE", "k", "0"]).await, json!(1));
    assert_eq!(a.ok(&["EXISTS", "k"]).await, json!(0));
    // SET … KEEPTTL of a new key: the backstop; of one with a TTL: kept.
    a.ok(&["SET", "kt", "v", "KEEPTTL"]).await;
    assert_eq!(a.ok(&["TTL", "kt"]).await, json!(-1));
    assert!(pttl(&mut admin, &format!("{ns}kt")).await > 0);
    a.ok(&["SET", "kt2", "v", "PX", "5000"]).await;
    a.ok(&["SET", "kt2", "w", "KEEPTTL"]).await;
    let t = a.ok(&["PTTL", "kt2"]).await.as_i64().unwrap();
    assert!(t > 0 && t <= 5000, "{t}");
    // The token-checked `extend` cannot push a TTL past the session's end either.
    a.ok(&["SET", "lock", "tok", "PX", "1000"]).await;
    assert_eq!(
        a.script("extend", &["lock"], &["tok", "99999999999"]).await["ok"],
        json!(1)
    );
    let t = pttl(&mut admin, &format!("{ns}lock")).await;
    assert!(t > 0 && t < (2 * 3600 + 60) * 1000, "{t}");
    // Nor presence's `markactive` (its TTL in seconds); the HyperLogLog it creates gets the
    // backstop.
    assert_eq!(
        a.script(
            "markactive",
            &["room", "hll"],
            &["u1", "1", "500", "99999999999"]
        )
        .await["ok"],
        json!(1)
    );
    for k in ["room", "hll"] {
        let t = pttl(&mut admin, &format!("{ns}{k}")).await;
        assert!(t > 0 && t < (2 * 3600 + 60) * 1000, "{k}: {t}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn static_files_have_cache_headers_and_gzip() {
    let dir = std::env::temp_dir().join(format!("redislab-proxy-dist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html>".repeat(200)).unwrap();
    std::fs::write(
        dir.join("redislab-0123456789abcdef.js"),
        "let x = 1;\n".repeat(500),
    )
    .unwrap();
    std::fs::write(
        dir.join("redislab-0123456789abcdef_bg.wasm"),
        vec![0u8; 5000],
    )
    .unwrap();
    std::fs::write(dir.join("redislab-0123456789abcdef_bg.wasm.gz"), b"gzipped").unwrap();
    let redis = RedisServer::start();
    let mut cfg = config(&redis.url());
    cfg.dist = dir.clone();
    let proxy = Proxy::start(cfg).await;
    let get = |path: &str| {
        let req = format!(
            "GET {path} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n"
        );
        let addr = proxy.addr;
        async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
            s.write_all(req.as_bytes()).await.unwrap();
            let mut buf = Vec::new();
            s.read_to_end(&mut buf).await.unwrap();
            let head_end = buf.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
            String::from_utf8_lossy(&buf[..head_end]).to_lowercase()
        }
    };
    let index = get("/").await;
    assert!(index.starts_with("http/1.1 200"), "{index}");
    assert!(index.contains("cache-control: no-cache"), "{index}");
    assert!(index.contains("content-encoding: gzip"), "{index}");
    let js = get("/redislab-0123456789abcdef.js").await;
    assert!(
        js.contains("cache-control: public, max-age=31536000, immutable"),
        "{js}"
    );
    assert!(js.contains("content-encoding: gzip"), "{js}");
    assert!(get("/nope.js").await.starts_with("http/1.1 404"));
    // A precompressed file beside the original is sent as it is.
    let wasm = get("/redislab-0123456789abcdef_bg.wasm").await;
    assert!(wasm.contains("content-encoding: gzip"), "{wasm}");
    assert!(wasm.contains("content-length: 7\r\n"), "{wasm}");
    assert!(wasm.contains("immutable"), "{wasm}");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_blocking_reads_take_turns_within_the_deadline() {
    let redis = RedisServer::start();
    let mut cfg = config(&redis.url());
    cfg.timeout = Duration::from_millis(300);
    cfg.limits.max_block_ms = 1500;
    let proxy = Proxy::start(cfg).await;
    let mut a = proxy.connect().await;
    // One blocking read at a time per session; one that cannot start within the request
    // timeout is TIMEOUT (never sent), not queued behind the others for ever.
    let mut admin = redis.admin().await;
    let first = a.start(&["BRPOP", "q", "0"]).await;
    wait_blocked(&mut admin, 1).await;
    let second = a.start(&["BRPOP", "q", "0"]).await;
    let third = a.start(&["BLMOVE", "q", "r", "LEFT", "LEFT", "0"]).await;
    let mut codes = std::collections::HashMap::new();
    for _ in 0..3 {
        let v = a.recv().await.unwrap();
        codes.insert(v["id"].as_u64().unwrap(), code(&v).to_string());
    }
    assert_eq!(codes[&first], "", "{codes:?}");
    assert_eq!(codes[&second], "TIMEOUT", "{codes:?}");
    assert_eq!(codes[&third], "TIMEOUT", "{codes:?}");
}
