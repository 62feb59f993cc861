//! The goldens: the 50,000 viewers, the seed's 1 s / 300 / 30 s / 1,000, and a
//! failed flush requeued three ways.

use super::*;
use crate::labs::def::{Figures, Steps};
use crate::labs::lab::Lab;

fn p(q: &str) -> BufferParams {
    let (p, errs) = Params::from_query(&INFO, q);
    assert!(errs.is_empty(), "{errs:?}");
    p.read()
}

#[test]
fn the_defaults_tell_the_slide() {
    let r = run(&p(""));
    assert_eq!((r.params.viewers, r.params.seconds), (50_000, 120));
    assert!(r.active.iter().all(|&a| a == 50_000));
    // Per second: 50,000 heartbeats. Direct: 50,000 commands in 50,000 round trips.
    // Buffered: ⌈50,000 / 300⌉ = 167 ZADDs in one pipeline, one round trip.
    assert_eq!(r.per_s(r.direct.redis_cmds), 50_000.0);
    assert_eq!(r.per_s(r.direct.round_trips), 50_000.0);
    assert_eq!(r.per_s(r.buffered.redis_cmds), 167.0);
    assert_eq!(r.per_s(r.buffered.round_trips), 1.0);
    assert_eq!(r.buffered_cmds_at(0), 167);
    // Redis writes the same members either way: the pipeline saves trips, chunks commands.
    assert_eq!(r.direct.members, r.buffered.members);
    assert_eq!(r.direct.members, 6_000_000);
    assert_eq!(
        (r.direct.redis_cmds, r.buffered.redis_cmds),
        (6_000_000, 20_040)
    );
    assert_eq!(
        (r.direct.round_trips, r.buffered.round_trips),
        (6_000_000, 120)
    );
    // Progress: direct writes every event (50,000 rows a second, 1,500,000 per 30 s); the
    // Map keeps one row per user: 50,000 rows every 30 s in 50 queries of 1,000.
    assert_eq!(
        (r.direct.db_rows, r.direct.db_queries),
        (6_000_000, 6_000_000)
    );
    assert_eq!(r.flushes.len(), 4);
    for (k, f) in r.flushes.iter().enumerate() {
        assert_eq!(
            (f.at_s, f.rows, f.queries, f.ok),
            (30 * (k as u32 + 1), 50_000, 50, true)
        );
    }
    assert_eq!((r.buffered.db_rows, r.buffered.db_queries), (200_000, 200));
    assert_eq!(
        r.check,
        Check {
            users: 50_000,
            written: 50_000,
            pending: 0,
            behind: 0
        }
    );
    // The SimRedis sample: 600 viewers × 3 s.
    let s = &r.sample;
    assert_eq!((s.viewers, s.seconds), (600, 3));
    assert_eq!((s.direct.cmds, s.direct.round_trips), (1_800, 1_800));
    assert_eq!((s.buffered.cmds, s.buffered.round_trips), (6, 3));
    assert_eq!((s.direct.members, s.buffered.members), (1_800, 1_800));
    assert_eq!((s.direct.zcard, s.buffered.zcard), (600, 600));
    let first = &s.buffered.log[0];
    assert_eq!(first.cmd[..2], ["ZADD".to_string(), ROOM.to_string()]);
    assert_eq!(first.note, "300 জন, 602 শব্দ");
    assert_eq!(first.reply, Ok(crate::redis::Reply::Integer(300)));
    assert_eq!(s.direct.log[0].cmd.len(), 4);
    // The page's figures: the slide's 167 commands in one pipeline, 50,000 members a second.
    let f = r.figures();
    let of = |k: &str| f.iter().find(|x| x.key == k).map(|x| x.value);
    assert_eq!(
        (of("per-trip"), of("members")),
        (Some(167.0), Some(50_000.0))
    );
    assert_eq!(
        (of("cmds-direct"), of("cmds-buffered")),
        (Some(6e6), Some(20_040.0))
    );
    assert_eq!(of("sample-buffered-trips"), Some(3.0));
    assert_eq!(f.len(), 9 + 8 + 6);
    // The timeline walks the flushes.
    assert_eq!((r.steps(), r.after_flush(2), r.after_flush(9)), (4, 2, 4));
}

