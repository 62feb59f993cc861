//! The five ways on the lab's defaults (two clients 0–5 ms apart, a 10 ms round trip, a
//! room of 499 with a limit of 500): the goldens the slide tells.

use super::*;
use crate::labs::def::{Figures, Steps};

fn p(q: &str) -> RoundTripsParams {
    let (p, errs) = Params::from_query(&INFO, q);
    assert!(errs.is_empty(), "{errs:?}");
    p.read()
}

#[test]
fn the_defaults_tell_the_slide() {
    let r = run(&p(""));
    let w = |m: Way| r.way(m).clone();
    // One by one: 4 round trips each (PFADD, ZCARD, ZADD, EXPIRE), the other client's ZADD
    // lands between our ZCARD and ZADD: 501 in a room limited to 500.
    let one = w(Way::OneByOne);
    assert_eq!(
        one.clients.iter().map(|c| c.trips).collect::<Vec<_>>(),
        [4, 4]
    );
    assert_eq!((one.room_after, one.over), (Some(501), 1));
    assert!(one.between > 0);
    assert_eq!(one.slowest_ms, 40);
    // Pipeline and MULTI: one round trip, the ZADD unconditional: over the limit.
    for m in [Way::Pipeline, Way::Multi] {
        let x = w(m);
        assert_eq!(x.trips_total, 2, "{m}");
        assert_eq!((x.room_after, x.over, x.between), (Some(501), 1, 0), "{m}");
        assert_eq!(x.slowest_ms, 10, "{m}");
    }
    // WATCH: exactly at the limit; the second client's EXEC is nil once and it tries again.
    let watch = w(Way::Watch);
    assert_eq!((watch.room_after, watch.over), (Some(500), 0));
    assert_eq!(watch.clients.iter().map(|c| c.aborted).sum::<u32>(), 1);
    // The script: one round trip each, exactly at the limit, nothing in between.
    let s = w(Way::Script);
    assert_eq!(
        (s.trips_total, s.room_after, s.over, s.between),
        (2, Some(500), 0, 0)
    );
    assert_eq!(s.clients.iter().filter(|c| c.in_set).count(), 1);
    // Every way adds both viewers to the HyperLogLog (the room's 499 and two new): the same
    // 501 members, so the same estimate — Redis' HLL reads 505 (0.8% off, its standard
    // error's size).
    for x in &r.ways {
        assert_eq!(x.hll_after, 505, "{:?}", x.mode);
        assert_eq!(x.room_ttl, ROOM_TTL as i64, "{:?}", x.mode);
    }
}

#[test]
fn one_client_alone_never_breaks_the_limit_but_a_pipeline_does() {
    let r = run(&p("clients=1"));
    for x in &r.ways {
        assert_eq!(x.over, 0, "{:?}", x.mode);
    }
    // A full room: the pipeline's unconditional ZADD goes over even with nobody else.
    let full = run(&p("clients=1&room=500"));
    assert_eq!(full.way(Way::Pipeline).over, 1);
    assert_eq!(full.way(Way::Multi).over, 1);
    for m in [Way::OneByOne, Way::Watch, Way::Script] {
        assert_eq!(full.way(m).over, 0, "{m}");
    }
    // One by one into a full room: PFADD and ZCARD only.
    assert_eq!(full.way(Way::OneByOne).trips_total, 2);
}

