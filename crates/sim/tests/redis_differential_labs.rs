//! The labs' worlds against a real Redis 7 (`tests/common` starts it), through a
//! [`Backend`] over the RESP client: the same actors, the same decisions, every reply as on
//! SimRedis.
//!
//! * `the_lock_race_runs_unchanged_against_a_real_redis`: the lock lab's two workers
//!   (`labs::lock::LockScenario`: token release, heartbeat, fencing, double-click dedup), with
//!   the real server as their world's `Backend`, produce exactly the trace they produce on
//!   SimRedis.
//! * `the_round_trips_ways_end_alike_on_a_real_redis`, `the_invalidation_actions_agree_with_a_real_redis`:
//!   the round-trip lab's five ways and the invalidation lab's actions end alike.

mod common;

use common::{Conn, Server};
use redislab_sim::labs::lock::{LockParams, LockScenario, Release};
use redislab_sim::labs::params::Switch;
use redislab_sim::labs::scenario::Scenario;
use redislab_sim::redis::{scripts, SimRedis};
use redislab_sim::world::{Backend, Delivery, Sent};
use redislab_sim::Reply;

/// The same actors against a real Redis: a [`Backend`] over the RESP client, one connection
/// per actor. The world still keeps virtual time (a live driver would wait in real time);
/// with work well inside the lock TTL no expiry matters, so the whole trace — every command,
/// every reply, every decision — must equal the SimRedis run's. This is the seam the live
/// mode uses: actors decide what to send, the backend answers.
struct RealRedis {
    port: u16,
    conns: std::collections::BTreeMap<u64, Conn>,
}

impl Backend for RealRedis {
    fn send(&mut self, _now_ms: u64, _op: usize, client: u64, cmd: &[Vec<u8>]) -> Sent {
        let port = self.port;
        let c = self
            .conns
            .entry(client)
            .or_insert_with(|| Conn::open(port).expect("connect"));
        Sent::Reply(c.call(cmd))
    }
    fn take_woken(&mut self) -> Vec<Delivery> {
        Vec::new()
    }
    fn next_timeout_ms(&self) -> Option<u64> {
        None
    }
    fn advance_to(&mut self, _now_ms: u64) -> Vec<Delivery> {
        Vec::new()
    }
}

#[test]
fn the_lock_race_runs_unchanged_against_a_real_redis() {
    let mut server = Server::start();
    let mut admin = server.conn();
    for s in scripts::SCRIPTS {
        assert_eq!(
            admin.cmd(&["SCRIPT", "LOAD", s.source]),
            Reply::bulk(s.sha1)
        );
    }
    // Every command the lab sends: SET NX PX, the heartbeat's extend script, the fencing
    // INCR, the dedup SET NX EX and the token release. No key may expire by real time while
    // the world runs in virtual time: work (800 ms, heartbeats every 333 ms) stays inside the
    // TTL and there is no pause.
    let base = LockParams {
        ttl: 1000,
        work: 800,
        jobs: 3,
        release: Release::Token,
        heartbeat: Switch::On,
        fencing: Switch::On,
        dedup: Switch::On,
        pause: 0,
        ..LockParams::default()
    };
    for seed in [1, 2, 3] {
        admin.cmd(&["FLUSHALL"]);
        let p = LockParams {
            seed,
            ..base.clone()
        };
        let mut sim = LockScenario::new(&p).world(SimRedis::new(seed).with_named_scripts(), false);
        sim.run(100_000);
        let mut real = LockScenario::new(&p).world(
            RealRedis {
                port: server.port(),
                conns: Default::default(),
            },
            false,
        );
        real.run(100_000);
        assert!(sim.trace().len() > 40);
        let t = sim.trace_text();
        for c in ["EVALSHA", "INCR", "dedup:"] {
            assert!(t.contains(c), "the run sends {c}: {t}");
        }
        assert_eq!(
            sim.trace(),
            real.trace(),
            "seed {seed}\nSimRedis:\n{}\nRedis:\n{}",
            t,
            real.trace_text()
        );
    }
}