#[test]
fn the_sample_counts_as_the_arithmetic_does() {
    for q in [
        "sample=1",
        "sample=299&chunk=300",
        "sample=301",
        "sample=1000&chunk=7",
    ] {
        let x = p(q);
        let s = sample(&x);
        let n = u64::from(x.sample);
        let secs = u64::from(SAMPLE_S);
        assert_eq!(s.direct.cmds, n * secs, "{q}");
        assert_eq!(s.direct.round_trips, n * secs, "{q}");
        assert_eq!(
            s.buffered.cmds,
            n.div_ceil(u64::from(x.chunk)) * secs,
            "{q}"
        );
        assert_eq!(s.buffered.round_trips, secs, "{q}");
        assert_eq!(
            (s.direct.zcard, s.buffered.zcard),
            (n as i64, n as i64),
            "{q}"
        );
    }
}

#[test]
fn no_chunks_one_round_trip_still_every_command() {
    let r = run(&p("chunk=1"));
    assert_eq!(r.per_s(r.buffered.redis_cmds), 50_000.0);
    assert_eq!(r.per_s(r.buffered.round_trips), 1.0);
}

/// Users whose latest event came after the failed flush and before its rows went back, and
/// who sent nothing after: a blind requeue writes their older row.
fn failure(requeue: &str) -> BufferOutput {
    run(&p(&format!("fail=2&leave=30&requeue={requeue}")))
}

#[test]
fn a_failed_flush_requeued_newer_wins_loses_nothing() {
    let r = failure("newer-wins");
    let f = r.flushes[1];
    assert_eq!((f.at_s, f.ok, f.queries), (60, false, 1));
    assert_eq!(r.requeue_at_ms, Some(62_000));
    assert_eq!(f.requeued + f.kept_newer, f.rows);
    assert!(f.kept_newer > 0 && f.requeued > 0);
    assert_eq!((f.overwrote_newer, f.dropped), (0, 0));
    // The next flush writes the requeued rows with the new ones: more rows than users there.
    assert!(r.flushes[2].ok && r.flushes[2].rows > u64::from(r.active[89]));
    assert!(r.check.all_kept(), "{:?}", r.check);
    assert_eq!(r.check.behind, 0);
    // The goldens of this seed.
    assert_eq!(
        (
            f.rows,
            f.requeued,
            f.kept_newer,
            r.flushes[2].rows,
            r.check.users
        ),
        GOLD_NEWER
    );
}

/// Rows of the failed flush, put back, newer kept; rows of the next flush; users.
const GOLD_NEWER: (u64, u64, u64, u64, u64) = (46_159, 3_772, 42_387, 46_159, 49_939);

#[test]
fn a_blind_requeue_writes_older_progress_and_no_requeue_loses_it() {
    let newer = failure("newer-wins");
    let blind = failure("blind");
    let drop = failure("drop");
    let f = blind.flushes[1];
    assert_eq!(f.overwrote_newer, newer.flushes[1].kept_newer);
    assert!(blind.check.behind > 0);
    assert!(blind.check.behind <= f.overwrote_newer);
    assert!(drop.check.behind > blind.check.behind);
    assert_eq!(drop.flushes[1].dropped, drop.flushes[1].rows);
    // No requeue loses exactly the rows newer-wins puts back: the users who left meanwhile.
    assert_eq!(drop.check.behind, newer.flushes[1].requeued);
    assert_eq!((blind.check.behind, drop.check.behind), GOLD_BEHIND);
}

/// Users behind at the end: blind requeue, no requeue.
const GOLD_BEHIND: (u64, u64) = (237, 3_772);

#[test]
fn the_heaviest_runs() {
    let (q, errs) = Params::from_query(&INFO, LAB.heaviest());
    assert!(errs.is_empty(), "{errs:?}");
    let r = run(&q.read());
    assert_eq!(r.flushes.len(), 60);
    assert_eq!(r.steps(), 60);
}

