//! Golden numbers per preset, and the properties over many seeds.

use super::*;
use crate::labs::def::Steps;
use crate::labs::params::Params;
use crate::rng::Mulberry32;

fn preset(id: &str) -> RedlockParams {
    Params::with_preset(&INFO, id).expect("preset").read()
}

/// (grants, failed attempts, two-owner moments, two-owner ms, stale accepted, stale
/// rejected, commands)
fn golden(r: &RedlockOutput) -> (u32, u32, u32, u64, u32, u32, u32) {
    let c = r.counters;
    (
        c.grants,
        c.failed_attempts,
        c.two_owner_moments,
        c.two_owner_ms,
        c.stale_accepted,
        c.stale_rejected,
        c.commands,
    )
}

#[test]
fn failover_loses_the_lock_two_owners() {
    let r = run(&preset("failover"));
    assert_eq!(golden(&r), (2, 0, 1, 402, 0, 0, 4));
    assert_eq!(r.verdict, Verdict::TwoOwners { ms: 402, stale: 0 });
    assert_eq!(r.lanes, ["primary", "replica"]);
    // A's lock lived on the primary only; B's on the promoted replica.
    let holds: Vec<_> = r.holds.iter().map(|h| (h.lane, h.client, h.end)).collect();
    assert_eq!(holds, [(0, 0, HoldEnd::Crashed), (1, 1, HoldEnd::Released)]);
    assert_eq!(
        r.faults,
        [
            FaultRow::Crash {
                at_ms: 20,
                step: 2,
                lane: 0
            },
            FaultRow::Promote {
                at_ms: 120,
                step: 2,
                lane: 1
            }
        ]
    );
    // Replicated in time (lag 10 < 20 − 3): B waits for A's release.
    let mut p = preset("failover");
    p.lag = 10;
    let r = run(&p);
    assert_eq!(r.verdict, Verdict::NeverTwo);
    assert_eq!(
        r.holds
            .iter()
            .filter(|h| h.lane == 1 && h.client == 0)
            .count(),
        1
    );
}

#[test]
fn redlock_majority_keeps_the_lock() {
    let r = run(&preset("redlock"));
    assert_eq!(golden(&r), (2, 5, 0, 0, 0, 0, 70));
    assert_eq!(r.verdict, Verdict::NeverTwo);
    let a = &r.attempts[0];
    assert_eq!((a.granted.len(), a.validity_ms, a.won), (5, 966, true));
    assert_eq!(r.holders_at(r.steps(), 300), vec![Some(0); 5]);
}

#[test]
fn redlock_survives_a_dead_node() {
    let r = run(&preset("redlock-node-down"));
    assert_eq!(r.verdict, Verdict::NeverTwo);
    let c = r.counters;
    assert_eq!((c.grants, c.two_owner_moments), (2, 0));
    // B's attempts while A holds it see r1 refused and four nils.
    assert!(r
        .attempts
        .iter()
        .skip(1)
        .filter(|a| !a.won)
        .all(|a| a.granted.is_empty()));
    assert_eq!(
        r.holders_at(r.steps(), 300),
        [None, Some(0), Some(0), Some(0), Some(0)]
    );
    let won_b = r
        .attempts
        .iter()
        .find(|a| a.won && a.client == 1)
        .expect("B wins");
    assert_eq!(won_b.granted, [1, 2, 3, 4]);
    assert_eq!(golden(&r), (2, 5, 0, 0, 0, 0, 70));
}

#[test]
fn kleppmann_pause_two_owners_and_a_stale_write() {
    let r = run(&preset("pause"));
    assert_eq!(golden(&r), (2, 9, 1, 113, 1, 0, 110));
    assert_eq!(r.verdict, Verdict::TwoOwners { ms: 113, stale: 1 });
    let w: Vec<_> = r
        .writes
        .iter()
        .map(|w| (w.client, w.generation, w.stale, w.accepted))
        .collect();
    assert_eq!(w, [(1, 2, false, true), (0, 1, true, true)]);
}

#[test]
fn kleppmann_clock_jump_two_owners() {
    let r = run(&preset("clock-jump"));
    assert_eq!(golden(&r), (2, 0, 1, 398, 0, 0, 20));
    let won: Vec<_> = r
        .attempts
        .iter()
        .map(|a| (a.client, a.granted.clone()))
        .collect();
    assert_eq!(won, [(0, vec![0, 1, 2]), (1, vec![2, 3, 4])]);
    assert!(r
        .holds
        .iter()
        .any(|h| h.lane == 2 && h.client == 0 && h.end == HoldEnd::ClockJump && h.to_ms == 100));
    // Without the jump B never reaches a majority while A works.
    let mut p = preset("clock-jump");
    p.jump = 0;
    assert_eq!(run(&p).verdict, Verdict::NeverTwo);
}