/// The round-trips lab's five ways (one by one, a pipeline, MULTI/EXEC, WATCH + MULTI and the
/// presence script), with clients racing for the room's last place and with the room's key
/// of the wrong type, end on a real Redis exactly as on SimRedis: every command's reply in
/// Redis' order (EXEC's arrays, WATCH's nil EXEC, the script's errors with no rollback), the
/// room's size, the HyperLogLog's estimate and the TTL.
#[test]
fn the_round_trips_ways_end_alike_on_a_real_redis() {
    use redislab_sim::labs::params::Params;
    use redislab_sim::labs::roundtrips::{scenario, RoundTripsParams, Way, INFO};
    let mut server = Server::start();
    let mut admin = server.conn();
    for s in scripts::SCRIPTS {
        assert_eq!(
            admin.cmd(&["SCRIPT", "LOAD", s.source]),
            Reply::bulk(s.sha1)
        );
    }
    for q in [
        "",
        "clients=5&spread=30&seed=3",
        "preset=no-rollback",
        "room=500",
    ] {
        let (p, errs) = Params::from_query(&INFO, q);
        assert!(errs.is_empty(), "{errs:?}");
        let p: RoundTripsParams = p.read();
        for &way in Way::ALL {
            admin.cmd(&["FLUSHALL"]);
            let mut sim_s = scenario(&p, way);
            let mut sim = sim_s.world(SimRedis::new(p.seed).with_named_scripts(), false);
            sim.run(100_000);
            let mut real_s = scenario(&p, way);
            let mut real = real_s.world(
                RealRedis {
                    port: server.port(),
                    conns: Default::default(),
                },
                false,
            );
            real.run(100_000);
            let (a, b) = (sim_s.output(&sim, None), real_s.output(&real, None));
            assert!(a.ran.len() >= 4, "{q} {way:?}");
            assert_eq!(a, b, "{q} {way:?}");
        }
    }
}

#[test]
fn the_invalidation_actions_agree_with_a_real_redis() {
    use redislab_sim::labs::invalidation::{scenario, InvalidationParams, Way, INFO, WAYS};
    use redislab_sim::labs::params::Params;
    let mut server = Server::start();
    let mut admin = server.conn();
    let (p, errs) = Params::from_query(&INFO, "lists=300&others=300&count=1000&write_ms=0");
    assert!(errs.is_empty(), "{errs:?}");
    let p: InvalidationParams = p.read();
    // The real Redis runs in real time, the world in virtual time: the keys' TTLs never run
    // out there, so each action is compared where no TTL has run out in the simulation
    // either (its commands, Redis' replies, the reads' misses and stale hits).
    for way in WAYS {
        admin.cmd(&["FLUSHALL"]);
        let mut sim_s = scenario(&p, way);
        let mut sim = sim_s.world(SimRedis::new(p.seed).with_named_scripts(), false);
        sim.run(1_000_000);
        let mut real_s = scenario(&p, way);
        let mut real = real_s.world(
            RealRedis {
                port: server.port(),
                conns: Default::default(),
            },
            false,
        );
        real.run(1_000_000);
        let (a, b) = (sim_s.output(&sim, None), real_s.output(&real, None));
        let del_total = |r: &redislab_sim::labs::invalidation::ActionOutcome| -> i64 {
            r.log
                .iter()
                .filter(|l| l.cmd[0] == "DEL")
                .filter_map(|l| l.reply.as_ref().ok().and_then(Reply::as_int))
                .sum()
        };
        assert_eq!(
            (
                a.round_trips,
                a.fulfilled,
                a.rejected,
                a.reads,
                a.db_loads,
                a.stale_reads
            ),
            (
                b.round_trips,
                b.fulfilled,
                b.rejected,
                b.reads,
                b.db_loads,
                b.stale_reads
            ),
            "{way:?}"
        );
        assert!(a.reads > 0 && !a.log.is_empty(), "{way:?}");
        assert_eq!(del_total(&a), del_total(&b), "{way:?}");
        if way != Way::ScanDel {
            // SCAN's pages differ (SimRedis keeps Redis' guarantee, not its cursors); every
            // other command and reply is the same.
            assert_eq!(a.log, b.log, "{way:?}");
        }
    }
}
