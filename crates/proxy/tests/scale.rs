//! 500 concurrent sockets on one proxy; two proxies against one Redis.

mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::{config, Proxy, RedisServer, Ws};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_hundred_concurrent_sockets() {
    const N: usize = 500;
    let redis = RedisServer::start();
    let mut cfg = config(&redis.url());
    cfg.max_connections = N;
    // All from loopback: one address.
    cfg.max_sessions_per_address = N;
    cfg.new_sessions_burst = N as u32;
    // One address's work together (2,000 requests at once here) is not what this measures.
    cfg.address_rate = 100_000;
    cfg.address_burst = 100_000;
    cfg.frames_per_sec = 100_000;
    cfg.frames_burst = 100_000;
    // About concurrency, not deadlines: on a loaded 2-core machine 1,500 requests at once
    // can take longer than the tests' usual 1 s.
    cfg.timeout = Duration::from_secs(5);
    let proxy = Proxy::start(cfg).await;
    let t = Instant::now();
    // Open all (50 upgrades at a time), hold them open together.
    let mut socks: Vec<Ws> = Vec::with_capacity(N);
    for chunk in 0..N / 50 {
        let opened = futures_util::future::join_all((0..50).map(|_| {
            let p = &proxy;
            async move { p.connect().await }
        }))
        .await;
        socks.extend(opened);
        assert_eq!(proxy.state.sessions(), (chunk + 1) * 50);
    }
    // The cap is reached: one more is refused.
    assert!(Ws::connect(proxy.addr, Some(&proxy.origin()))
        .await
        .is_err());
    // Every socket works at the same time, each in its own namespace.
    let results =
        futures_util::future::join_all(socks.iter_mut().enumerate().map(|(i, s)| async move {
            s.ok(&["SET", "who", &i.to_string()]).await;
            s.ok(&["INCR", "n"]).await;
            (s.ok(&["GET", "who"]).await, s.ok(&["GET", "n"]).await)
        }))
        .await;
    for (i, (who, n)) in results.into_iter().enumerate() {
        assert_eq!(who, json!(i.to_string()));
        assert_eq!(n, json!("1"));
    }
    let namespaces: std::collections::HashSet<String> = socks.iter().map(Ws::namespace).collect();
    assert_eq!(namespaces.len(), N);
    drop(socks);
    proxy.wait_no_sessions(Duration::from_secs(60)).await;
    assert_eq!(proxy.state.sessions(), 0);
    println!("{N} sockets opened, used and closed in {:?}", t.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_proxies_one_redis() {
    let redis = RedisServer::start();
    let p1 = Proxy::start(config(&redis.url())).await;
    let p2 = Proxy::start(config(&redis.url())).await;
    let mut a = p1.connect().await;
    let mut b = p2.connect().await;
    assert_ne!(a.namespace(), b.namespace());
    // Same key names, isolated.
    a.ok(&["SET", "lock:x", "a"]).await;
    b.ok(&["SET", "lock:x", "b"]).await;
    assert_eq!(a.ok(&["GET", "lock:x"]).await, json!("a"));
    assert_eq!(b.ok(&["GET", "lock:x"]).await, json!("b"));
    // The named scripts work through either (each loads them on NOSCRIPT as needed).
    assert_eq!(
        a.script("release", &["lock:x"], &["b"]).await["ok"],
        json!(0)
    );
    assert_eq!(
        b.script("release", &["lock:x"], &["b"]).await["ok"],
        json!(1)
    );
    assert_eq!(a.ok(&["GET", "lock:x"]).await, json!("a"));
    // A client that reconnects may land on either proxy: it gets a fresh session that works
    // the same, and sees neither its old keys nor anyone else's.
    let mut again = [p2.connect().await, p1.connect().await];
    for s in &mut again {
        assert_eq!(s.ok(&["GET", "lock:x"]).await, json!(null));
        s.ok(&["SET", "lock:x", "c", "NX", "PX", "5000"]).await;
        assert_eq!(
            s.script("release", &["lock:x"], &["c"]).await["ok"],
            json!(1)
        );
    }
    assert_eq!(a.ok(&["GET", "lock:x"]).await, json!("a"));
    // One proxy going away leaves the other's sessions untouched.
    p1.state.shutdown(Duration::from_secs(5)).await;
    assert!(a.close_frame().await.is_some());
    assert_eq!(b.ok(&["GET", "lock:x"]).await, json!(null));
    b.ok(&["SET", "lock:x", "still"]).await;
}