#[test]
fn fencing_rejects_the_stale_write() {
    let r = run(&preset("fencing"));
    assert_eq!(golden(&r), (2, 9, 1, 112, 0, 1, 112));
    assert_eq!(r.verdict, Verdict::StaleRejected { two_owner_ms: 112 });
    let w: Vec<_> = r
        .writes
        .iter()
        .map(|w| (w.client, w.fence, w.accepted))
        .collect();
    assert_eq!(w, [(1, Some(2), true), (0, Some(1), false)]);
}

#[test]
fn same_seed_same_run_and_the_text_and_json_agree() {
    let p = preset("clock-jump");
    assert_eq!(run(&p), run(&p));
    let (r, t) = run_with_trace(&p);
    let s = text(&r, &t);
    assert!(s.contains("two-owner moments 1 (398 ms)"), "{s}");
    assert_eq!(
        serde_json::to_value(&r).unwrap()["counters"]["twoOwnerMs"],
        398
    );
}

#[test]
fn so_far_at_the_end_is_the_whole_run_and_grows() {
    for pr in PRESETS {
        let r = run(&preset(pr.id));
        assert_eq!(r.so_far(r.steps()), r.counters, "{}", pr.id);
        assert_eq!(r.so_far(0), Counters::default(), "{}", pr.id);
    }
}

#[test]
fn heaviest_parses_and_runs() {
    let p = Params::from_query(&INFO, LAB.heaviest());
    assert!(p.1.is_empty(), "{:?}", p.1);
    let r = run(&p.0.read());
    assert!(r.steps() > 0 && r.steps() < MAX_STEPS);
}

/// Property: one primary with asynchronous replication loses the lock on failover exactly
/// when the crash comes after A's write and before the write reached the replica.
#[test]
fn async_replication_loses_the_lock_when_the_lag_exceeds_the_gap() {
    let mut rng = Mulberry32::new(19);
    let (mut lost, mut kept) = (0, 0);
    for _ in 0..2_000 {
        let p = RedlockParams {
            ttl: 30_000,
            work: 2_000,
            gap: u64::from(rng.below(500)),
            lag: u64::from(rng.below(400)),
            crash_at: u64::from(rng.below(200)),
            promote_after: u64::from(rng.below(300)),
            seed: rng.next_u32(),
            ..preset("failover")
        };
        let r = run(&p);
        let a = r
            .attempts
            .iter()
            .find(|a| a.won && a.client == 0)
            .expect("A wins");
        let set_at = r
            .commands
            .iter()
            .find(|c| {
                c.client == 0
                    && c.kind == CmdKind::Acquire
                    && c.line.reply == Ok(crate::redis::Reply::ok())
            })
            .expect("A's SET")
            .line
            .at_ms;
        assert!(set_at <= a.to_ms);
        let loses = set_at < p.crash_at && set_at + p.lag > p.crash_at;
        let two = r.counters.two_owner_moments > 0;
        assert_eq!(two, loses, "{p:?}");
        if loses {
            lost += 1;
        } else {
            kept += 1;
        }
    }
    assert!(lost > 100 && kept > 100, "{lost} {kept}");
}

/// Property: with the fencing check no stale write is accepted, under any pause; without
/// it some are.
#[test]
fn fencing_accepts_no_stale_write_under_any_pause() {
    let mut rng = Mulberry32::new(4);
    let mut stale_without = 0;
    for _ in 0..1_000 {
        let mut p = RedlockParams {
            ttl: 300 + u64::from(rng.below(2_000)),
            work: 10 + u64::from(rng.below(1_000)),
            gap: u64::from(rng.below(1_000)),
            pause: u64::from(rng.below(5_000)),
            seed: rng.next_u32(),
            ..preset("fencing")
        };
        let r = run(&p);
        assert_eq!(r.counters.stale_accepted, 0, "{p:?}");
        p.fencing = crate::labs::params::Switch::Off;
        stale_without += run(&p).counters.stale_accepted;
    }
    assert!(stale_without > 50, "{stale_without}");
}