#[test]
fn the_rules_say_it_in_bengali() {
    let bad = |q: &str| Params::from_query(&INFO, q).1;
    let e = bad("fail=5");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(!bad("db_ms=5000&progress_s=5").is_empty());
    assert!(bad("fail=4").is_empty());
    assert!(bad("seconds=300&progress_s=5&fail=60").is_empty());
}

/// The same run event by event, the way the seed's code does it — a `Map` set on every
/// event, swapped out at a flush, rows put back by the requeue — for a small audience: the
/// arithmetic per user must agree with it on every flush and on the end.
fn event_by_event(p: &BufferParams) -> (Vec<Flush>, Check) {
    use std::collections::BTreeMap;
    let vs = model::viewers(p, p.viewers);
    let mut events: Vec<(u64, usize, u32)> = Vec::new();
    for (i, v) in vs.iter().enumerate() {
        for k in 0..v.events {
            events.push((u64::from(v.offset) + 1_000 * u64::from(k), i, k + 1));
        }
    }
    events.sort();
    let period = u64::from(p.progress_s) * 1_000;
    let mut moments: Vec<(u64, u32)> = (1..=p.flushes())
        .map(|k| (u64::from(k) * period, k))
        .collect();
    if p.fail > 0 {
        moments.push((u64::from(p.fail) * period + u64::from(p.db_ms), 0));
    }
    moments.sort();
    let (mut map, mut db) = (BTreeMap::new(), BTreeMap::new());
    let mut failed_rows: BTreeMap<usize, u32> = BTreeMap::new();
    let mut flushes: Vec<Flush> = Vec::new();
    let mut e = 0;
    for &(t, k) in &moments {
        while e < events.len() && events[e].0 < t {
            map.insert(events[e].1, events[e].2);
            e += 1;
        }
        if k == 0 {
            let f = flushes
                .iter_mut()
                .find(|f| !f.ok)
                .expect("the failed flush");
            for (u, v) in std::mem::take(&mut failed_rows) {
                match p.requeue {
                    Requeue::Drop => f.dropped += 1,
                    Requeue::Blind => {
                        if map.insert(u, v).is_some() {
                            f.overwrote_newer += 1;
                        }
                        f.requeued += 1;
                    }
                    Requeue::NewerWins => {
                        if let std::collections::btree_map::Entry::Vacant(slot) = map.entry(u) {
                            slot.insert(v);
                            f.requeued += 1;
                        } else {
                            f.kept_newer += 1;
                        }
                    }
                }
            }
            continue;
        }
        let rows = std::mem::take(&mut map);
        let ok = k != p.fail;
        let n = rows.len() as u64;
        flushes.push(Flush {
            at_s: (t / 1_000) as u32,
            rows: n,
            queries: if ok {
                n.div_ceil(u64::from(p.batch))
            } else {
                u64::from(n > 0)
            },
            ok,
            ..Flush::default()
        });
        if ok {
            db.extend(rows);
        } else {
            failed_rows = rows;
        }
    }
    for &(_, u, v) in &events[e..] {
        map.insert(u, v);
    }
    let mut c = Check::default();
    for (i, v) in vs.iter().enumerate() {
        if v.events == 0 {
            continue;
        }
        c.users += 1;
        match (map.get(&i), db.get(&i)) {
            (Some(&m), _) if m == v.events => c.pending += 1,
            (None, Some(&d)) if d == v.events => c.written += 1,
            _ => c.behind += 1,
        }
    }
    (flushes, c)
}

#[test]
fn the_arithmetic_agrees_with_the_seeds_map_event_by_event() {
    for q in [
        "viewers=700&leave=30&fail=2",
        "viewers=700&leave=30&fail=2&requeue=blind",
        "viewers=700&leave=30&fail=2&requeue=drop",
        "viewers=500&leave=60&fail=3&requeue=blind&seconds=110&db_ms=800&batch=64",
        "viewers=300&leave=10&progress_s=7&seconds=50&fail=1&seed=9",
    ] {
        let x = p(q);
        let r = run(&x);
        let (flushes, check) = event_by_event(&x);
        assert_eq!(r.flushes, flushes, "{q}");
        assert_eq!(r.check, check, "{q}");
    }
}
