//! The lock race run live — the lab's two workers (`LockLive`, the same state machines as the
//! simulation) against a real `redis-server` through the proxy, in real time — ends the same
//! way as the simulation of the same preset: who Redis gives the lock to, whether a plain DEL
//! deletes the other's lock, whether both work at once, and what fencing does to the stale
//! write. Also: the client's protocol types (`redislab_sim::wire`) read what the proxy sends.

mod support;

use redislab_sim::labs::lock::{self, CmdKind, LockLive, LockOutput, LockParams, OwnerEnd, INFO};
use redislab_sim::labs::params::Params;
use redislab_sim::wire::{self, Incoming};
use std::time::Duration;
use support::{config, drive_live, Proxy, RedisServer, Ws};

fn preset(id: &str) -> LockParams {
    let (p, errs) = Params::from_query(&INFO, &format!("preset={id}"));
    assert!(errs.is_empty(), "{errs:?}");
    p.read()
}

/// The race through the proxy, driven as the browser's worker drives it: no error answers.
async fn race_live(ws: &mut Ws, p: &LockParams) -> LockOutput {
    let mut run = LockLive::of(p, None);
    let errors = drive_live(ws, &mut run, Duration::from_secs(60)).await;
    assert!(errors.is_empty(), "{errors:?}");
    run.output()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_race_ends_as_simulated() {
    let redis = RedisServer::start();
    let proxy = Proxy::start(config(&redis.url())).await;
    for id in ["plain-del", "pause", "fencing", "token"] {
        let p = preset(id);
        let sim = lock::run(&p);
        // Each race in its own session: its own namespace, so no key of the last one is left.
        let mut ws = proxy.connect().await;
        let real = race_live(&mut ws, &p).await;
        let (s, r) = (sim.outcome(), real.outcome());
        eprintln!("{id}: simulated {s:?}\n{id}: live      {r:?}");
        // Real replies, each with its round trip.
        assert!(real.commands.iter().all(|c| c.rtt_us.is_some()), "{id}");
        assert!(sim.commands.iter().all(|c| c.rtt_us.is_none()), "{id}");
        let acquired = |x: &LockOutput| {
            x.commands
                .iter()
                .filter(|c| c.kind == CmdKind::Acquire && c.reply == redislab_sim::Reply::ok())
                .count()
        };
        assert_eq!(acquired(&real), acquired(&sim), "{id}");
        assert_eq!(
            r.steals, s.steals,
            "{id}: DELs that removed the other's lock"
        );
        assert_eq!(r.first_steal, s.first_steal, "{id}");
        assert_eq!(r.two_owners, s.two_owners, "{id}: two owners at once");
        assert_eq!(
            r.stale_accepted, s.stale_accepted,
            "{id}: stale writes accepted"
        );
        assert_eq!(r.stale_rejected, s.stale_rejected, "{id}: fencing");
        assert_eq!(r.last_end, s.last_end, "{id}");
        if id != "token" {
            // Who holds the lock, grant by grant. (With the token preset A's heartbeat is
            // due the very millisecond its lock expires — 1000 ms after a grant at about
            // 1 ms — so whether the extend wins is a coin toss on a real clock; the safety
            // outcome above is the same either way.)
            assert_eq!(r.grants, s.grants, "{id}: who got the lock, in order");
        }
    }
    // The time scale: the same race twice as slow (TTL, work, pause, gap ×2) against its own
    // prediction, the simulation of the slowed parameters.
    let slow = preset("fencing").slowed(2);
    assert_eq!(
        (slow.ttl, slow.work, slow.pause, slow.pause_at),
        (2000, 1200, 3000, 400)
    );
    let mut ws = proxy.connect().await;
    let real = race_live(&mut ws, &slow).await;
    assert_eq!(real.outcome(), lock::run(&slow).outcome(), "fencing ×2");
    assert!(real
        .commands
        .iter()
        .any(|c| c.cmd_text().ends_with("NX PX 2000")));
    // The plain DEL: A's DEL ran while B held the lock, and Redis said 1.
    let mut ws = proxy.connect().await;
    let real = race_live(&mut ws, &preset("plain-del")).await;
    let st = real.first_steal().expect("a steal");
    assert_eq!(
        (st.actor, st.cmd_text().as_str(), &st.reply),
        (0, "DEL lock:campaign:42", &redislab_sim::Reply::Integer(1))
    );
    assert_eq!(real.owners[1].actor, 1);
    assert_eq!(real.owners[1].end, OwnerEnd::Stolen);
    // Fencing: A's stale write carried token 1 and was rejected, in the real run too.
    let mut ws = proxy.connect().await;
    let real = race_live(&mut ws, &preset("fencing")).await;
    let w = real
        .writes
        .iter()
        .find(|w| !w.accepted)
        .expect("a rejected write");
    assert_eq!((w.actor, w.fence), (0, Some(1)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_reads_the_proxy_s_errors() {
    // The proxy's codes are the client's type (`redislab_proxy::protocol::Code` is
    // `redislab_sim::wire::Code`); a real refusal from a real proxy reads back typed.
    // And a real one from a real proxy.
    let redis = RedisServer::start();
    let proxy = Proxy::start(config(&redis.url())).await;
    let mut ws = proxy.connect().await;
    ws.send_text(wire::request(5, &[b"KEYS".to_vec(), b"*".to_vec()]))
        .await;
    let v = ws.recv().await.unwrap();
    let Some(Incoming::Answer {
        id: Some(5),
        result: Err(e),
    }) = wire::parse(&v.to_string())
    else {
        panic!("{v}")
    };
    assert_eq!(e.code, wire::Code::Forbidden);
}
