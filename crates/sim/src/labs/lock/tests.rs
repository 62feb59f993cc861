//! The lock race's unit tests: golden presets, stepping, the heartbeat, the live driver.

use super::*;
use crate::labs::def::Steps;
use crate::labs::lab::LiveDriver;
use crate::labs::params::{Params, Switch};
use crate::redis::{Reply, SimRedis};

fn preset_params(id: &str) -> LockParams {
    let (p, errs) = Params::from_query(&INFO, &format!("preset={id}"));
    assert!(errs.is_empty(), "{errs:?}");
    p.read()
}

#[test]
fn defaults_are_the_plain_del_preset() {
    assert_eq!(LockParams::default(), preset_params("plain-del"));
    let p = Params::defaults(&INFO);
    assert_eq!(p.preset().map(|p| p.id), Some("plain-del"));
    // Later pairs override the preset's.
    let (p, errs) = Params::from_query(&INFO, "seed=9&preset=fencing&pause=100");
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(
        (p.get("fencing"), p.get("pause"), p.get("seed")),
        ("on", "100", "9")
    );
    // An unknown preset is reported by the parameter check.
    let (_, errs) = Params::from_query(&INFO, "preset=nope");
    assert_eq!(errs[0].key, "preset");
}

/// Golden runs of the four presets (seed 4, TTL 1000 ms, work 600 ms, two jobs each).
#[test]
fn golden_presets() {
    let c = |id: &str| run(&preset_params(id)).counters;
    // Plain DEL: A is frozen 200–1000 ms, its lock expires at 1001 ms, B takes it at
    // 1071 ms; A works on to 1403 ms and its DEL (1404 ms) removes B's lock.
    let d = c("plain-del");
    assert_eq!(
        (
            d.two_owner_moments,
            d.two_owner_ms,
            d.steals,
            d.grants,
            d.commands
        ),
        (3, 843, 3, 4, 20)
    );
    assert_eq!((d.stale_accepted, d.stale_rejected), (0, 0));
    let r = run(&preset_params("plain-del"));
    let st = r.first_steal().unwrap();
    assert_eq!(
        (st.actor, st.at_ms, st.cmd_text().as_str()),
        (0, 1404, "DEL lock:campaign:42")
    );
    assert_eq!(r.owners[1].actor, 1);
    assert_eq!(r.owners[1].end, OwnerEnd::Stolen);
    // Token release + heartbeat: never two owners, nobody's lock removed.
    let t = c("token");
    assert_eq!(
        (t.two_owner_moments, t.steals, t.lost, t.grants, t.commands),
        (0, 0, 0, 4, 49)
    );
    // A pause past the TTL, no fencing: A's old write lands after B's newer one.
    let p = c("pause");
    assert_eq!(
        (
            p.stale_accepted,
            p.stale_rejected,
            p.writes_accepted,
            p.writes_rejected
        ),
        (1, 0, 4, 0)
    );
    assert_eq!((p.two_owner_moments, p.two_owner_ms, p.steals), (1, 341, 0));
    // The same with fencing: the resource rejects it.
    let f = c("fencing");
    assert_eq!(
        (
            f.stale_accepted,
            f.stale_rejected,
            f.writes_accepted,
            f.writes_rejected
        ),
        (0, 1, 3, 1)
    );
    let r = run(&preset_params("fencing"));
    let w = r.writes.iter().find(|w| !w.accepted).unwrap();
    assert_eq!((w.actor, w.fence, w.generation), (0, Some(1), 1));
}

#[test]
fn a_double_click_runs_once_with_dedup() {
    let mut p = preset_params("token");
    p.jobs = 1;
    p.dedup = Switch::On;
    let r = run(&p);
    assert_eq!(r.counters.duplicates, 1);
    assert_eq!(r.counters.grants, 1);
    assert!(r.commands[0]
        .cmd_text()
        .starts_with("SET dedup:click-1 1 NX EX 900"));
    let second = r.commands.iter().find(|c| c.actor == 1).unwrap();
    assert_eq!(
        (second.cmd_text().as_str(), &second.reply),
        ("SET dedup:click-1 1 NX EX 900", &Reply::Nil)
    );
    p.dedup = Switch::Off;
    assert_eq!(run(&p).counters.grants, 2);
}

#[test]
fn stepping_equals_the_run_to_the_end() {
    for id in ["plain-del", "token", "pause", "fencing"] {
        let p = preset_params(id);
        let full = run(&p);
        let mut chunked = LockSim::of(&p, None);
        while !chunked.steps(7) {}
        assert_eq!(chunked.output(), full, "{id}");
        for n in [
            0,
            1,
            5,
            13,
            full.steps() / 3,
            full.steps() / 2,
            full.steps() - 1,
            full.steps(),
        ] {
            let mut part = LockSim::of(&p, None);
            part.run_to_step(n);
            let r = part.output();
            assert_eq!(r.page().times[..], full.page().times[..n], "{id} {n}");
            assert_eq!(r.counters, full.so_far(n), "{id} at step {n}");
        }
    }
}

