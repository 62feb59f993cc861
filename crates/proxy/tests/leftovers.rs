//! Nothing a session writes is left behind: every key carries an expiry from the moment it is
//! written — after a `kill -9` of its proxy too — the cleanup at a session's end is tried
//! again when Redis does not answer, and a sweeper in another proxy expires the keys of
//! sessions whose proxy died. No secret in the logs, no node address in an error.

mod support;

use serde_json::json;
use std::time::Duration;
use support::{code, config, lab_keys, wait_until, Proxy, ProxyProcess, RedisServer, Ws};

/// Writes with every command that can create a key.
async fn write_everything(ws: &mut Ws) {
    ws.ok(&["SET", "s", "v"]).await;
    ws.ok(&["SET", "kept", "v", "KEEPTTL"]).await;
    ws.ok(&["SET", "lab-ttl", "v", "EX", "900"]).await;
    ws.ok(&["INCR", "n"]).await;
    ws.ok(&["INCRBY", "m", "5"]).await;
    ws.ok(&["RPUSH", "l", "a", "b"]).await;
    ws.ok(&["LPUSH", "l2", "a"]).await;
    ws.ok(&["LMOVE", "l", "moved", "LEFT", "RIGHT"]).await;
    ws.ok(&["HSET", "h", "f", "v"]).await;
    ws.ok(&["HINCRBY", "h2", "f", "1"]).await;
    ws.ok(&["ZADD", "z", "1", "m"]).await;
    ws.ok(&["ZINCRBY", "z2", "1", "m"]).await;
    ws.ok(&["XADD", "x", "*", "f", "v"]).await;
    ws.ok(&["XGROUP", "CREATE", "x2", "g", "$", "MKSTREAM"])
        .await;
    assert_eq!(
        ws.script("addjob", &["job:1", "wait"], &["1", "n", "{}"])
            .await["ok"],
        json!(1)
    );
    ws.ok(&["RPUSH", "src", "x"]).await;
    ws.ok(&["BLMOVE", "src", "bmoved", "LEFT", "RIGHT", "1"])
        .await;
}

/// No key under `lab:*` without an expiry.
async fn every_key_expires(admin: &mut redis::aio::MultiplexedConnection) -> usize {
    let keys = lab_keys(admin).await;
    let forever: Vec<&(String, i64)> = keys.iter().filter(|(_, t)| *t == -1).collect();
    assert!(forever.is_empty(), "keys without a TTL: {forever:?}");
    keys.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_killed_with_sigkill_leaves_no_key_without_a_ttl_and_is_swept() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let url = redis.url();
    let mut dead = ProxyProcess::spawn(&[
        "--redis",
        &url,
        "--heartbeat-ms",
        "200",
        "--session-grace-s",
        "2",
    ]);
    let mut ws = dead.connect().await;
    let ns = ws.namespace();
    write_everything(&mut ws).await;
    let n = every_key_expires(&mut admin).await;
    assert!(n >= 17, "{n} keys");
    // Its registry entry: vouched for by its proxy.
    let id = &ns[5..ns.len() - 2];
    let score: Option<f64> = redis::cmd("ZSCORE")
        .arg("lab:sessions")
        .arg(id)
        .query_async(&mut admin)
        .await
        .unwrap();
    assert!(score.is_some());
    // SIGKILL in the middle of the session: no cleanup ran, yet every key expires.
    dead.kill9();
    drop(ws);
    every_key_expires(&mut admin).await;
    let long = lab_keys(&mut admin)
        .await
        .into_iter()
        .filter(|(k, _)| k.starts_with(&ns[..ns.len() - 1]))
        .all(|(_, t)| t > 2000);
    assert!(long, "only the backstop so far");
    // Another proxy's sweeper finds the session nobody vouches for any more and expires its
    // keys within the grace.
    let mut cfg = config(&url);
    cfg.heartbeat = Duration::from_millis(200);
    cfg.session_grace = Duration::from_secs(2);
    let alive = Proxy::start(cfg).await;
    let prefix = ns[..ns.len() - 1].to_string();
    let admin = tokio::sync::Mutex::new(admin);
    wait_until(
        "the sweeper expired the dead session's keys",
        Duration::from_secs(20),
        || async {
            let keys = lab_keys(&mut *admin.lock().await).await;
            keys.iter()
                .filter(|(k, _)| k.starts_with(&prefix))
                .all(|(_, t)| (0..=2000).contains(t) || *t == -2)
        },
    )
    .await;
    assert_eq!(alive.state.cleanup_counts().1, 1, "one session swept");
    wait_until(
        "the dead session's keys are gone",
        Duration::from_secs(10),
        || async {
            let keys = lab_keys(&mut *admin.lock().await).await;
            !keys.iter().any(|(k, _)| k.starts_with(&prefix))
        },
    )
    .await;
    let mut admin = admin.into_inner();
    let score: Option<f64> = redis::cmd("ZSCORE")
        .arg("lab:sessions")
        .arg(id)
        .query_async(&mut admin)
        .await
        .unwrap();
    assert_eq!(score, None, "out of the registry");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cleanup_is_tried_again_when_redis_does_not_answer() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let mut cfg = config(&redis.url());
    cfg.timeout = Duration::from_millis(300);
    cfg.session_grace = Duration::from_secs(3);
    let proxy = Proxy::start(cfg).await;
    let mut ws = proxy.connect().await;
    let ns = ws.namespace();
    ws.ok(&["SET", "a", "1"]).await;
    ws.ok(&["RPUSH", "b", "1"]).await;
    // Redis stops answering just as the session ends: its cleanup fails, and is tried again.
    redis.pause();
    ws.ws.close(None).await.unwrap();
    drop(ws);
    let p = &proxy;
    wait_until(
        "a failed cleanup attempt",
        Duration::from_secs(10),
        || async move { p.state.cleanup_counts().0 >= 1 },
    )
    .await;
    redis.resume();
    proxy.wait_no_sessions(Duration::from_secs(15)).await;
    for k in ["a", "b"] {
        let t: i64 = redis::cmd("PTTL")
            .arg(format!("{ns}{k}"))
            .query_async(&mut admin)
            .await
            .unwrap();
        assert!((0..=3000).contains(&t), "{k}: {t}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_in_the_logs_and_no_node_in_an_error() {
    let mut redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("requirepass")
        .arg("hunter2-secret")
        .query_async(&mut admin)
        .await
        .unwrap();
    let url = format!("redis://:hunter2-secret@127.0.0.1:{}", redis.port);
    let proxy = ProxyProcess::spawn(&["--redis", &url]);
    let mut ws = proxy.connect().await;
    ws.ok(&["SET", "k", "v"]).await;
    // Redis gone: the error a client sees names no address.
    redis.kill();
    let v = ws.cmd(&["GET", "k"]).await;
    assert_eq!(code(&v), "UNAVAILABLE", "{v}");
    let msg = v["err"]["message"].as_str().unwrap();
    assert!(
        !msg.contains("127.0.0.1") && !msg.contains(&redis.port.to_string()),
        "{msg}"
    );
    let v = ws.cmd(&["SET", "k", "w"]).await;
    assert!(!v.to_string().contains("127.0.0.1"), "{v}");
    drop(ws);
    // The logs (at debug level): the URL shown without its password, nowhere the password.
    let out = proxy.output();
    assert!(out.contains("redis://:***@127.0.0.1"), "{out}");
    assert!(
        !out.contains("hunter2"),
        "the password is in the logs:\n{out}"
    );
}
