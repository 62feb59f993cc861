//! The queue lab run live — the broadcast lab's API and BullMQ-style worker slots
//! (`BroadcastLive`, the same state machines as the simulation) against a real
//! `redis-server` through the proxy, in real time, with the counts a live run carries
//! (`BroadcastParams::for_live`) — ends as the simulation of the same shaped parameters
//! predicts, and Redis' own keys say so: `ZCARD bull:push:completed` and `bull:push:failed`
//! under the session's namespace, the jobs' hashes, the dedup key. Every command went
//! through the proxy (the `addjob`, `release` and `extend` named scripts by name), and the
//! slots' blocking reads, which the proxy runs one at a time per session, never waited past
//! its request timeout.

mod support;

use redislab_proxy::Config;
use redislab_sim::labs::broadcast::{self, BroadcastOutput, BroadcastParams, INFO};
use redislab_sim::labs::params::Params;
use std::time::Duration;
use support::{connect, drive_live, Proxy, RedisServer};

fn preset(id: &str) -> BroadcastParams {
    let (p, errs) = Params::from_query(&INFO, &format!("preset={id}"));
    assert!(errs.is_empty(), "{errs:?}");
    p.read()
}

async fn zcard(c: &mut redis::aio::MultiplexedConnection, key: &str) -> u64 {
    redis::cmd("ZCARD").arg(key).query_async(c).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_queue_ends_as_predicted_in_redis_itself() {
    let redis = RedisServer::start();
    // The proxy as the app runs it: a 2 s request timeout, blocks of at most 5 s.
    let proxy = Proxy::start(Config::new(redis.url())).await;
    let mut direct = connect(&redis.url()).await;
    for (id, k) in [
        ("outage", 1),
        ("outage&attempts=1", 1),
        ("no-retry", 1),
        ("dedup", 1),
        ("fixed", 2),
    ] {
        let cfg = preset(id).for_live(k);
        let p = &cfg.p;
        let sim = broadcast::sim(&cfg).finish();
        // Each run in its own session: its own namespace, as the worker opens one a run.
        let mut ws = proxy.connect().await;
        let ns = ws.namespace();
        let mut run = broadcast::live_run(&cfg);
        let errors = drive_live(&mut ws, &mut run, Duration::from_secs(60 * k)).await;
        let real: BroadcastOutput = run.output();
        eprintln!(
            "{id} ×{k}: live {} ms, sim {} ms\n{}",
            real.end_ms,
            sim.end_ms,
            broadcast::text(&real)
        );
        assert!(errors.is_empty(), "{id}: {errors:?}");
        let (a, b) = (real.counters, sim.counters);
        assert_eq!(
            (
                a.delivered,
                a.sent_twice,
                a.lost,
                a.retries,
                a.failed_jobs,
                a.jobs,
                a.dedup_refused
            ),
            (
                b.delivered,
                b.sent_twice,
                b.lost,
                b.retries,
                b.failed_jobs,
                b.jobs,
                b.dedup_refused
            ),
            "{id}:\nlive {}\nsim  {}",
            broadcast::text(&real),
            broadcast::text(&sim)
        );
        assert_eq!(real.completed(), sim.completed(), "{id}");
        // Redis' own keys, read directly, under the session's namespace.
        let completed = zcard(&mut direct, &format!("{ns}bull:push:completed")).await;
        let failed = zcard(&mut direct, &format!("{ns}bull:push:failed")).await;
        assert_eq!(completed, sim.completed(), "{id}: ZCARD completed");
        assert_eq!(failed, sim.counters.failed_jobs, "{id}: ZCARD failed");
        let waiting: u64 = redis::cmd("LLEN")
            .arg(format!("{ns}bull:push:wait"))
            .query_async(&mut direct)
            .await
            .unwrap();
        assert_eq!(waiting, 0, "{id}: nothing left waiting");
        // A failed batch's hash carries its reason and its attempts, as BullMQ's does.
        if failed > 0 {
            let ids: Vec<String> = redis::cmd("ZRANGE")
                .arg(format!("{ns}bull:push:failed"))
                .arg(0)
                .arg(-1)
                .query_async(&mut direct)
                .await
                .unwrap();
            let (reason, made): (String, u32) = redis::cmd("HMGET")
                .arg(format!("{ns}bull:push:{}", ids[0]))
                .arg("failedReason")
                .arg("atm")
                .query_async(&mut direct)
                .await
                .unwrap();
            assert!(
                reason.starts_with("messaging/server-unavailable"),
                "{id}: {reason}"
            );
            assert_eq!(made, p.attempts, "{id}");
        }
        if id == "dedup" {
            let ttl: i64 = redis::cmd("TTL")
                .arg(format!("{ns}bcast:dedup:campaign:42"))
                .query_async(&mut direct)
                .await
                .unwrap();
            assert!(ttl > 0 && ttl <= 900, "{id}: the dedup key's TTL {ttl}");
        }
        // The log: real replies with their round trips; the batches added by the named
        // script, released by the token-checked one.
        assert!(real.log().iter().all(|c| c.rtt_us.is_some()), "{id}");
        let sent = |prefix: &str| real.log().iter().any(|c| c.cmd_text().starts_with(prefix));
        assert!(sent("EVALSHA"), "{id}: the named scripts");
        assert!(
            sent("BLMOVE bull:push:wait bull:push:active RIGHT LEFT 0.200"),
            "{id}"
        );
        if a.retries > 0 {
            assert!(sent("ZADD bull:push:delayed"), "{id}");
        }
        drop(ws);
    }
}