#[test]
fn the_heartbeat_finds_a_lost_lock_and_stops() {
    // A pause just under the TTL right before a heartbeat is due: the lock expires, B
    // takes it, A's extend gets 0 and A drops the job without working on.
    let mut p = preset_params("token");
    p.pause_at = 330;
    p.pause = 990;
    p.jobs = 1;
    let r = run(&p);
    assert_eq!(r.counters.lost, 1, "{r:?}");
    assert_eq!(r.counters.two_owner_moments, 0);
    assert!(r
        .commands
        .iter()
        .any(|c| c.kind == CmdKind::Extend && c.reply == Reply::Integer(0)));
}

/// The live driver with SimRedis answering every command the moment it is sent (no
/// network at all): the same workers, so the same ending as the simulation.
#[test]
fn the_live_driver_fed_by_simredis_ends_as_simulated() {
    use crate::redis::Exec;
    for id in ["plain-del", "pause", "fencing", "token"] {
        let p = preset_params(id);
        let mut live = LockLive::of(&p, None);
        let mut redis = SimRedis::new(p.seed).with_named_scripts();
        let mut now = 0;
        let mut sent = 0;
        while !live.is_done() {
            for (actor, c) in live.advance(now) {
                redis.advance_to(now);
                let Exec::Reply(r) = redis.execute(actor as u64 + 1, &c) else {
                    panic!("a lock command never blocks")
                };
                live.arrived(actor, r, now, 250);
                sent += 1;
            }
            now = live.next_at().unwrap_or(now).max(now);
        }
        let (l, s) = (live.output(), run(&p));
        assert_eq!(l.outcome(), s.outcome(), "{id}");
        assert_eq!(l.commands.len(), sent, "{id}");
        assert!(l.commands.iter().all(|c| c.rtt_us == Some(250)), "{id}");
        assert_eq!(
            l.counters.two_owner_moments, s.counters.two_owner_moments,
            "{id}"
        );
    }
}

#[test]
fn the_worker_protocol_gives_the_same_result() {
    // labsim prints the same output without the page's part (the recorded shape), or with
    // it given --page.
    use crate::labs::work::{Body, Job, Work};
    let p = preset_params("fencing");
    let job = Job::new(&INFO, &Params::from_query(&INFO, "preset=fencing").0);
    let msgs = Work::new(job).unwrap().run_to_end();
    let Some(Body::Done(r)) = msgs.last() else {
        panic!("no result: {msgs:?}")
    };
    assert_eq!(r.read::<LockOutput>().unwrap(), run(&p));
    // It survives the JSON trip the worker's messages take.
    let s = serde_json::to_string(&msgs).unwrap();
    assert_eq!(serde_json::from_str::<Vec<Body>>(&s).unwrap(), msgs);
}

/// Token release, no pause, work well inside the TTL (300 ms + a few ms of network < 1000
/// ms): whoever holds the lock releases it before it can expire, so over many seeds (the
/// network's jitter, the tokens, the waits between tries) no two pieces of work overlap, no
/// release deletes another's lock, and every job is done under a lock of its own.
#[test]
fn property_token_release_with_work_inside_the_ttl_never_has_two_owners() {
    let base = LockParams {
        ttl: 1000,
        work: 300,
        jobs: 3,
        release: Release::Token,
        pause: 0,
        gap: 0,
        ..preset_params("token")
    };
    let mut traces = std::collections::HashSet::new();
    for seed in 0..300 {
        let p = LockParams {
            seed,
            ..base.clone()
        };
        let mut r = LockSim::of(&p, None);
        while !r.steps(1_000) {}
        traces.insert(r.world().trace_text());
        let out = r.output();
        let c = &out.counters;
        assert_eq!(c.two_owner_moments, 0, "seed {seed}");
        assert_eq!(c.steals, 0, "seed {seed}");
        assert_eq!(c.grants, 6, "seed {seed}: 3 jobs each");
        let work = out
            .page()
            .segs
            .iter()
            .filter(|s| s.kind == SegKind::Work && s.to_ms > s.from_ms)
            .count();
        assert_eq!(work, 6, "seed {seed}");
        assert!(out.commands.iter().all(|c| c.kind != CmdKind::Del));
    }
    assert!(
        traces.len() > 250,
        "seeds draw other timings: {}",
        traces.len()
    );
}
