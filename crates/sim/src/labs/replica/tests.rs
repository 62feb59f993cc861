use super::*;
use crate::labs::def::{Figures, Steps};
use crate::labs::lab::Run;
use crate::labs::params::{check, Params};
use crate::redis::Reply;
use crate::rng::Mulberry32;

fn preset(id: &str) -> ReplicaParams {
    Params::with_preset(&INFO, id).unwrap().read()
}

fn frame_at(o: &ReplicaOutput, t_ms: u64) -> &Frame {
    o.frames.iter().find(|f| f.t_ms == t_ms).unwrap()
}

/// What a read finds is the same on both sides at every frame: nothing is lost.
fn nothing_lost(o: &ReplicaOutput) {
    for f in &o.frames {
        if let Some(s) = f.second {
            assert_eq!(s.live(), f.primary.live(), "at {} ms", f.t_ms);
        }
    }
}

#[test]
fn today_the_counts_match_at_the_sync_and_fall_together() {
    let o = run(&preset("today"));
    assert_eq!(o.frames.len(), 181);
    let a = o.at_sync.unwrap();
    assert_eq!(
        (a.keys, a.stale, a.snapshot, a.dropped),
        (9379, 704, 9379, 0)
    );
    // Loaded at 31 s: the replica holds the snapshot's keys, the primary has reclaimed some
    // since; their DELs are on the way.
    let f = frame_at(&o, 31_000);
    let s = f.second.unwrap();
    assert_eq!(s.keys, 9379);
    assert_eq!(s.keys, f.primary.keys + f.in_flight);
    assert!(frame_at(&o, 30_500).second.is_none());
    let last = o.frames.last().unwrap();
    let s = last.second.unwrap();
    assert_eq!(
        (last.primary.keys, last.primary.expires, last.primary.stale),
        (5796, 1840, 257)
    );
    assert_eq!((s.keys, s.expires, s.stale), (5879, 1923, 340));
    assert_eq!((last.lazy, last.active, last.second_active), (198, 4006, 0));
    assert_eq!(last.reads, 4500);
    nothing_lost(&o);
    // The replica holds what the primary holds plus what its DELs have yet to remove.
    for f in o.frames.iter().filter(|f| f.second.is_some()) {
        assert_eq!(f.second.unwrap().keys, f.primary.keys + f.in_flight);
    }
}

#[test]
fn the_probe_reads_nil_on_both_sides_and_the_del_arrives_after_the_lag() {
    let o = run(&preset("today"));
    let words: Vec<(u64, &str, String, String)> = o
        .log
        .iter()
        .map(|l| (l.at_ms, l.actor.as_str(), l.cmd_text(), l.reply_text()))
        .collect();
    assert_eq!(
        words,
        [
            (32_000, "replica", "GET key:08879".into(), "(nil)".into()),
            (32_000, "replica", "DBSIZE".into(), "(integer) 9341".into()),
            (32_000, "primary", "GET key:08879".into(), "(nil)".into()),
            (32_000, "primary", "DBSIZE".into(), "(integer) 9306".into()),
            (33_000, "replica", String::new(), "(nil)".into()),
        ]
    );
    assert!(o.log[4].note.contains("পৌঁছল"), "{}", o.log[4].note);
}

#[test]
fn an_old_snapshot_starts_the_replica_with_fewer_keys_and_loses_nothing() {
    let o = run(&preset("old-rdb"));
    let a = o.at_sync.unwrap();
    assert_eq!((a.keys, a.stale, a.snapshot), (9379, 704, 8675));
    let f = frame_at(&o, 31_000);
    let s = f.second.unwrap();
    // The keys that expired during the lag are in the snapshot; none from before it.
    assert_eq!((s.keys, s.stale), (8675, 49));
    assert!(s.keys < f.primary.keys, "the seed's observation");
    nothing_lost(&o);
}

#[test]
fn a_primary_started_from_the_rdb_drops_the_stale_keys_while_loading() {
    let o = run(&preset("restart"));
    let a = o.at_sync.unwrap();
    assert_eq!((a.snapshot, a.dropped), (9379, 704));
    assert_eq!(o.loaded_ms, 30_000);
    let f = frame_at(&o, 30_000);
    let s = f.second.unwrap();
    assert_eq!((s.keys, s.stale), (9379 - 704, 0));
    let last = o.frames.last().unwrap();
    assert!(last.second_active > 0, "it runs its own cycle");
    assert_eq!(last.in_flight, 0);
    nothing_lost(&o);
    assert!(o.log[0].note.contains("লোডের সময়"));
}