#[test]
fn no_way_rolls_back() {
    let r = run(&p("preset=no-rollback"));
    for x in &r.ways {
        // The PFADD before the failing ZCARD stays: the prefill's 499 and the two new
        // viewers are all in the HyperLogLog (estimated 505, as in the defaults' run),
        // though the room's key is a string.
        assert!(x.errors >= 1, "{}: {:?}", x.mode, x.ran);
        assert_eq!(x.room_after, None, "{}", x.mode);
        // WATCH's client reads first: its ZCARD fails before it writes anything, so only the
        // prefill's 499 are there (estimated 503).
        let hll = if x.mode == Way::Watch { 503 } else { 505 };
        assert_eq!(x.hll_after, hll, "{}", x.mode);
        assert!(x.clients.iter().all(|c| c.failed), "{}", x.mode);
    }
    // The pipeline and the transaction still ran EXPIRE on the string after the errors.
    for m in [Way::Pipeline, Way::Multi] {
        assert_eq!(r.way(m).room_ttl, ROOM_TTL as i64, "{m}");
    }
    for m in [Way::OneByOne, Way::Watch, Way::Script] {
        assert_eq!(r.way(m).room_ttl, -1, "{m}");
    }
    let s = r.way(Way::Script);
    let err = s.ran.iter().find(|x| x.reply.is_error()).unwrap();
    assert_eq!(
        err.reply,
        crate::redis::Reply::Error(format!(
            "WRONGTYPE Operation against a key holding the wrong kind of value script: {}, on @user_script:1.",
            crate::redis::scripts::MARK_ACTIVE.sha1
        ))
    );
}

#[test]
fn a_longer_round_trip_costs_each_way_its_trips() {
    let r = run(&p("rtt=80&clients=1"));
    let t = |m: Way| r.way(m).slowest_ms;
    assert_eq!(t(Way::OneByOne), 320);
    assert_eq!(t(Way::Pipeline), 80);
    assert_eq!(t(Way::Multi), 80);
    assert_eq!(t(Way::Watch), 160);
    assert_eq!(t(Way::Script), 80);
}

#[test]
fn the_script_never_breaks_the_limit_and_watch_neither() {
    for seed in 0..40 {
        for clients in [2, 5, 8] {
            let r = run(&p(&format!(
                "clients={clients}&seed={seed}&spread=40&rtt=20"
            )));
            for m in [Way::Script, Way::Watch] {
                let x = r.way(m);
                assert_eq!(x.room_after, Some(500), "seed {seed} {clients} {m}");
                assert_eq!(x.clients.iter().filter(|c| c.in_set).count(), 1);
            }
        }
    }
}

/// The room the picture draws, step by step, ends where the observer's `ZCARD` found it.
#[test]
fn the_room_step_by_step_ends_at_the_observers_count() {
    for q in [
        "",
        "clients=6&spread=30&seed=9",
        "room=500",
        "preset=no-rollback",
    ] {
        for m in Way::ALL {
            let r = run(&p(&format!("{q}&mode={m}")));
            let w = r.shown();
            assert_eq!(r.room_at(w.ran.len()), w.room_after, "{q} {m}");
            assert_eq!(r.room_at(0), w.room_after.map(|_| i64::from(r.params.room)));
            let adds: u32 = w.ran.iter().map(|x| u32::from(x.adds)).sum();
            assert_eq!(adds as usize, w.clients.iter().filter(|c| c.in_set).count());
        }
    }
}

/// The timeline's ends and the figures the page shows at the end: the start is the room
/// before any command, the last position the observer's count; "show me" positions point at
/// the command that decides.
#[test]
fn the_timeline_and_the_figures() {
    let r = run(&p(""));
    assert_eq!(r.steps(), r.shown().ran.len());
    assert_eq!(r.room_at(0), Some(499));
    let over = r.position_over_limit().expect("one by one goes over");
    assert_eq!(r.room_at(over), Some(501));
    assert_eq!(r.room_at(over - 1), Some(500));
    let f = r.figures();
    let get = |k: &str| f.iter().find(|x| x.key == k).map(|x| x.value);
    assert_eq!(
        (get("trips"), get("over"), get("slowest")),
        (Some(8.0), Some(1.0), Some(40.0))
    );
    let broken = run(&p("preset=no-rollback"));
    let e = broken.position_of_error().expect("an error");
    assert!(broken.shown().ran[e - 1].reply.is_error());
    assert_eq!(broken.position_over_limit(), None);
}
