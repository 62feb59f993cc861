//! Redis killed and restarted mid-session, Redis paused (CLIENT PAUSE and SIGSTOP), and the
//! proxy's own shutdown.

mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::{code, config, unread_bytes, wait_blocked, wait_until, Proxy, RedisServer};

/// The bytes of a command as it travels to Redis.
fn packed(words: &[&[u8]]) -> usize {
    let mut c = redis::Cmd::new();
    for w in words {
        c.arg(*w);
    }
    c.get_packed_command().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_killed_and_restarted_mid_session() {
    let mut redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let proxy = Proxy::start(config(&redis.url())).await;
    let mut a = proxy.connect().await;
    let ns = a.namespace();
    a.ok(&["SET", "k", "1"]).await;
    a.ok(&["SET", "n", "0"]).await; // known to the session: its next write goes straight out

    // Requests in flight when Redis dies: a blocking read on the session's own connection,
    // a write and a read on the shared one (Redis stopped first, so they are on the wire).
    let blocked = a.start(&["BRPOP", "q", "0"]).await;
    wait_blocked(&mut admin, 1).await;
    redis.pause();
    let write = a.start(&["INCR", "n"]).await;
    let read = a.start(&["GET", "k"]).await;
    // On the wire: Redis (stopped) has them unread in its socket — the INCR with the
    // bookkeeping behind it (its backstop: 13 digits of epoch ms), then the GET.
    let (key, track) = (format!("{ns}n"), ns[..ns.len() - 1].to_string());
    let sha = redislab_proxy::scripts::AFTER.sha1();
    let expected = packed(&[b"INCR", key.as_bytes()])
        + packed(&[
            b"EVALSHA",
            sha.as_bytes(),
            b"2",
            track.as_bytes(),
            key.as_bytes(),
            b"1234567890123",
            b"1",
        ])
        + packed(&[b"GET", format!("{ns}k").as_bytes()]);
    let port = redis.port;
    wait_until(
        "the write and the read on the wire",
        Duration::from_secs(10),
        || async move { unread_bytes(port) >= expected as u64 },
    )
    .await;
    let t = Instant::now();
    redis.kill();
    let mut answers = std::collections::HashMap::new();
    for _ in 0..3 {
        let v = a.recv().await.expect("an answer");
        answers.insert(v["id"].as_u64().unwrap(), code(&v).to_string());
    }
    assert!(
        t.elapsed() < Duration::from_millis(2500),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(answers[&blocked], "UNKNOWN_OUTCOME", "{answers:?}");
    assert_eq!(answers[&write], "UNKNOWN_OUTCOME", "{answers:?}");
    assert_eq!(answers[&read], "UNAVAILABLE", "{answers:?}");

    // While it is down: UNAVAILABLE, quickly, for reads and writes alike (nothing was sent).
    for words in [&["GET", "k"][..], &["SET", "k", "2"][..]] {
        let t = Instant::now();
        let v = a.cmd(words).await;
        assert_eq!(code(&v), "UNAVAILABLE", "{words:?} → {v}");
        assert!(
            t.elapsed() < Duration::from_millis(1500),
            "{:?}",
            t.elapsed()
        );
    }

    // Back (empty, no persistence): the same session works again, no proxy restart.
    redis.restart();
    let a = tokio::sync::Mutex::new(a);
    wait_until(
        "the session works again",
        Duration::from_secs(5),
        || async {
            a.lock()
                .await
                .cmd(&["SET", "k", "3"])
                .await
                .get("ok")
                .is_some()
        },
    )
    .await;
    let mut a = a.into_inner();
    assert_eq!(a.ok(&["GET", "k"]).await, json!("3"));
    assert_eq!(a.ok(&["BRPOP", "q", "0.1"]).await, json!(null));
    assert_eq!(a.script("release", &["k"], &["3"]).await["ok"], json!(1));
    // A new session too.
    let mut b = proxy.connect().await;
    assert_eq!(b.ok(&["GET", "k"]).await, json!(null));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_paused_gives_timeouts_within_the_deadline_and_bounded_work() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let mut cfg = config(&redis.url());
    cfg.timeout = Duration::from_millis(400);
    cfg.max_in_flight = 16;
    cfg.burst = 1000;
    cfg.rate_per_sec = 1000;
    let proxy = Proxy::start(cfg).await;
    let mut a = proxy.connect().await;
    a.ok(&["SET", "k", "1"]).await;

    for how in ["CLIENT PAUSE", "SIGSTOP"] {
        if how == "SIGSTOP" {
            redis.pause();
        } else {
            let _: () = redis::cmd("CLIENT")
                .arg("PAUSE")
                .arg(1500)
                .arg("ALL")
                .query_async(&mut admin)
                .await
                .unwrap();
        }
        // 100 requests at once: the first 16 wait for Redis and time out at the deadline;
        // the rest are refused at once (the in-flight bound: nothing piles up).
        let t = Instant::now();
        for i in 0..100 {
            if i % 2 == 0 {
                a.start(&["GET", "k"]).await;
            } else {
                a.start(&["INCR", "n"]).await;
            }
        }
        let mut timeouts = 0;
        let mut limited = 0;
        for _ in 0..100 {
            let v = a.recv().await.unwrap();
            match code(&v) {
                "TIMEOUT" => timeouts += 1,
                "RATE_LIMITED" => limited += 1,
                other => panic!("{how}: {other}: {v}"),
            }
        }
        let took = t.elapsed();
        assert_eq!((timeouts, limited), (16, 84), "{how}");
        // The 400 ms deadline plus slack for a loaded machine.
        assert!(took < Duration::from_millis(1400), "{how}: {took:?}");
        if how == "SIGSTOP" {
            redis.resume();
        }
        // After the pause: served again.
        let t = Instant::now();
        loop {
            let v = a.cmd(&["GET", "k"]).await;
            if v.get("ok").is_some() {
                assert_eq!(v["ok"], json!("1"));
                break;
            }
            assert!(t.elapsed() < Duration::from_secs(5), "{how}: not back: {v}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_answers_what_is_in_flight_and_sends_close_frames() {
    let redis = RedisServer::start();
    let mut admin = redis.admin().await;
    let proxy = Proxy::start(config(&redis.url())).await;
    let mut socks = Vec::new();
    for _ in 0..3 {
        socks.push(proxy.connect().await);
    }
    let blocked = socks[0].start(&["BRPOP", "q", "0"]).await;
    wait_blocked(&mut admin, 1).await;
    let t = Instant::now();
    let state = proxy.state.clone();
    let done = tokio::spawn(async move { state.shutdown(Duration::from_secs(5)).await });
    let v = socks[0].answer(blocked).await;
    assert_eq!(code(&v), "UNKNOWN_OUTCOME", "{v}");
    for s in &mut socks {
        let f = s.close_frame().await.expect("a close frame");
        assert_eq!(u16::from(f.code), 1001);
    }
    done.await.unwrap();
    assert_eq!(proxy.state.sessions(), 0);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}