#[test]
fn with_nobody_reading_only_the_cycle_reclaims() {
    let o = run(&preset("no-reads"));
    let last = o.frames.last().unwrap();
    assert_eq!(last.reads, 0);
    assert_eq!(last.lazy, 1, "the probe's one GET");
    assert!(last.active > 4000);
    nothing_lost(&o);
}

#[test]
fn info_keyspace_says_the_counts_the_frames_draw() {
    for id in ["today", "restart"] {
        let mut r = ReplicaModel::new(&preset(id));
        while !r.is_done() {
            r.step();
        }
        let last = *r.output_so_far().frames.last().unwrap();
        let (p, s) = r.info_keyspace();
        let line = |c: Counts| format!("# Keyspace\r\ndb0:keys={},expires={},", c.keys, c.expires);
        let text = |r: &Reply| String::from_utf8_lossy(r.as_bulk().unwrap()).into_owned();
        assert!(text(&p).starts_with(&line(last.primary)), "{}", text(&p));
        assert!(text(&s.unwrap()).starts_with(&line(last.second.unwrap())));
    }
}

#[test]
fn stepping_and_finishing_agree_and_the_numbers_are_the_seeds() {
    let p = ReplicaParams::default();
    let mut r = ReplicaModel::new(&p);
    let mut steps = 0;
    while !Run::is_done(&r) {
        Run::step(&mut r);
        steps += 1;
    }
    assert_eq!(steps, 181);
    assert_eq!(Run::output(&mut r), run(&p));
    assert_eq!(run(&p), run(&preset("today")));
}

#[test]
fn random_setups_never_lose_a_key_and_a_replica_never_expires_one() {
    let mut rng = Mulberry32::new(19);
    for _ in 0..60 {
        let mut p = ReplicaParams {
            keys: 100 + rng.below(1500),
            volatile: rng.below(101),
            ttl_min: 1 + u64::from(rng.below(10)),
            ttl_max: 0,
            sync: u64::from(rng.below(25)),
            lag: u64::from(rng.below(3000)),
            reads: rng.below(300),
            hz: 1 + rng.below(30),
            duration: 30,
            seed: rng.next_u32(),
            snapshot: SnapshotKeys::ALL[rng.below(2) as usize],
            load: LoadAs::ALL[rng.below(2) as usize],
        };
        p.ttl_max = p.ttl_min + u64::from(rng.below(30));
        let o = run(&p);
        nothing_lost(&o);
        for f in &o.frames {
            if o.replica {
                assert_eq!(f.second_active, 0);
                if p.snapshot == SnapshotKeys::All {
                    if let Some(s) = f.second {
                        assert_eq!(s.keys, f.primary.keys + f.in_flight, "{p:?}");
                    }
                }
            } else {
                assert_eq!(f.in_flight, 0);
            }
        }
    }
}

#[test]
fn bad_values_get_a_message_and_the_heaviest_parses() {
    let f = ReplicaParams::FIELDS
        .iter()
        .find(|f| f.key == "hz")
        .unwrap();
    assert!(check(f, "0").is_err());
    let mut p = Params::defaults(&INFO);
    let e = p.set("ttl_min", "200").unwrap_err();
    assert!(e.contains("TTL"), "{e}");
    assert_eq!(p.get("ttl_min"), "5", "a bad value changes nothing");
    let e = p.set("sync", "90").unwrap_err();
    assert!(e.contains("duration"), "{e}");
    assert_eq!(p.get("sync"), "30");
    let (h, errs) = Params::from_query(&INFO, LAB.heaviest());
    assert!(errs.is_empty(), "{errs:?}");
    assert!((INFO.rules)(&h).is_ok());
    let mut short: ReplicaParams = h.read();
    (short.duration, short.sync) = (12, 5);
    let o = run(&short);
    assert_eq!(o.frames.len(), 25);
    nothing_lost(&o);
}

/// The timeline: position k is frame k (0: the start at 0 s), the last the whole run; the
/// figures are the last frame's.
#[test]
fn positions_and_figures() {
    let o = run(&ReplicaParams::default());
    assert_eq!((o.steps(), o.positions()), (180, 181));
    assert_eq!(o.frame(0).unwrap().t_ms, 0);
    assert_eq!(o.position_of(o.loaded_ms), 62);
    assert_eq!(o.frame(62).unwrap().t_ms, 31_000);
    let f: Vec<(String, f64)> = o.figures().into_iter().map(|f| (f.key, f.value)).collect();
    assert_eq!(f[0], ("p-keys".into(), 5796.0));
    assert_eq!(f[3], ("s-keys".into(), 5879.0));
    assert!(f.iter().any(|x| x.0 == "in-flight"));
    assert_eq!(f.last().unwrap(), &("reads".to_string(), 4500.0));
}
